#include "distributed/sub_communicator.h"

#include <atomic>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/agreement.h"
#include "graph/error.h"

namespace symx {
namespace {

constexpr int64_t kTagBase = int64_t{1} << 29;
constexpr int64_t kSplitSpan = int64_t{1} << 21;  // tags per split
constexpr int64_t kUserTags = int64_t{1} << 20;   // point to point; the rest: collectives
constexpr int kMaxSplits = 256;
// From this size on (and 3 ranks or more) allreduce goes round a ring
// instead of through rank 0.
constexpr size_t kRingBytes = size_t{64} << 10;

// A Work that runs its steps when waited for (each a parent operation waited
// against the same deadline).
class StepsWork : public WorkOnce {
 public:
  using Body = std::function<absl::Status(absl::Time, const std::atomic<bool>*)>;
  explicit StepsWork(Body body) : body_(std::move(body)) {}
  using Work::Wait;
  absl::Status Wait(absl::Time deadline, const std::atomic<bool>* cancel) override {
    if (done()) return status();
    absl::Status s = body_(deadline, cancel);
    // A cancelled wait may be waited again: only a result is final.
    if (absl::IsCancelled(s)) return s;
    return Finish(s);
  }

 private:
  Body body_;
};

class SubCommunicator : public Communicator {
 public:
  SubCommunicator(std::shared_ptr<Communicator> parent, std::vector<int> members, int rank,
                  int64_t base)
      : parent_(std::move(parent)), members_(std::move(members)), rank_(rank), base_(base) {}

  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(members_.size()); }
  std::string backend() const override {
    return absl::StrCat(parent_->backend(), " (ranks ", absl::StrJoin(members_, ", "), ")");
  }

  std::unique_ptr<Work> Send(const Tensor& t, int peer, int64_t tag) override {
    if (absl::Status s = CheckPointToPoint("send", peer, tag); !s.ok()) return DoneWork(s);
    return parent_->Send(t, members_[peer], base_ + tag);
  }
  std::unique_ptr<Work> Recv(const Tensor& t, int peer, int64_t tag) override {
    if (absl::Status s = CheckPointToPoint("recv", peer, tag); !s.ok()) return DoneWork(s);
    return parent_->Recv(t, members_[peer], base_ + tag);
  }

  std::unique_ptr<Work> Allreduce(const Tensor& t, ReduceOp op) override {
    if (absl::Status s = CheckHostTensor(*this, "allreduce", t); !s.ok()) return DoneWork(s);
    if (absl::Status s = CheckReducible("allreduce", t, op); !s.ok()) return DoneWork(s);
    const int64_t tag = NextCollectiveTag();
    return std::make_unique<StepsWork>(
        [this, t, op, tag](absl::Time deadline, const std::atomic<bool>* cancel) {
          const int n = size();
          if (n > 2 && t.nbytes() >= kRingBytes) return RingAllreduce(t, op, tag, deadline, cancel);
          if (n > 1 && rank_ == 0) {
            // In rank order: 0's own values, then 1's, 2's...
            Tensor other = ValueOrThrow(Tensor::Empty(t.shape(), t.dtype()));
            for (int r = 1; r < n; ++r) {
              SYMX_RETURN_IF_ERROR(parent_->Recv(other, members_[r], tag)->Wait(deadline, cancel));
              ReduceInto(op, t.dtype(), other.raw_data(), t.raw_data(), t.size());
            }
            if (op == ReduceOp::kAverage) DivideInPlace(t.dtype(), t.raw_data(), t.size(), n);
            return SendToAll(t, tag, deadline, cancel);
          }
          if (n > 1) {
            SYMX_RETURN_IF_ERROR(parent_->Send(t, members_[0], tag)->Wait(deadline, cancel));
            SYMX_RETURN_IF_ERROR(parent_->Recv(t, members_[0], tag)->Wait(deadline, cancel));
          }
          return absl::OkStatus();
        });
  }

  std::unique_ptr<Work> Broadcast(const Tensor& t, int root) override {
    if (absl::Status s = CheckHostTensor(*this, "broadcast", t); !s.ok()) return DoneWork(s);
    if (root < 0 || root >= size()) {
      return DoneWork(absl::InvalidArgumentError(
          absl::StrCat("broadcast on rank ", members_[rank_], ": root rank ", root,
                       " does not exist (the split has ", size(), " ranks)")));
    }
    const int64_t tag = NextCollectiveTag();
    return std::make_unique<StepsWork>(
        [this, t, root, tag](absl::Time deadline, const std::atomic<bool>* cancel) {
          if (rank_ == root) {
            std::vector<std::unique_ptr<Work>> sends;
            for (int r = 0; r < size(); ++r) {
              if (r != root) sends.push_back(parent_->Send(t, members_[r], tag));
            }
            for (auto& w : sends) SYMX_RETURN_IF_ERROR(w->Wait(deadline, cancel));
            return absl::OkStatus();
          }
          return parent_->Recv(t, members_[root], tag)->Wait(deadline, cancel);
        });
  }

  std::unique_ptr<Work> Barrier() override {
    Tensor token = Tensor::FromVector(Shape{1}, {1.0}, DType::kInt32);
    return Allreduce(token, ReduceOp::kSum);
  }

  void Abort(const absl::Status& why) override { parent_->Abort(why); }

 private:
  absl::Status CheckPointToPoint(const char* op, int peer, int64_t tag) {
    SYMX_RETURN_IF_ERROR(CheckPeer(*this, op, peer));
    if (tag < 0 || tag >= kUserTags) {
      return absl::InvalidArgumentError(absl::StrCat(op, " on rank ", members_[rank_], ": tag ",
                                                     tag,
                                                     " is outside [0, 2^20), the tags of a "
                                                     "split communicator"));
    }
    return absl::OkStatus();
  }
  int64_t NextCollectiveTag() {
    return base_ + kUserTags + static_cast<int64_t>(seq_.fetch_add(1) % kUserTags);
  }
  // Reduce-scatter then all-gather around the ring of ranks: each rank sends
  // and receives 2 (n-1)/n of the tensor, whatever n. Chunk k of the n is
  // summed in ring order starting after rank k, the same on every call, and
  // every rank ends with the same bits (each chunk is reduced once).
  absl::Status RingAllreduce(const Tensor& t, ReduceOp op, int64_t tag, absl::Time deadline,
                             const std::atomic<bool>* cancel) {
    const int n = size();
    const int next = members_[(rank_ + 1) % n], prev = members_[(rank_ + n - 1) % n];
    const int64_t elements = t.size();
    const size_t es = DTypeSize(t.dtype());
    char* data = static_cast<char*>(t.raw_data());
    auto chunk = [&](int k) {  // [offset, count) of chunk k mod n
      k = ((k % n) + n) % n;
      const int64_t begin = elements * k / n, end = elements * (k + 1) / n;
      return std::pair<int64_t, int64_t>(begin, end - begin);
    };
    // One exchange: our chunk `out` to the next rank, the previous rank's
    // chunk `in` into `received`.
    auto exchange = [&](int out, int in, Tensor* received) -> absl::Status {
      const auto [so, sn] = chunk(out);
      const auto [ro, rn] = chunk(in);
      Tensor send = ValueOrThrow(Tensor::Empty(Shape{sn}, t.dtype()));
      std::memcpy(send.raw_data(), data + so * es, sn * es);
      *received = ValueOrThrow(Tensor::Empty(Shape{rn}, t.dtype()));
      std::unique_ptr<Work> ws = parent_->Send(send, next, tag);
      std::unique_ptr<Work> wr = parent_->Recv(*received, prev, tag);
      SYMX_RETURN_IF_ERROR(wr->Wait(deadline, cancel));
      return ws->Wait(deadline, cancel);
    };
    for (int step = 0; step < n - 1; ++step) {
      Tensor in;
      SYMX_RETURN_IF_ERROR(exchange(rank_ - step, rank_ - step - 1, &in));
      const auto [ro, rn] = chunk(rank_ - step - 1);
      ReduceInto(op, t.dtype(), in.raw_data(), data + ro * es, rn);
    }
    // Rank r now holds chunk r+1 reduced over every rank; pass them round.
    for (int step = 0; step < n - 1; ++step) {
      Tensor in;
      SYMX_RETURN_IF_ERROR(exchange(rank_ + 1 - step, rank_ - step, &in));
      const auto [ro, rn] = chunk(rank_ - step);
      std::memcpy(data + ro * es, in.raw_data(), rn * es);
    }
    if (op == ReduceOp::kAverage) DivideInPlace(t.dtype(), t.raw_data(), t.size(), n);
    return absl::OkStatus();
  }

  absl::Status SendToAll(const Tensor& t, int64_t tag, absl::Time deadline,
                         const std::atomic<bool>* cancel) {
    std::vector<std::unique_ptr<Work>> sends;
    for (int r = 1; r < size(); ++r) sends.push_back(parent_->Send(t, members_[r], tag));
    for (auto& w : sends) SYMX_RETURN_IF_ERROR(w->Wait(deadline, cancel));
    return absl::OkStatus();
  }

  std::shared_ptr<Communicator> parent_;
  std::vector<int> members_;  // parent ranks, by rank here
  int rank_;
  int64_t base_;
  std::atomic<uint64_t> seq_{0};
};

// How many splits each parent communicator has made (the same count on
// every rank, as splits are collective), for their tag ranges. Keyed by the
// parent object; an entry whose parent is gone is reset, since a new
// communicator may be allocated at its address.
int NextSplitIndex(const std::shared_ptr<Communicator>& parent) {
  static std::mutex mu;
  static auto* counts =
      new std::map<const Communicator*, std::pair<std::weak_ptr<Communicator>, int>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& [owner, count] = (*counts)[parent.get()];
  if (owner.lock() != parent) {
    owner = parent;
    count = 0;
  }
  return count++;
}

}  // namespace

absl::StatusOr<std::shared_ptr<Communicator>> SplitCommunicator(
    const std::shared_ptr<Communicator>& parent, int color, absl::Duration timeout) {
  if (color < 0) {
    return absl::InvalidArgumentError(absl::StrCat("split: colour ", color, " is negative"));
  }
  SYMX_ASSIGN_OR_RETURN(std::vector<std::string> colors,
                        AllGather(*parent, absl::StrCat(color), timeout));
  const int index = NextSplitIndex(parent);
  if (index >= kMaxSplits) {
    return absl::ResourceExhaustedError(
        absl::StrCat("split: a communicator can be split at most ", kMaxSplits, " times"));
  }
  std::vector<int> members;
  int rank = -1;
  for (size_t r = 0; r < colors.size(); ++r) {
    int c = -1;
    if (!absl::SimpleAtoi(colors[r], &c) || c != color) continue;
    if (static_cast<int>(r) == parent->rank()) rank = static_cast<int>(members.size());
    members.push_back(static_cast<int>(r));
  }
  return std::shared_ptr<Communicator>(std::make_shared<SubCommunicator>(
      parent, std::move(members), rank, kTagBase + index * kSplitSpan));
}

}  // namespace symx
