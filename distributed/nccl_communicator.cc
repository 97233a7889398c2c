#include "distributed/nccl_communicator.h"

#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_status.h"
#include "distributed/agreement.h"
#include "graph/error.h"

namespace symx {
namespace {

// How long a collective's probe waits for every rank to answer.
constexpr absl::Duration kProbeTimeout = absl::Seconds(2);

absl::Status NcclError(ncclResult_t r, ncclComm_t comm, const std::string& what) {
  const char* last = ncclGetLastError(comm);
  const std::string detail = last != nullptr && *last != '\0' ? absl::StrCat(" (", last, ")") : "";
  const std::string message = absl::StrCat(what, ": NCCL ", ncclGetErrorString(r), detail);
  switch (r) {
    case ncclInvalidArgument:
      return absl::InvalidArgumentError(message);
    case ncclInvalidUsage:
      // Not FailedPrecondition: that code means "every rank found the same
      // reason to use host copies" (a GPU shared by two ranks).
      return absl::InternalError(message);
    case ncclRemoteError:
      return absl::UnavailableError(message);
    default:
      return absl::InternalError(message);
  }
}

bool Failed(ncclResult_t r) { return r != ncclSuccess && r != ncclInProgress; }

std::optional<ncclDataType_t> NcclType(DType t) {
  switch (t) {
    case DType::kFloat32:
      return ncclFloat32;
    case DType::kFloat64:
      return ncclFloat64;
    case DType::kFloat16:
      return ncclFloat16;
    case DType::kBFloat16:
      return ncclBfloat16;
    case DType::kInt8:
      return ncclInt8;
    case DType::kUint8:
      return ncclUint8;
    case DType::kInt32:
      return ncclInt32;
    case DType::kInt64:
      return ncclInt64;
    case DType::kBool:
      return ncclUint8;
    default:
      return std::nullopt;
  }
}

ncclRedOp_t NcclOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kAverage:
      return ncclAvg;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kMin:
      return ncclMin;
  }
  return ncclSum;
}

// Polling: spin briefly, then sleep with backoff (idle waits leave the cores
// to compute, as the MPI communicator's do).
class Backoff {
 public:
  void Pause() {
    if (++spins_ < 64) {
      std::this_thread::yield();
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    sleep_us_ = std::min(sleep_us_ * 2, 2000);
  }

 private:
  int spins_ = 0;
  int sleep_us_ = 20;
};

// Polls non-blocking communicators until none has work still being issued
// (setup, or enqueueing after a call that returned ncclInProgress).
absl::Status WaitUntilIssued(const std::vector<ncclComm_t>& comms, absl::Time deadline,
                             const std::string& what) {
  Backoff backoff;
  for (;;) {
    bool pending = false;
    for (ncclComm_t c : comms) {
      ncclResult_t state = ncclSuccess;
      ncclResult_t r = ncclCommGetAsyncError(c, &state);
      if (Failed(r)) return NcclError(r, c, what);
      if (Failed(state)) return NcclError(state, c, what);
      pending = pending || state == ncclInProgress;
    }
    if (!pending) return absl::OkStatus();
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat(what, " was still being set up by NCCL at its deadline"));
    }
    backoff.Pause();
  }
}

// What the members of one process share.
struct Setup {
  int local = 1;  // GPUs per rank
  int host_rank = 0, host_size = 1;
  std::shared_ptr<Communicator> probe;
  absl::Duration timeout;
};

class Member;

class NcclWork : public WorkOnce {
 public:
  NcclWork(std::shared_ptr<Member> member, std::string what, int peer, cudaEvent_t done,
           Tensor keep)
      : member_(std::move(member)),
        what_(std::move(what)),
        peer_(peer),
        done_(done),
        keep_(std::move(keep)) {}
  ~NcclWork() override { cudaEventDestroy(done_); }
  using WorkOnce::Wait;
  absl::Status Wait(absl::Time deadline, const std::atomic<bool>* cancel) override;
  cudaEvent_t event() const { return done_; }
  const Member* member() const { return member_.get(); }

 private:
  std::shared_ptr<Member> member_;
  std::string what_;
  int peer_;  // point to point; -1 for collectives
  cudaEvent_t done_;
  Tensor keep_;  // NCCL reads or writes it until done_
};

class Member : public NcclCommunicator, public std::enable_shared_from_this<Member> {
 public:
  // Streams, events and buffers first (Init), the NCCL communicator once
  // every member of every rank has them (set_comm).
  Member(std::shared_ptr<const Setup> setup, cuda::CudaDevice* device, int rank, int size)
      : setup_(std::move(setup)), device_(device), rank_(rank), size_(size) {}
  void set_comm(ncclComm_t comm) { comm_ = comm; }

  absl::Status Init() {
    SYMX_RETURN_IF_ERROR(device_->Activate());
    const Context& c = device_->ctx();
    SYMX_CUDA_RETURN_IF_ERROR(c, cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    SYMX_CUDA_RETURN_IF_ERROR(c, cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
    SYMX_CUDA_RETURN_IF_ERROR(c, cudaMalloc(&barrier_, sizeof(int32_t)));
    SYMX_CUDA_RETURN_IF_ERROR(c, cudaMemset(barrier_, 0, sizeof(int32_t)));
    return absl::OkStatus();
  }

  // Starts NCCL's finalize (once): it completes when every member of the
  // communicator has started its own, so a process's members start
  // together (FinalizeTogether) before any destructor waits.
  void StartFinalize() {
    std::lock_guard<std::mutex> lock(mu_);
    if (comm_ == nullptr || aborted_ || finalizing_) return;
    finalizing_ = true;
    finalize_result_ = ncclCommFinalize(comm_);
  }

  ~Member() override {
    if (!device_->Activate().ok()) return;
    StartFinalize();
    if (comm_ != nullptr && !aborted_) {
      // Finalize flushes what is still in flight; if a peer never comes,
      // the communicator is aborted instead of waiting on.
      if (!Failed(finalize_result_) &&
          WaitUntilIssued({comm_}, absl::Now() + absl::Seconds(10), "finalize").ok()) {
        ncclCommDestroy(comm_);
      } else {
        ncclCommAbort(comm_);
      }
    }
    if (barrier_ != nullptr) cudaFree(barrier_);
    if (ready_ != nullptr) cudaEventDestroy(ready_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "nccl"; }
  const Context& device() const override { return device_->ctx(); }

  std::unique_ptr<Work> Send(const Tensor& t, int peer, int64_t tag) override {
    return PointToPoint(/*recv=*/false, t, peer, tag);
  }
  std::unique_ptr<Work> Recv(const Tensor& t, int peer, int64_t tag) override {
    return PointToPoint(/*recv=*/true, t, peer, tag);
  }

  std::unique_ptr<Work> Allreduce(const Tensor& t, ReduceOp op) override {
    std::vector<std::unique_ptr<Work>> works = GroupAllreduce({this}, {t}, op);
    return std::move(works[0]);
  }

  std::unique_ptr<Work> Broadcast(const Tensor& t, int root) override {
    absl::StatusOr<ncclDataType_t> type = CheckTensor("broadcast", t);
    if (!type.ok()) return DoneWork(type.status());
    if (root < 0 || root >= size_) {
      return DoneWork(absl::InvalidArgumentError(absl::StrCat(
          Describe("broadcast"), ": root ", root, " does not exist (", size_, " NCCL ranks)")));
    }
    const int64_t seq = next_seq_++;
    const std::string what =
        absl::StrCat("broadcast #", seq, " (root ", root, ", ", t.nbytes(), " bytes)");
    return Issue(what, -1, t, [&](ncclComm_t c, cudaStream_t s) {
      return ncclBroadcast(t.raw_data(), t.raw_data(), t.size(), *type, root, c, s);
    });
  }

  std::unique_ptr<Work> Barrier() override {
    const std::string what = absl::StrCat("barrier #", next_seq_++);
    return Issue(what, -1, Tensor(), [&](ncclComm_t c, cudaStream_t s) {
      return ncclAllReduce(barrier_, barrier_, 1, ncclInt32, ncclSum, c, s);
    });
  }

  // Aborts the NCCL communicator (ending the NCCL kernels a stream waits
  // on) and breaks the member; the job itself ends with the host
  // communicator's Abort, which is the caller's to call.
  void Abort(const absl::Status& why) override {
    std::lock_guard<std::mutex> lock(mu_);
    BreakLocked(why);
  }

  std::unique_ptr<Work> RecvForCompute(const Tensor& t, int peer, int64_t tag) override {
    std::unique_ptr<Work> work = Recv(t, peer, tag);
    auto* w = dynamic_cast<NcclWork*>(work.get());
    if (w == nullptr) return work;  // finished with its error
    absl::Status ordered = ComputeWaitsFor(*w);
    if (ordered.ok()) return work;
    // The compute stream would read the tensor unordered: nothing can
    // safely go on over this communicator.
    return DoneWork(Break(ordered));
  }

  absl::Status ComputeWaitsFor(const Work& work) override {
    auto* w = dynamic_cast<const NcclWork*>(&work);
    if (w == nullptr || w->member() != this) {
      return absl::InvalidArgumentError(
          absl::StrCat(Describe("compute-waits-for"), ": the Work is not this member's"));
    }
    SYMX_RETURN_IF_ERROR(device_->Activate());
    SYMX_CUDA_RETURN_IF_ERROR(device(), cudaStreamWaitEvent(device_->stream(), w->event(), 0));
    return absl::OkStatus();
  }

  // "NCCL rank 3 (gpu(1) of rank 1)".
  std::string Who() const {
    return absl::StrCat("NCCL rank ", rank_, " (", device().ToString(), " of rank ",
                        setup_->host_rank, ")");
  }
  std::string Describe(const std::string& what) const {
    return absl::StrCat("nccl ", what, " on ", Who());
  }
  std::string RankOf(int nccl_rank) const {
    return absl::StrCat("NCCL rank ", nccl_rank, " (rank ", nccl_rank / setup_->local, ")");
  }

  absl::StatusOr<ncclDataType_t> CheckTensor(const std::string& op, const Tensor& t) const {
    if (!t.defined()) {
      return absl::InvalidArgumentError(absl::StrCat(Describe(op), ": the tensor is undefined"));
    }
    if (t.ctx() != device()) {
      return absl::InvalidArgumentError(absl::StrCat(Describe(op), ": the tensor is on ",
                                                     t.ctx().ToString(), ", not on ",
                                                     device().ToString()));
    }
    std::optional<ncclDataType_t> type = NcclType(t.dtype());
    if (!type) {
      return absl::UnimplementedError(
          absl::StrCat(Describe(op), ": NCCL has no ", DTypeName(t.dtype()), " type"));
    }
    return *type;
  }

  // The pieces of issuing an operation; the caller holds mu_.
  std::unique_lock<std::mutex> Lock() { return std::unique_lock<std::mutex>(mu_); }
  absl::Status BrokenLocked(const std::string& what) const {
    if (broken_.ok()) return broken_;
    return absl::Status(
        broken_.code(),
        absl::StrCat(Describe(what), ": the communicator failed earlier: ", broken_.message()));
  }
  // The member's stream waits for the compute stream's work so far.
  absl::Status OrderAfterCompute() {
    SYMX_RETURN_IF_ERROR(device_->Activate());
    SYMX_CUDA_RETURN_IF_ERROR(device(), cudaEventRecord(ready_, device_->stream()));
    SYMX_CUDA_RETURN_IF_ERROR(device(), cudaStreamWaitEvent(stream_, ready_, 0));
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<Work>> Completion(const std::string& what, int peer, Tensor keep) {
    SYMX_RETURN_IF_ERROR(device_->Activate());
    cudaEvent_t done = nullptr;
    SYMX_CUDA_RETURN_IF_ERROR(device(), cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    if (cudaError_t e = cudaEventRecord(done, stream_); e != cudaSuccess) {
      cudaEventDestroy(done);
      return cuda::CudaStatus(e, device(), "cudaEventRecord");
    }
    return std::unique_ptr<Work>(
        new NcclWork(shared_from_this(), what, peer, done, std::move(keep)));
  }
  ncclComm_t comm() const { return comm_; }
  cudaStream_t stream() const { return stream_; }
  int64_t NextSeq() { return next_seq_++; }
  const Setup& setup() const { return *setup_; }

  // Aborts the NCCL communicator (once) and keeps the first error.
  void BreakLocked(const absl::Status& why) {
    if (!aborted_) {
      ncclCommAbort(comm_);
      aborted_ = true;
    }
    if (broken_.ok()) broken_ = why;
  }
  absl::Status Break(const absl::Status& why) {
    std::lock_guard<std::mutex> lock(mu_);
    BreakLocked(why);
    return why;
  }

  // Why a wait ended early: NCCL's asynchronous error, if any.
  absl::Status AsyncError(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    if (aborted_) return BrokenLocked(what);
    ncclResult_t state = ncclSuccess;
    ncclResult_t r = ncclCommGetAsyncError(comm_, &state);
    if (Failed(r)) state = r;
    if (!Failed(state)) return absl::OkStatus();
    absl::Status s = NcclError(state, comm_, Describe(what));
    BreakLocked(s);
    return s;
  }

  // A wait that reached its deadline: abort, and say who is missing.
  absl::Status TimedOut(const std::string& what, int peer, absl::Duration waited) {
    std::string message =
        absl::StrCat(Describe(what), " did not complete within ", absl::FormatDuration(waited));
    if (peer >= 0) {
      absl::StrAppend(&message, ": waiting for ", RankOf(peer));
    }
    absl::StrAppend(&message, "; the NCCL communicator was aborted");
    absl::Status s = absl::DeadlineExceededError(message);
    (void)Break(s);
    if (peer < 0 && setup_->probe != nullptr && setup_->probe->size() > 1) {
      absl::Status probe = WaitFor(setup_->probe->Barrier(), kProbeTimeout);
      absl::StrAppend(
          &message, probe.ok() ? "; every rank answered a probe over the host communicator, "
                                 "so the ranks issued collectives in different orders or a "
                                 "GPU is stuck"
                               : absl::StrCat("; asking the ranks over ", setup_->probe->backend(),
                                              ": ", probe.message()));
      s = absl::DeadlineExceededError(message);
    }
    return s;
  }

 private:
  template <typename Fn>
  std::unique_ptr<Work> Issue(const std::string& what, int peer, const Tensor& keep, Fn&& call) {
    auto lock = Lock();
    if (absl::Status s = BrokenLocked(what); !s.ok()) return DoneWork(s);
    if (absl::Status s = OrderAfterCompute(); !s.ok()) return DoneWork(s);
    ncclResult_t r = call(comm_, stream_);
    if (Failed(r)) {
      absl::Status s = NcclError(r, comm_, Describe(what));
      BreakLocked(s);
      return DoneWork(s);
    }
    absl::Status issued = WaitUntilIssued({comm_}, absl::Now() + setup_->timeout, Describe(what));
    if (!issued.ok()) {
      BreakLocked(issued);
      return DoneWork(issued);
    }
    absl::StatusOr<std::unique_ptr<Work>> work = Completion(what, peer, keep);
    if (!work.ok()) {
      // Enqueued but untracked: NCCL may still use the tensor.
      BreakLocked(work.status());
      return DoneWork(work.status());
    }
    return std::move(*work);
  }

  std::unique_ptr<Work> PointToPoint(bool recv, const Tensor& t, int peer, int64_t tag) {
    const char* op = recv ? "recv" : "send";
    if (absl::Status s = CheckPeer(*this, op, peer); !s.ok()) return DoneWork(s);
    if (absl::Status s = CheckTag(op, tag); !s.ok()) return DoneWork(s);
    absl::StatusOr<ncclDataType_t> type = CheckTensor(op, t);
    if (!type.ok()) return DoneWork(type.status());
    const std::string what = absl::StrCat(op, recv ? " from " : " to ", RankOf(peer), " (tag ", tag,
                                          ", ", t.nbytes(), " bytes)");
    // Bytes: NCCL moves them as they are, whatever the dtype.
    return Issue(what, peer, t, [&](ncclComm_t c, cudaStream_t s) {
      return recv ? ncclRecv(t.raw_data(), t.nbytes(), ncclUint8, peer, c, s)
                  : ncclSend(t.read_raw_data(), t.nbytes(), ncclUint8, peer, c, s);
    });
  }

  std::shared_ptr<const Setup> setup_;
  cuda::CudaDevice* device_;
  ncclComm_t comm_;
  int rank_, size_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t ready_ = nullptr;
  void* barrier_ = nullptr;
  std::mutex mu_;  // NCCL communicators are not thread-safe
  std::atomic<int64_t> next_seq_{0};  // collectives may start from several threads
  bool aborted_ = false;
  bool finalizing_ = false;
  ncclResult_t finalize_result_ = ncclSuccess;
  absl::Status broken_;
};

absl::Status NcclWork::Wait(absl::Time deadline, const std::atomic<bool>* cancel) {
  if (done()) return status();
  const absl::Time start = absl::Now();
  Backoff backoff;
  for (;;) {
    cudaError_t e = cudaEventQuery(done_);
    // An aborted communicator ends its kernels too, so a completed event
    // is success only on an intact member.
    if (e == cudaSuccess) return Finish(member_->AsyncError(what_));
    if (e != cudaErrorNotReady) {
      return Finish(member_->Break(cuda::CudaStatus(e, member_->device(), "cudaEventQuery")));
    }
    if (absl::Status s = member_->AsyncError(what_); !s.ok()) return Finish(s);
    if (cancel != nullptr && cancel->load()) {
      return absl::CancelledError(absl::StrCat(member_->Describe(what_), ": cancelled"));
    }
    if (absl::Now() >= deadline) {
      return Finish(member_->TimedOut(what_, peer_, absl::Now() - start));
    }
    backoff.Pause();
  }
}

// "host:PCI bus id" of each device, ';'-separated: which physical GPUs
// these are, comparable across ranks.
std::string Identities(const std::vector<cuda::CudaDevice*>& devices) {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  std::string out;
  for (cuda::CudaDevice* d : devices) {
    char bus[64] = {0};
    if (cudaDeviceGetPCIBusId(bus, sizeof(bus), d->ordinal()) != cudaSuccess) {
      snprintf(bus, sizeof(bus), "device %d", d->ordinal());
    }
    absl::StrAppend(&out, host, ":", bus, ";");
  }
  return out;
}

}  // namespace

std::vector<std::unique_ptr<Work>> GroupAllreduce(const std::vector<NcclCommunicator*>& members,
                                                  const std::vector<Tensor>& tensors, ReduceOp op) {
  std::vector<std::unique_ptr<Work>> works(members.size());
  auto fail_all = [&](const absl::Status& s) {
    for (auto& w : works) w = DoneWork(s);
    return std::move(works);
  };
  if (members.size() != tensors.size() || members.empty()) {
    return fail_all(absl::InvalidArgumentError(absl::StrCat(
        "nccl group allreduce: ", members.size(), " members but ", tensors.size(), " tensors")));
  }
  std::vector<Member*> ms;
  std::vector<ncclDataType_t> types;
  for (size_t i = 0; i < members.size(); ++i) {
    auto* m = dynamic_cast<Member*>(members[i]);
    if (m == nullptr || std::count(ms.begin(), ms.end(), m) > 0) {
      return fail_all(absl::InvalidArgumentError(
          "nccl group allreduce: every member must be a distinct NCCL member"));
    }
    ms.push_back(m);
    absl::StatusOr<ncclDataType_t> type = m->CheckTensor("allreduce", tensors[i]);
    if (!type.ok()) return fail_all(type.status());
    if (absl::Status s = CheckReducible("allreduce", tensors[i], op); !s.ok()) return fail_all(s);
    if (tensors[i].dtype() == DType::kBool && op == ReduceOp::kSum) {
      return fail_all(absl::InvalidArgumentError(
          absl::StrCat(m->Describe("allreduce"), ": bool tensors reduce with max or min")));
    }
    types.push_back(*type);
  }
  // Lock in one global order, so two threads grouping overlapping members
  // cannot deadlock.
  std::vector<Member*> order = ms;
  std::sort(order.begin(), order.end());
  std::vector<std::unique_lock<std::mutex>> locks;
  for (Member* m : order) locks.push_back(m->Lock());
  std::vector<std::string> what(ms.size());
  std::vector<ncclComm_t> comms;
  for (size_t i = 0; i < ms.size(); ++i) {
    what[i] = absl::StrCat("allreduce #", ms[i]->NextSeq(), " (", ReduceOpName(op), ", ",
                           tensors[i].DebugString(), ")");
    if (absl::Status s = ms[i]->BrokenLocked(what[i]); !s.ok()) return fail_all(s);
    if (absl::Status s = ms[i]->OrderAfterCompute(); !s.ok()) return fail_all(s);
    comms.push_back(ms[i]->comm());
  }
  auto break_all = [&](const absl::Status& s) {
    for (Member* m : ms) m->BreakLocked(s);
    return fail_all(s);
  };
  ncclResult_t r = ncclGroupStart();
  for (size_t i = 0; i < ms.size() && !Failed(r); ++i) {
    const Tensor& t = tensors[i];
    r = ncclAllReduce(t.raw_data(), t.raw_data(), t.size(), types[i], NcclOp(op), comms[i],
                      ms[i]->stream());
  }
  ncclResult_t end = ncclGroupEnd();
  if (Failed(r) || Failed(end)) {
    return break_all(NcclError(Failed(r) ? r : end, comms[0], ms[0]->Describe(what[0])));
  }
  absl::Status issued =
      WaitUntilIssued(comms, absl::Now() + ms[0]->setup().timeout, ms[0]->Describe(what[0]));
  if (!issued.ok()) return break_all(issued);
  for (size_t i = 0; i < ms.size(); ++i) {
    absl::StatusOr<std::unique_ptr<Work>> w = ms[i]->Completion(what[i], -1, tensors[i]);
    works[i] = w.ok() ? std::move(*w) : DoneWork(w.status());
  }
  return works;
}

void FinalizeTogether(const std::vector<std::shared_ptr<NcclCommunicator>>& members) {
  for (const auto& m : members) {
    if (auto* member = dynamic_cast<Member*>(m.get())) member->StartFinalize();
  }
}

absl::StatusOr<std::vector<std::shared_ptr<NcclCommunicator>>> CreateNcclCommunicators(
    const std::vector<Context>& gpus, std::shared_ptr<Communicator> host,
    const NcclOptions& options) {
  auto setup = std::make_shared<Setup>();
  setup->local = static_cast<int>(gpus.size());
  setup->timeout = options.timeout;
  setup->probe = options.probe;
  if (host != nullptr && host->size() > 1) {
    setup->host_rank = host->rank();
    setup->host_size = host->size();
  }
  const int nranks = setup->host_size * setup->local;
  // This rank's devices; every rank learns of any rank's failure (Agree).
  std::vector<cuda::CudaDevice*> devices;
  std::vector<std::shared_ptr<Member>> members;
  absl::Status local = [&]() -> absl::Status {
    if (gpus.empty()) return absl::InvalidArgumentError("NCCL setup: no GPUs given");
    std::map<int, Context> ordinals;
    for (const Context& c : gpus) {
      if (c.type != DeviceType::kGPU || c.rank >= 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "NCCL setup: ", c.ToString(), " is not a GPU of this process (give gpu(N))"));
      }
      SYMX_ASSIGN_OR_RETURN(Device * d, GetDevice(c));
      auto* cd = dynamic_cast<cuda::CudaDevice*>(d);
      if (cd == nullptr) {
        return absl::InternalError(absl::StrCat("NCCL setup: ", c.ToString(), " is not CUDA"));
      }
      auto [it, added] = ordinals.emplace(cd->ordinal(), c);
      if (!added) {
        return absl::InvalidArgumentError(absl::StrCat(
            "NCCL setup: ", it->second.ToString(), " and ", c.ToString(),
            " are the same physical GPU (SYMX_LOGICAL_GPUS); NCCL needs a distinct GPU per "
            "member"));
      }
      devices.push_back(cd);
    }
    // Each member's stream, events and buffers before any rank starts NCCL,
    // so a failure here is one every rank hears of (Agree below).
    for (size_t i = 0; i < devices.size(); ++i) {
      members.push_back(std::make_shared<Member>(
          setup, devices[i], setup->host_rank * setup->local + static_cast<int>(i), nranks));
      SYMX_RETURN_IF_ERROR(members.back()->Init());
    }
    return absl::OkStatus();
  }();
  ncclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  if (setup->host_size > 1) {
    Rendezvous rendezvous(*host, "NCCL setup", options.timeout);
    SYMX_RETURN_IF_ERROR(rendezvous.Agree(local, {absl::StrCat("GPUs per rank: ", gpus.size())}));
    // Two ranks on one physical GPU: NCCL refuses that; every rank finds it
    // alike from the same exchanged identities (FailedPrecondition, which
    // lets a bind fall back to host copies on every rank).
    SYMX_ASSIGN_OR_RETURN(std::vector<std::string> where,
                          rendezvous.Exchange(absl::OkStatus(), Identities(devices)));
    std::map<std::string, int> first_rank;
    for (int r = 0; r < static_cast<int>(where.size()); ++r) {
      for (absl::string_view gpu : absl::StrSplit(where[r], ';', absl::SkipEmpty())) {
        auto [it, added] = first_rank.emplace(std::string(gpu), r);
        if (!added && it->second != r) {
          return absl::FailedPreconditionError(absl::StrCat(
              "NCCL setup: ranks ", it->second, " and ", r, " both use the GPU at ", gpu,
              " (NCCL needs a distinct GPU per member)"));
        }
      }
    }
    std::string mine;
    absl::Status made = absl::OkStatus();
    if (setup->host_rank == 0) {
      ncclResult_t r = ncclGetUniqueId(&id);
      if (Failed(r)) made = NcclError(r, nullptr, "NCCL setup: ncclGetUniqueId");
      mine.assign(reinterpret_cast<const char*>(&id), sizeof(id));
    }
    SYMX_ASSIGN_OR_RETURN(std::vector<std::string> ids, rendezvous.Exchange(made, mine));
    if (ids[0].size() != sizeof(id)) {
      return absl::InternalError("NCCL setup: rank 0 sent a unique id of the wrong size");
    }
    std::memcpy(&id, ids[0].data(), sizeof(id));
  } else {
    SYMX_RETURN_IF_ERROR(local);
    ncclResult_t r = ncclGetUniqueId(&id);
    if (Failed(r)) return NcclError(r, nullptr, "NCCL setup: ncclGetUniqueId");
  }

  std::vector<ncclComm_t> comms(gpus.size(), nullptr);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  absl::Status activated;
  ncclResult_t r = ncclGroupStart();
  for (size_t i = 0; i < gpus.size() && !Failed(r); ++i) {
    activated = devices[i]->Activate();
    if (!activated.ok()) break;
    r = ncclCommInitRankConfig(&comms[i], nranks, id, members[i]->rank(), &config);
  }
  ncclResult_t end = ncclGroupEnd();  // always: an open group would hold later calls
  const std::string what =
      absl::StrCat("NCCL setup of ", nranks, " members over ", setup->host_size,
                   setup->host_size == 1 ? " rank" : " ranks");
  absl::Status s = activated;
  if (s.ok() && (Failed(r) || Failed(end))) s = NcclError(Failed(r) ? r : end, nullptr, what);
  if (s.ok()) s = WaitUntilIssued(comms, absl::Now() + options.timeout, what);
  if (!s.ok()) {
    for (ncclComm_t c : comms) {
      if (c != nullptr) ncclCommAbort(c);
    }
    if (s.code() == absl::StatusCode::kDeadlineExceeded) {
      std::string message =
          absl::StrCat(what, " did not complete within ", absl::FormatDuration(options.timeout),
                       ": a rank did not join");
      if (options.probe != nullptr && options.probe->size() > 1) {
        absl::Status probe = WaitFor(options.probe->Barrier(), kProbeTimeout);
        if (!probe.ok()) {
          absl::StrAppend(&message, "; asking the ranks over ", options.probe->backend(), ": ",
                          probe.message());
        }
      }
      s = absl::DeadlineExceededError(message);
    }
    return s;
  }
  std::vector<std::shared_ptr<NcclCommunicator>> out;
  for (size_t i = 0; i < gpus.size(); ++i) {
    members[i]->set_comm(comms[i]);
    out.push_back(std::move(members[i]));
  }
  return out;
}

}  // namespace symx
