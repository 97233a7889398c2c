#include "distributed/agreement.h"

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/error.h"

namespace symx {
namespace {

uint64_t Fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// A line for messages: long lines are cut in the middle.
std::string Quote(const std::string& line) {
  constexpr size_t kMax = 300;
  if (line.size() <= kMax) return absl::StrCat("'", line, "'");
  return absl::StrCat("'", line.substr(0, kMax / 2), " ... ", line.substr(line.size() - kMax / 2),
                      "'");
}

}  // namespace

absl::StatusOr<std::vector<std::string>> AllGather(Communicator& comm, const std::string& mine,
                                                   absl::Duration timeout) {
  const int n = comm.size(), r = comm.rank();
  SYMX_ASSIGN_OR_RETURN(Tensor sizes, Tensor::Zeros(Shape{n}, DType::kInt64));
  sizes.data<int64_t>()[r] = static_cast<int64_t>(mine.size());
  SYMX_RETURN_IF_ERROR(WaitFor(comm.Allreduce(sizes, ReduceOp::kSum), timeout));
  std::vector<int64_t> offsets(n + 1, 0);
  for (int i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + sizes.data<int64_t>()[i];
  // Each rank fills its own stretch of a zeroed buffer; the sum is everyone's.
  SYMX_ASSIGN_OR_RETURN(Tensor bytes, Tensor::Zeros(Shape{offsets[n]}, DType::kUint8));
  if (!mine.empty()) std::memcpy(bytes.data<uint8_t>() + offsets[r], mine.data(), mine.size());
  SYMX_RETURN_IF_ERROR(WaitFor(comm.Allreduce(bytes, ReduceOp::kSum), timeout));
  std::vector<std::string> out(n);
  for (int i = 0; i < n; ++i) {
    out[i].assign(reinterpret_cast<const char*>(bytes.data<uint8_t>()) + offsets[i],
                  offsets[i + 1] - offsets[i]);
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> Rendezvous::Exchange(const absl::Status& local,
                                                              const std::string& payload) {
  // "E<code> <message>" from a rank that failed, "O<payload>" from the others.
  std::string token = local.ok()
                          ? absl::StrCat("O", payload)
                          : absl::StrCat("E", static_cast<int>(local.code()), " ", local.message());
  absl::StatusOr<std::vector<std::string>> tokens = AllGather(comm_, token, timeout_);
  if (!tokens.ok()) {
    settled_ = true;
    return tokens.status();
  }
  if (!local.ok()) {
    settled_ = true;
    return local;
  }
  std::vector<std::string> payloads;
  for (size_t q = 0; q < tokens->size(); ++q) {
    const std::string& t = (*tokens)[q];
    if (!t.empty() && t[0] == 'O') {
      payloads.push_back(t.substr(1));
      continue;
    }
    settled_ = true;
    const size_t space = t.find(' ');
    const int code = std::atoi(t.c_str() + 1);
    return absl::Status(static_cast<absl::StatusCode>(code),
                        absl::StrCat(what_, ": rank ", q, " failed: ",
                                     space == std::string::npos ? t : t.substr(space + 1)));
  }
  return payloads;
}

absl::Status Rendezvous::Agree(const absl::Status& local, const std::vector<std::string>& lines) {
  const std::string text = absl::StrJoin(lines, "\n");
  SYMX_ASSIGN_OR_RETURN(std::vector<std::string> hashes,
                        Exchange(local, absl::StrCat(Fnv1a(text))));
  size_t differs = 0;
  for (size_t q = 1; q < hashes.size() && differs == 0; ++q) {
    if (hashes[q] != hashes[0]) differs = q;
  }
  if (differs == 0) return absl::OkStatus();
  // Every rank saw the same hashes, so every rank takes part in this second
  // exchange and reports the same first difference.
  settled_ = true;
  SYMX_ASSIGN_OR_RETURN(std::vector<std::string> texts, AllGather(comm_, text, timeout_));
  std::vector<std::string> a = absl::StrSplit(texts[0], '\n');
  std::vector<std::string> b = absl::StrSplit(texts[differs], '\n');
  size_t k = 0;
  while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
  const std::string first = k < a.size() ? Quote(a[k]) : "nothing (its description ends there)";
  const std::string second = k < b.size() ? Quote(b[k]) : "nothing (its description ends there)";
  return absl::InvalidArgumentError(absl::StrCat(
      what_, ": ranks 0 and ", differs, " differ at line ", k + 1, ": rank 0 has ", first,
      ", rank ", differs, " has ", second,
      " (every rank must bind the same symbol with the same shapes, dtypes, grad_req and "
      "group2ctx)"));
}

void Rendezvous::Abandon(const absl::Status& error) {
  if (settled_) return;
  (void)Exchange(error, "");
  settled_ = true;
}

}  // namespace symx
