#include "distributed/mpi_communicator.h"

#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"

namespace symx {
namespace {

constexpr size_t kChunk = size_t{1} << 30;  // bytes per MPI message
// On the probe communicator: a rank asking what the others wait for, and
// their answers.
constexpr int kProbeTag = 1;
constexpr int kAnswerTag = 2;
const absl::Duration kProbeGrace = absl::Seconds(2);
const absl::Duration kSpinFor = absl::Milliseconds(2);

std::string MpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, len);
}

// float16/bfloat16 reductions in float, as MPI has no half types.
template <DType D, ReduceOp O>
void HalfReduce(void* in, void* inout, int* len, MPI_Datatype*) {
  ReduceInto(O, D, in, inout, *len);
}

struct MpiProcess {
  std::mutex mu;
  bool initialized = false;
  bool finalized = false;
  std::shared_ptr<Communicator> world;
  int local_size = 1;
  // [float16, bfloat16] x [sum, max, min]
  MPI_Op half_ops[2][3] = {};
};

MpiProcess& Process() {
  static MpiProcess* p = new MpiProcess();
  return *p;
}

using Kind = Collective;  // its numbers travel in probes

class MpiCommunicator;

class MpiWork : public WorkOnce {
 public:
  // What the operation is; its description is made only for messages (a
  // string per call would be a large part of a small message's cost).
  struct Spec {
    int rank = 0;   // this rank
    int peer = -1;  // point to point; -1 for collectives
    bool is_recv = false;
    int64_t tag = 0;
    size_t expected_bytes = 0;
    int64_t seq = -1;  // collectives; -1 for point to point
    int64_t kind = 0;  // collectives (a Collective); 0 for point to point
    ReduceOp reduce = ReduceOp::kSum;
    int root = 0;
    std::function<void()> after;  // on success (averaging)

    // "rank 0: recv from rank 1 (tag 3, 16 bytes)", "rank 0: allreduce #4 (sum, ...)".
    std::string Describe(const Tensor& t) const {
      if (peer >= 0) {
        return absl::StrCat("rank ", rank, ": ", is_recv ? "recv from rank " : "send to rank ",
                            peer, " (tag ", tag, ", ", expected_bytes, " bytes)");
      }
      const std::string head = absl::StrCat(
          "rank ", rank, ": ", CollectiveName(static_cast<Collective>(kind)), " #", seq);
      switch (static_cast<Collective>(kind)) {
        case Collective::kAllreduce:
          return absl::StrCat(head, " (", ReduceOpName(reduce), ", ", t.DebugString(), ")");
        case Collective::kBroadcast:
          return absl::StrCat(head, " (root ", root, ", ", t.nbytes(), " bytes)");
        case Collective::kBarrier:
          break;
      }
      return head;
    }
  };
  MpiWork(MpiCommunicator* comm, Spec spec, Tensor keep, std::vector<MPI_Request> reqs)
      : comm_(comm), spec_(std::move(spec)), keep_(std::move(keep)), reqs_(std::move(reqs)) {}
  ~MpiWork() override;
  using WorkOnce::Wait;
  absl::Status Wait(absl::Time deadline, const std::atomic<bool>* cancel) override;

 private:
  MpiCommunicator* comm_;
  Spec spec_;
  Tensor keep_;  // the buffer MPI reads or writes stays alive while requests are active
  std::vector<MPI_Request> reqs_;
  bool completed_ = false;  // the requests are done (MPI no longer touches the buffer)
};

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_dup(MPI_COMM_WORLD, &probe_comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(probe_comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    int* tag_ub = nullptr;
    int found = 0;
    MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tag_ub, &found);
    if (found && tag_ub != nullptr) max_tag_ = static_cast<int64_t>(*tag_ub) - kFirstTag;
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "mpi"; }

  std::unique_ptr<Work> Send(const Tensor& t, int peer, int64_t tag) override {
    return PointToPoint(/*recv=*/false, t, peer, tag);
  }
  std::unique_ptr<Work> Recv(const Tensor& t, int peer, int64_t tag) override {
    return PointToPoint(/*recv=*/true, t, peer, tag);
  }

  std::unique_ptr<Work> Allreduce(const Tensor& t, ReduceOp op) override {
    if (absl::Status s = Check("allreduce", &t); !s.ok()) return DoneWork(s);
    if (absl::Status s = CheckReducible("allreduce", t, op); !s.ok()) return DoneWork(s);
    if (t.size() > INT32_MAX) {
      return DoneWork(absl::UnimplementedError(
          absl::StrCat("allreduce on rank ", rank_, ": ", t.DebugString(),
                       " has more than 2^31-1 elements, which one MPI reduction cannot take")));
    }
    MPI_Datatype type = MPI_BYTE;
    MPI_Op mop = MPI_SUM;
    if (absl::Status s = TypeAndOp(t.dtype(), op, &type, &mop); !s.ok()) return DoneWork(s);
    MpiWork::Spec spec;
    spec.rank = rank_;
    spec.seq = NextCollective();
    spec.kind = static_cast<int64_t>(Kind::kAllreduce);
    spec.reduce = op;
    if (op == ReduceOp::kAverage) {
      Tensor target = t;
      const int n = size_;
      spec.after = [target, n] {
        DivideInPlace(target.dtype(), target.raw_data(), target.size(), n);
      };
    }
    std::vector<MPI_Request> reqs(1);
    int rc = MPI_Iallreduce(MPI_IN_PLACE, t.raw_data(), static_cast<int>(t.size()), type, mop,
                            comm_, &reqs[0]);
    if (rc != MPI_SUCCESS) return DoneWork(Failed(spec.Describe(t), rc));
    return std::make_unique<MpiWork>(this, std::move(spec), t, std::move(reqs));
  }

  std::unique_ptr<Work> Broadcast(const Tensor& t, int root) override {
    if (absl::Status s = Check("broadcast", &t); !s.ok()) return DoneWork(s);
    if (root < 0 || root >= size_) {
      return DoneWork(absl::InvalidArgumentError(
          absl::StrCat("broadcast on rank ", rank_, ": root rank ", root,
                       " does not exist (the job has ", size_, " ranks)")));
    }
    MpiWork::Spec spec;
    spec.rank = rank_;
    spec.seq = NextCollective();
    spec.kind = static_cast<int64_t>(Kind::kBroadcast);
    spec.root = root;
    std::vector<MPI_Request> reqs;
    char* data = static_cast<char*>(t.raw_data());
    for (size_t off = 0; off < t.nbytes() || (off == 0 && reqs.empty()); off += kChunk) {
      const int n = static_cast<int>(std::min(kChunk, t.nbytes() - off));
      reqs.emplace_back();
      int rc = MPI_Ibcast(data + off, n, MPI_BYTE, root, comm_, &reqs.back());
      if (rc != MPI_SUCCESS) return Abandoned(spec.Describe(t), rc, std::move(reqs), t);
      if (t.nbytes() == 0) break;
    }
    return std::make_unique<MpiWork>(this, std::move(spec), t, std::move(reqs));
  }

  std::unique_ptr<Work> Barrier() override {
    if (absl::Status s = Broken("barrier"); !s.ok()) return DoneWork(s);
    MpiWork::Spec spec;
    spec.rank = rank_;
    spec.seq = NextCollective();
    spec.kind = static_cast<int64_t>(Kind::kBarrier);
    std::vector<MPI_Request> reqs(1);
    int rc = MPI_Ibarrier(comm_, &reqs[0]);
    if (rc != MPI_SUCCESS) return DoneWork(Failed(spec.Describe(Tensor()), rc));
    return std::make_unique<MpiWork>(this, std::move(spec), Tensor(), std::move(reqs));
  }

  void Abort(const absl::Status& why) override {
    (void)why;  // the caller has reported it
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  // Requests of a Work destroyed before completion (after an error): MPI may
  // still touch their buffers, so both are kept until the process ends.
  void Abandon(std::vector<MPI_Request> reqs, Tensor keep) {
    std::lock_guard<std::mutex> lock(mu_);
    abandoned_.push_back({std::move(reqs), std::move(keep)});
  }

  void Break(const absl::Status& s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (broken_.ok()) broken_ = s;
  }

  absl::Status Failed(const std::string& what, int code) {
    absl::Status s = absl::UnavailableError(absl::StrCat(what, " failed: ", MpiErrorText(code)));
    Break(s);
    return s;
  }

  // Why a collective did not complete, asking the other ranks (see header).
  std::string DiagnoseCollective(int64_t seq, int64_t kind);
  // Tells ranks that asked what this rank waits for: collective `seq` of
  // `kind`, or a transfer (seq -1). Called from every wait that lasts.
  void AnswerProbes(int64_t seq, int64_t kind);

 private:
  std::unique_ptr<Work> PointToPoint(bool recv, const Tensor& t, int peer, int64_t tag) {
    const char* op = recv ? "recv" : "send";
    if (absl::Status s = Check(op, &t); !s.ok()) return DoneWork(s);
    if (absl::Status s = CheckPeer(*this, op, peer); !s.ok()) return DoneWork(s);
    if (absl::Status s = CheckTag(op, tag); !s.ok()) return DoneWork(s);
    if (tag > max_tag_) {
      return DoneWork(absl::InvalidArgumentError(
          absl::StrCat(op, " on rank ", rank_, ": tag ", tag,
                       " is above what this MPI library allows (", max_tag_, ")")));
    }
    MpiWork::Spec spec;
    spec.rank = rank_;
    spec.peer = peer;
    spec.is_recv = recv;
    spec.tag = tag;
    spec.expected_bytes = t.nbytes();
    const int mpi_tag = static_cast<int>(tag + kFirstTag);
    std::vector<MPI_Request> reqs;
    char* data = static_cast<char*>(t.raw_data());
    size_t off = 0;
    do {
      const int n = static_cast<int>(std::min(kChunk, t.nbytes() - off));
      reqs.emplace_back();
      int rc = recv ? MPI_Irecv(data + off, n, MPI_BYTE, peer, mpi_tag, comm_, &reqs.back())
                    : MPI_Isend(data + off, n, MPI_BYTE, peer, mpi_tag, comm_, &reqs.back());
      if (rc != MPI_SUCCESS) return Abandoned(spec.Describe(t), rc, std::move(reqs), t);
      off += kChunk;
    } while (off < t.nbytes());
    return std::make_unique<MpiWork>(this, std::move(spec), t, std::move(reqs));
  }

  std::unique_ptr<Work> Abandoned(const std::string& what, int rc, std::vector<MPI_Request> reqs,
                                  const Tensor& t) {
    reqs.pop_back();  // the failed call made no request
    if (!reqs.empty()) Abandon(std::move(reqs), t);
    return DoneWork(Failed(what, rc));
  }

  absl::Status Broken(const char* op) {
    std::lock_guard<std::mutex> lock(mu_);
    if (broken_.ok()) return broken_;
    return absl::FailedPreconditionError(absl::StrCat(
        op, " on rank ", rank_, ": the communicator failed earlier: ", broken_.message()));
  }

  absl::Status Check(const char* op, const Tensor* t) {
    SYMX_RETURN_IF_ERROR(Broken(op));
    return CheckHostTensor(*this, op, *t);
  }

  int64_t NextCollective() {
    std::lock_guard<std::mutex> lock(mu_);
    return next_collective_++;
  }

  absl::Status TypeAndOp(DType dtype, ReduceOp op, MPI_Datatype* type, MPI_Op* mop) {
    const int op_index = op == ReduceOp::kMax ? 1 : op == ReduceOp::kMin ? 2 : 0;
    *mop = op == ReduceOp::kMax ? MPI_MAX : op == ReduceOp::kMin ? MPI_MIN : MPI_SUM;
    switch (dtype) {
      case DType::kFloat32:
        *type = MPI_FLOAT;
        break;
      case DType::kFloat64:
        *type = MPI_DOUBLE;
        break;
      case DType::kUint8:
        *type = MPI_UINT8_T;
        break;
      case DType::kInt8:
        *type = MPI_INT8_T;
        break;
      case DType::kInt16:
        *type = MPI_INT16_T;
        break;
      case DType::kUint16:
        *type = MPI_UINT16_T;
        break;
      case DType::kInt32:
        *type = MPI_INT32_T;
        break;
      case DType::kUint32:
        *type = MPI_UINT32_T;
        break;
      case DType::kInt64:
        *type = MPI_INT64_T;
        break;
      case DType::kUint64:
        *type = MPI_UINT64_T;
        break;
      case DType::kBool:
        *type = MPI_C_BOOL;
        *mop = op == ReduceOp::kMin ? MPI_LAND : MPI_LOR;
        break;
      case DType::kFloat16:
      case DType::kBFloat16:
        *type = MPI_UINT16_T;
        *mop = Process().half_ops[dtype == DType::kFloat16 ? 0 : 1][op_index];
        break;
      case DType::kUnknown:
        return absl::InvalidArgumentError("allreduce: unknown dtype");
    }
    return absl::OkStatus();
  }

  // User tags are offset so that small numbers stay free for the library.
  static constexpr int64_t kFirstTag = 2;
  MPI_Comm comm_, probe_comm_;
  int rank_ = 0, size_ = 1;
  int64_t max_tag_ = (int64_t{1} << 30) - 1;
  std::mutex mu_;
  // Answers to probes still being sent, with their buffers.
  struct Answer {
    MPI_Request request;
    std::unique_ptr<int64_t[]> data;
  };
  std::vector<Answer> answers_;
  absl::Status broken_;
  int64_t next_collective_ = 0;
  struct Leftover {
    std::vector<MPI_Request> reqs;
    Tensor keep;
  };
  std::vector<Leftover> abandoned_;
  friend class MpiWork;
};

MpiWork::~MpiWork() {
  if (completed_) return;
  // A receive nobody waits for any more is cancelled, so a late message does
  // not land in it and MPI_Finalize finds no receive pending. Sends and
  // collectives cannot be taken back.
  if (spec_.is_recv) {
    for (MPI_Request& r : reqs_) {
      if (r != MPI_REQUEST_NULL) MPI_Cancel(&r);
    }
  }
  comm_->Abandon(std::move(reqs_), std::move(keep_));
}

absl::Status MpiWork::Wait(absl::Time deadline, const std::atomic<bool>* cancel) {
  if (done()) return status();
  const absl::Time start = absl::Now();
  absl::InlinedVector<MPI_Status, 1> statuses(reqs_.size());
  absl::Duration nap = absl::Microseconds(20);
  for (int polls = 0;;) {
    int flag = 0;
    int rc = MPI_Testall(static_cast<int>(reqs_.size()), reqs_.data(), &flag, statuses.data());
    if (rc != MPI_SUCCESS) {
      // The first request that failed (others may only be pending).
      int code = rc;
      for (const MPI_Status& st : statuses) {
        if (rc == MPI_ERR_IN_STATUS && st.MPI_ERROR != MPI_SUCCESS &&
            st.MPI_ERROR != MPI_ERR_PENDING) {
          code = st.MPI_ERROR;
          break;
        }
      }
      int cls = 0;
      MPI_Error_class(code, &cls);
      if (cls == MPI_ERR_TRUNCATE) {
        return Finish(absl::InvalidArgumentError(
            absl::StrCat(spec_.Describe(keep_), ": rank ", spec_.peer, " sent more than the ",
                         spec_.expected_bytes, " bytes the receiving tensor (", keep_.DebugString(),
                         ") holds")));
      }
      return Finish(comm_->Failed(spec_.Describe(keep_), code));
    }
    if (flag) break;
    if (cancel != nullptr && cancel->load()) {
      return Finish(absl::CancelledError(
          absl::StrCat(spec_.Describe(keep_), " was abandoned: another step of this rank failed")));
    }
    const absl::Time now = absl::Now();
    if (now >= deadline) {
      std::string why = spec_.peer >= 0
                            ? absl::StrCat("waiting for rank ", spec_.peer,
                                           spec_.is_recv ? ", which has not sent it"
                                                         : ", which has not received it")
                            : comm_->DiagnoseCollective(spec_.seq, spec_.kind);
      absl::Status s = absl::DeadlineExceededError(absl::StrCat(
          spec_.Describe(keep_), " did not complete within ",
          absl::FormatDuration(absl::Trunc(now - start, absl::Milliseconds(1))), ": ", why));
      comm_->Break(s);
      return Finish(s);
    }
    // MPI progresses a non-blocking operation only inside MPI calls, so the
    // first stretch polls continuously (yielding the core to other threads
    // between polls): large messages move at full speed. A wait that lasts
    // longer is a peer that is late, not data in flight; it backs off to
    // sleeping so it costs no core, and answers other ranks' probes.
    if (now - start < kSpinFor) {
      if (++polls % 16 == 0) sched_yield();
    } else {
      comm_->AnswerProbes(spec_.seq, spec_.kind);
      absl::SleepFor(std::min(nap, deadline - now));
      nap = std::min(nap * 2, absl::Microseconds(200));
    }
  }
  completed_ = true;
  if (spec_.is_recv) {
    size_t got = 0;
    for (MPI_Status& st : statuses) {
      int count = 0;
      MPI_Get_count(&st, MPI_BYTE, &count);
      got += static_cast<size_t>(count);
    }
    if (got != spec_.expected_bytes) {
      return Finish(absl::InvalidArgumentError(
          absl::StrCat(spec_.Describe(keep_), ": rank ", spec_.peer, " sent ", got,
                       " bytes but the receiving tensor (", keep_.DebugString(), ") holds ",
                       spec_.expected_bytes)));
    }
  }
  if (spec_.after) spec_.after();
  return Finish(absl::OkStatus());
}

void MpiCommunicator::AnswerProbes(int64_t seq, int64_t kind) {
  std::lock_guard<std::mutex> lock(mu_);
  for (;;) {
    int flag = 0;
    MPI_Message message;
    MPI_Status status;
    MPI_Improbe(MPI_ANY_SOURCE, kProbeTag, probe_comm_, &flag, &message, &status);
    if (!flag) break;
    int64_t question[2];
    MPI_Mrecv(question, 2, MPI_INT64_T, &message, MPI_STATUS_IGNORE);
    Answer a;
    a.data.reset(new int64_t[2]{seq, kind});
    MPI_Isend(a.data.get(), 2, MPI_INT64_T, status.MPI_SOURCE, kAnswerTag, probe_comm_, &a.request);
    answers_.push_back(std::move(a));
  }
  // Forget the answers that have gone.
  std::vector<Answer> pending;
  for (Answer& a : answers_) {
    int flag = 0;
    MPI_Test(&a.request, &flag, MPI_STATUS_IGNORE);
    if (!flag) pending.push_back(std::move(a));
  }
  answers_.swap(pending);
}

std::string MpiCommunicator::DiagnoseCollective(int64_t seq, int64_t kind) {
  // Buffers and requests live until the process ends: a silent rank's probe
  // request never completes.
  auto* mine = new int64_t[2]{seq, kind};
  auto* theirs = new int64_t[2 * static_cast<size_t>(size_)]();
  std::vector<MPI_Request> sends, recvs(size_, MPI_REQUEST_NULL);
  for (int p = 0; p < size_; ++p) {
    if (p == rank_) continue;
    sends.emplace_back();
    MPI_Isend(mine, 2, MPI_INT64_T, p, kProbeTag, probe_comm_, &sends.back());
    MPI_Irecv(theirs + 2 * p, 2, MPI_INT64_T, p, kAnswerTag, probe_comm_, &recvs[p]);
  }
  std::vector<bool> answered(size_, false);
  const absl::Time until = absl::Now() + kProbeGrace;
  int pending = size_ - 1;
  while (pending > 0 && absl::Now() < until) {
    AnswerProbes(seq, kind);  // another rank that timed out asks this one
    for (int p = 0; p < size_; ++p) {
      if (p == rank_ || answered[p]) continue;
      int flag = 0;
      MPI_Test(&recvs[p], &flag, MPI_STATUS_IGNORE);
      if (flag) {
        answered[p] = true;
        --pending;
      }
    }
    absl::SleepFor(absl::Milliseconds(1));
  }
  std::vector<std::string> silent, elsewhere;
  for (int p = 0; p < size_; ++p) {
    if (p == rank_) continue;
    if (!answered[p]) {
      silent.push_back(absl::StrCat(p));
    } else if (theirs[2 * p] != seq || theirs[2 * p + 1] != kind) {
      elsewhere.push_back(absl::StrCat("rank ", p, " is in ",
                                       CollectiveName(static_cast<Collective>(theirs[2 * p + 1])),
                                       " #", theirs[2 * p]));
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    abandoned_.push_back({std::move(sends), Tensor()});
    abandoned_.push_back({std::move(recvs), Tensor()});
  }
  std::vector<std::string> parts;
  if (!silent.empty()) {
    parts.push_back(absl::StrCat(
        "waiting for rank", silent.size() > 1 ? "s " : " ", absl::StrJoin(silent, ", "), ", which ",
        silent.size() > 1 ? "do" : "does",
        " not answer (stopped, hung, dead, or busy outside any communication; no answer within ",
        absl::FormatDuration(kProbeGrace), ")"));
  }
  if (!elsewhere.empty()) {
    parts.push_back(
        absl::StrCat("the ranks wait for different things: ", absl::StrJoin(elsewhere, ", ")));
  }
  if (parts.empty()) {
    parts.push_back("every rank is in this collective but MPI did not complete it");
  }
  return absl::StrJoin(parts, "; ");
}

}  // namespace

bool StartedByMpiLauncher() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(var) != nullptr) return true;
  }
  return false;
}

absl::StatusOr<std::shared_ptr<Communicator>> InitMpiWorld(int* argc, char*** argv) {
  MpiProcess& p = Process();
  std::lock_guard<std::mutex> lock(p.mu);
  if (p.initialized) return p.world;
  if (p.finalized) return absl::FailedPreconditionError("MPI was already finalized");
  // libnbc's default MPI_Iallreduce here is a binomial tree that reaches half
  // of MPI_Allreduce's bandwidth; Rabenseifner's reduce-scatter + allgather
  // matches it (tools/bench/comm_bench). A user's own setting wins.
  setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "3", /*overwrite=*/0);
  int provided = 0;
  int rc = MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  if (rc != MPI_SUCCESS) {
    return absl::UnavailableError(absl::StrCat("MPI_Init_thread failed: ", MpiErrorText(rc)));
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    MPI_Finalize();
    p.finalized = true;
    return absl::FailedPreconditionError(
        absl::StrCat("the MPI library gives thread level ", provided,
                     ", symx needs MPI_THREAD_MULTIPLE (", MPI_THREAD_MULTIPLE, ")"));
  }
  p.initialized = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Op_create(&HalfReduce<DType::kFloat16, ReduceOp::kSum>, 1, &p.half_ops[0][0]);
  MPI_Op_create(&HalfReduce<DType::kFloat16, ReduceOp::kMax>, 1, &p.half_ops[0][1]);
  MPI_Op_create(&HalfReduce<DType::kFloat16, ReduceOp::kMin>, 1, &p.half_ops[0][2]);
  MPI_Op_create(&HalfReduce<DType::kBFloat16, ReduceOp::kSum>, 1, &p.half_ops[1][0]);
  MPI_Op_create(&HalfReduce<DType::kBFloat16, ReduceOp::kMax>, 1, &p.half_ops[1][1]);
  MPI_Op_create(&HalfReduce<DType::kBFloat16, ReduceOp::kMin>, 1, &p.half_ops[1][2]);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &p.local_size);
  MPI_Comm_free(&local);
  p.world = std::make_shared<MpiCommunicator>();
  return p.world;
}

absl::StatusOr<std::shared_ptr<Communicator>> NewMpiCommunicator() {
  MpiProcess& p = Process();
  std::lock_guard<std::mutex> lock(p.mu);
  if (!p.initialized || p.finalized) {
    return absl::FailedPreconditionError("NewMpiCommunicator: MPI is not initialized");
  }
  return std::shared_ptr<Communicator>(std::make_shared<MpiCommunicator>());
}

int MpiLocalSize() {
  MpiProcess& p = Process();
  std::lock_guard<std::mutex> lock(p.mu);
  return p.initialized ? p.local_size : 1;
}

void FinalizeMpi() {
  MpiProcess& p = Process();
  std::lock_guard<std::mutex> lock(p.mu);
  if (!p.initialized || p.finalized) return;
  p.finalized = true;
  MPI_Finalize();
}

}  // namespace symx
