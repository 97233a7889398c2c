#include "distributed/inprocess_communicator.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"

namespace symx {
namespace {

using Kind = Collective;

// Waits on `cv` for `ready` until `deadline`, looking at `cancel` every few
// milliseconds (whoever raises it cannot notify this group's condition).
template <typename Pred>
bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, absl::Time deadline,
               const std::atomic<bool>* cancel, Pred ready) {
  auto stop = [&] { return ready() || (cancel != nullptr && cancel->load()); };
  while (!stop()) {
    const absl::Time now = absl::Now();
    if (now >= deadline) return false;
    cv.wait_until(lock, absl::ToChronoTime(std::min(deadline, now + absl::Milliseconds(20))), stop);
  }
  return true;
}

absl::Status CancelledStatus(const std::string& what) {
  return absl::CancelledError(
      absl::StrCat(what, " was abandoned: another step of this rank failed"));
}

// What a rank asked for under one collective number; every rank must agree.
struct CollectiveCall {
  Kind kind = Kind::kBarrier;
  ReduceOp op = ReduceOp::kSum;
  int root = 0;
  DType dtype = DType::kUint8;
  size_t bytes = 0;

  bool operator==(const CollectiveCall& o) const {
    return kind == o.kind && op == o.op && root == o.root && dtype == o.dtype && bytes == o.bytes;
  }
  std::string Describe(uint64_t seq) const {
    std::string out = absl::StrCat(CollectiveName(kind), " #", seq);
    if (kind == Kind::kAllreduce) {
      absl::StrAppend(&out, " (", ReduceOpName(op), ", ", DTypeName(dtype), ", ", bytes, " bytes)");
    } else if (kind == Kind::kBroadcast) {
      absl::StrAppend(&out, " (root ", root, ", ", bytes, " bytes)");
    }
    return out;
  }
};

struct Slot {
  CollectiveCall call;
  int first_rank = -1;
  std::vector<std::string> data;  // per rank (allreduce) or the root's (broadcast)
  std::vector<bool> arrived;
  int num_arrived = 0;
  bool reduced = false;
  std::string result;
  int fetched = 0;
  absl::Status mismatch;
};

using Route = std::tuple<int, int, int64_t>;                 // source, destination, tag
using MessageKey = std::tuple<int, int, int64_t, uint64_t>;  // + sequence number

// State shared by the ranks of one group.
struct Group {
  explicit Group(int n) : size(n) {}
  const int size;
  std::mutex mu;
  std::condition_variable cv;
  absl::Status aborted;
  std::map<Route, uint64_t> sent, posted;  // per route: sends made, receives posted
  std::map<MessageKey, std::string> mailbox;
  std::map<uint64_t, Slot> slots;
};

std::string Bytes(const Tensor& t) {
  return std::string(static_cast<const char*>(t.raw_data()), t.nbytes());
}

class InProcessCommunicator;

// Breaks `comm` with `status` (after a timeout); later operations fail with it.
void MarkBroken(InProcessCommunicator* comm, const absl::Status& status);
absl::Status BrokenStatus(InProcessCommunicator* comm);

class RecvWork : public WorkOnce {
 public:
  RecvWork(std::shared_ptr<Group> g, InProcessCommunicator* comm, int rank, Tensor t, int peer,
           int64_t tag, uint64_t seq)
      : g_(std::move(g)),
        comm_(comm),
        rank_(rank),
        t_(std::move(t)),
        peer_(peer),
        tag_(tag),
        seq_(seq) {}

  using WorkOnce::Wait;
  absl::Status Wait(absl::Time deadline, const std::atomic<bool>* cancel) override {
    if (done()) return status();
    const absl::Time start = absl::Now();
    const MessageKey key{peer_, rank_, tag_, seq_};
    std::unique_lock<std::mutex> lock(g_->mu);
    bool ready = WaitUntil(g_->cv, lock, deadline, cancel,
                           [&] { return !g_->aborted.ok() || g_->mailbox.count(key) != 0; });
    if (!g_->aborted.ok()) return Finish(Aborted(g_->aborted));
    if (ready && g_->mailbox.count(key) == 0) return Finish(CancelledStatus(Describe()));
    if (!ready) {
      lock.unlock();
      absl::Status s = absl::DeadlineExceededError(absl::StrCat(
          Describe(), " did not complete within ",
          absl::FormatDuration(absl::Trunc(absl::Now() - start, absl::Milliseconds(1))),
          ": waiting for rank ", peer_, ", which has not sent it"));
      MarkBroken(comm_, s);
      return Finish(s);
    }
    auto it = g_->mailbox.find(key);
    std::string bytes = std::move(it->second);
    g_->mailbox.erase(it);
    lock.unlock();
    if (bytes.size() != t_.nbytes()) {
      return Finish(absl::InvalidArgumentError(absl::StrCat(
          Describe(), ": rank ", peer_, " sent ", bytes.size(), " bytes but the receiving tensor (",
          t_.DebugString(), ") holds ", t_.nbytes())));
    }
    if (!bytes.empty()) std::memcpy(t_.raw_data(), bytes.data(), bytes.size());
    return Finish(absl::OkStatus());
  }

 private:
  std::string Describe() const {
    return absl::StrCat("rank ", rank_, ": recv from rank ", peer_, " (tag ", tag_, ", ",
                        t_.nbytes(), " bytes)");
  }
  absl::Status Aborted(const absl::Status& why) const {
    return absl::Status(why.code(), absl::StrCat(Describe(), " aborted: ", why.message()));
  }
  std::shared_ptr<Group> g_;
  InProcessCommunicator* comm_;
  int rank_;
  Tensor t_;
  int peer_;
  int64_t tag_;
  uint64_t seq_;
};

class CollectiveWork : public WorkOnce {
 public:
  CollectiveWork(std::shared_ptr<Group> g, InProcessCommunicator* comm, int rank, uint64_t seq,
                 CollectiveCall call, Tensor t)
      : g_(std::move(g)), comm_(comm), rank_(rank), seq_(seq), call_(call), t_(std::move(t)) {}

  using WorkOnce::Wait;
  absl::Status Wait(absl::Time deadline, const std::atomic<bool>* cancel) override {
    if (done()) return status();
    const absl::Time start = absl::Now();
    std::unique_lock<std::mutex> lock(g_->mu);
    Slot& slot = g_->slots[seq_];
    auto finished = [&] {
      return !g_->aborted.ok() || !slot.mismatch.ok() || slot.num_arrived == g_->size;
    };
    bool complete = WaitUntil(g_->cv, lock, deadline, cancel, finished);
    if (complete && !finished()) return Finish(CancelledStatus(Prefix()));
    if (!g_->aborted.ok()) {
      return Finish(absl::Status(g_->aborted.code(),
                                 absl::StrCat(Prefix(), " aborted: ", g_->aborted.message())));
    }
    if (!slot.mismatch.ok()) return Finish(slot.mismatch);
    if (!complete) {
      std::vector<std::string> missing;
      for (int r = 0; r < g_->size; ++r) {
        if (!slot.arrived[r]) missing.push_back(absl::StrCat(r));
      }
      lock.unlock();
      absl::Status s = absl::DeadlineExceededError(absl::StrCat(
          Prefix(), " did not complete within ",
          absl::FormatDuration(absl::Trunc(absl::Now() - start, absl::Milliseconds(1))),
          ": waiting for rank", missing.size() > 1 ? "s " : " ", absl::StrJoin(missing, ", "),
          ", which ", missing.size() > 1 ? "have" : "has", " not joined it"));
      MarkBroken(comm_, s);
      return Finish(s);
    }
    if (!slot.reduced) Reduce(&slot);
    if (call_.kind != Kind::kBarrier && !slot.result.empty()) {
      std::memcpy(t_.raw_data(), slot.result.data(), slot.result.size());
    }
    if (++slot.fetched == g_->size) g_->slots.erase(seq_);
    return Finish(absl::OkStatus());
  }

 private:
  // Contributions combined in rank order: deterministic whatever the timing.
  void Reduce(Slot* slot) {
    if (call_.kind == Kind::kAllreduce) {
      slot->result = slot->data[0];
      const int64_t n = static_cast<int64_t>(call_.bytes / DTypeSize(call_.dtype));
      for (int r = 1; r < g_->size; ++r) {
        ReduceInto(call_.op, call_.dtype, slot->data[r].data(), slot->result.data(), n);
      }
      if (call_.op == ReduceOp::kAverage) {
        DivideInPlace(call_.dtype, slot->result.data(), n, g_->size);
      }
    } else if (call_.kind == Kind::kBroadcast) {
      slot->result = slot->data[call_.root];
    }
    slot->data.clear();
    slot->reduced = true;
  }
  std::string Prefix() const { return absl::StrCat("rank ", rank_, ": ", call_.Describe(seq_)); }

  std::shared_ptr<Group> g_;
  InProcessCommunicator* comm_;
  int rank_;
  uint64_t seq_;
  CollectiveCall call_;
  Tensor t_;
};

class InProcessCommunicator : public Communicator {
 public:
  InProcessCommunicator(std::shared_ptr<Group> g, int rank) : g_(std::move(g)), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return g_->size; }
  std::string backend() const override { return "in-process"; }

  std::unique_ptr<Work> Send(const Tensor& t, int peer, int64_t tag) override {
    if (absl::Status s = Check("send", &t, peer, tag); !s.ok()) return DoneWork(s);
    std::lock_guard<std::mutex> lock(g_->mu);
    if (!g_->aborted.ok()) return DoneWork(g_->aborted);
    uint64_t seq = g_->sent[Route{rank_, peer, tag}]++;
    g_->mailbox[MessageKey{rank_, peer, tag, seq}] = Bytes(t);
    g_->cv.notify_all();
    return DoneWork(absl::OkStatus());
  }

  std::unique_ptr<Work> Recv(const Tensor& t, int peer, int64_t tag) override {
    if (absl::Status s = Check("recv", &t, peer, tag); !s.ok()) return DoneWork(s);
    uint64_t seq;
    {
      std::lock_guard<std::mutex> lock(g_->mu);
      seq = g_->posted[Route{peer, rank_, tag}]++;
    }
    return std::make_unique<RecvWork>(g_, this, rank_, t, peer, tag, seq);
  }

  std::unique_ptr<Work> Allreduce(const Tensor& t, ReduceOp op) override {
    if (absl::Status s = Check("allreduce", &t, -1, 0); !s.ok()) return DoneWork(s);
    if (absl::Status s = CheckReducible("allreduce", t, op); !s.ok()) return DoneWork(s);
    CollectiveCall call{Kind::kAllreduce, op, 0, t.dtype(), t.nbytes()};
    return Join(call, t, Bytes(t));
  }

  std::unique_ptr<Work> Broadcast(const Tensor& t, int root) override {
    if (absl::Status s = Check("broadcast", &t, -1, 0); !s.ok()) return DoneWork(s);
    if (root < 0 || root >= g_->size) {
      return DoneWork(absl::InvalidArgumentError(
          absl::StrCat("broadcast on rank ", rank_, ": root rank ", root,
                       " does not exist (the job has ", g_->size, " ranks)")));
    }
    CollectiveCall call{Kind::kBroadcast, ReduceOp::kSum, root, DType::kUint8, t.nbytes()};
    return Join(call, t, root == rank_ ? Bytes(t) : std::string());
  }

  std::unique_ptr<Work> Barrier() override {
    if (absl::Status s = BrokenStatus(this); !s.ok()) return DoneWork(s);
    return Join(CollectiveCall{}, Tensor(), std::string());
  }

  void Abort(const absl::Status& why) override {
    std::lock_guard<std::mutex> lock(g_->mu);
    if (g_->aborted.ok()) {
      g_->aborted = absl::Status(why.ok() ? absl::StatusCode::kAborted : why.code(),
                                 absl::StrCat("rank ", rank_, " aborted the job: ", why.message()));
    }
    g_->cv.notify_all();
  }

  void Break(const absl::Status& s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (broken_.ok()) broken_ = s;
  }
  absl::Status broken() {
    std::lock_guard<std::mutex> lock(mu_);
    return broken_;
  }

 private:
  absl::Status Check(const char* op, const Tensor* t, int peer, int64_t tag) {
    if (absl::Status s = broken(); !s.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat(op, " on rank ", rank_, ": the communicator failed earlier: ", s.message()));
    }
    if (peer >= 0 || peer < -1) SYMX_RETURN_IF_ERROR(CheckPeer(*this, op, peer));
    SYMX_RETURN_IF_ERROR(CheckTag(op, tag));
    return CheckHostTensor(*this, op, *t);
  }

  std::unique_ptr<Work> Join(const CollectiveCall& call, const Tensor& t, std::string data) {
    uint64_t seq = next_collective_++;
    std::lock_guard<std::mutex> lock(g_->mu);
    if (!g_->aborted.ok()) return DoneWork(g_->aborted);
    Slot& slot = g_->slots[seq];
    if (slot.first_rank < 0) {
      slot.call = call;
      slot.first_rank = rank_;
      slot.arrived.assign(g_->size, false);
      if (call.kind != Kind::kBarrier) slot.data.resize(g_->size);
    } else if (!(slot.call == call) && slot.mismatch.ok()) {
      slot.mismatch = absl::InvalidArgumentError(absl::StrCat(
          "collective #", seq, " differs between ranks: rank ", slot.first_rank, " called ",
          slot.call.Describe(seq), ", rank ", rank_, " called ", call.Describe(seq)));
    }
    if (call.kind != Kind::kBarrier && slot.mismatch.ok()) slot.data[rank_] = std::move(data);
    slot.arrived[rank_] = true;
    ++slot.num_arrived;
    g_->cv.notify_all();
    return std::make_unique<CollectiveWork>(g_, this, rank_, seq, call, t);
  }

  std::shared_ptr<Group> g_;
  const int rank_;
  std::mutex mu_;
  absl::Status broken_;
  // Collectives are numbered per communicator; callers serialize them.
  uint64_t next_collective_ = 0;
};

void MarkBroken(InProcessCommunicator* comm, const absl::Status& status) { comm->Break(status); }
absl::Status BrokenStatus(InProcessCommunicator* comm) {
  absl::Status s = comm->broken();
  if (s.ok()) return s;
  return absl::FailedPreconditionError(
      absl::StrCat("the communicator failed earlier: ", s.message()));
}

}  // namespace

std::vector<std::shared_ptr<Communicator>> CreateInProcessGroup(int size) {
  auto g = std::make_shared<Group>(size < 1 ? 1 : size);
  std::vector<std::shared_ptr<Communicator>> out;
  for (int r = 0; r < g->size; ++r) out.push_back(std::make_shared<InProcessCommunicator>(g, r));
  return out;
}

}  // namespace symx
