#include "devices/context.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace symx {

const char* DeviceTypeName(DeviceType type) {
  switch (type) {
    case DeviceType::kCPU:
      return "cpu";
    case DeviceType::kGPU:
      return "gpu";
    case DeviceType::kCPUPinned:
      return "cpu_pinned";
    case DeviceType::kCPUShared:
      return "cpu_shared";
  }
  return "unknown";
}

std::string Context::ToString() const {
  std::string out = absl::StrCat(DeviceTypeName(type), "(", id, ")");
  if (rank >= 0) absl::StrAppend(&out, "@rank", rank);
  return out;
}

absl::StatusOr<Context> ParseContext(absl::string_view text) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid context '", text, "': ", why,
                     " (expected cpu, cpu(N), gpu(N), optionally followed by @rankR)"));
  };
  absl::string_view rest = absl::StripAsciiWhitespace(text);
  Context ctx;
  size_t at = rest.find('@');
  if (at != absl::string_view::npos) {
    absl::string_view rank_text = rest.substr(at + 1);
    if (!absl::ConsumePrefix(&rank_text, "rank") || !absl::SimpleAtoi(rank_text, &ctx.rank) ||
        ctx.rank < 0) {
      return bad("the rank must be @rankN with N >= 0");
    }
    rest = rest.substr(0, at);
  }
  absl::string_view name = rest;
  absl::string_view id_text;
  size_t paren = rest.find('(');
  if (paren != absl::string_view::npos) {
    if (rest.back() != ')') return bad("missing ')'");
    name = rest.substr(0, paren);
    id_text = rest.substr(paren + 1, rest.size() - paren - 2);
    if (!absl::SimpleAtoi(id_text, &ctx.id) || ctx.id < 0) {
      return bad("the device id must be a non-negative integer");
    }
  }
  if (name == "cpu") {
    ctx.type = DeviceType::kCPU;
  } else if (name == "gpu") {
    ctx.type = DeviceType::kGPU;
  } else if (name == "cpu_pinned") {
    ctx.type = DeviceType::kCPUPinned;
  } else if (name == "cpu_shared") {
    ctx.type = DeviceType::kCPUShared;
  } else {
    return bad(absl::StrCat("unknown device type '", name, "'"));
  }
  return ctx;
}

}  // namespace symx
