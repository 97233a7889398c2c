#include "data_parallel/replica_sync.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace symx {

JobReplicaSync::JobReplicaSync(int local_replicas, std::shared_ptr<Communicator> comm,
                               int total_replicas, absl::Duration timeout)
    : local_(local_replicas),
      comm_(comm != nullptr && comm->size() > 1 ? std::move(comm) : nullptr),
      total_(total_replicas),
      timeout_(timeout) {}

absl::Status JobReplicaSync::Sum(const std::string& key, int replica,
                                 std::vector<double>* values) const {
  const absl::Time deadline = absl::Now() + timeout_;
  std::unique_lock<std::mutex> lock(mu_);
  if (!broken_.ok()) return broken_;
  if (replica < 0 || replica >= local_) {
    return absl::InternalError(
        absl::StrCat("replica sync '", key, "': replica ", replica, " of a process with ", local_));
  }
  Meeting& m = meetings_[key];
  if (m.arrived == 0) m.parts.assign(local_, {});
  if (m.arrived > 0 && !m.parts[replica].empty()) {
    broken_ = absl::InternalError(
        absl::StrCat("replica sync '", key, "': replica ", replica, " came twice to one meeting"));
    cv_.notify_all();
    return broken_;
  }
  m.parts[replica] = *values;
  const uint64_t round = m.round;
  if (++m.arrived < local_) {
    while (m.round == round && broken_.ok()) {
      if (cv_.wait_until(lock, absl::ToChronoTime(deadline)) == std::cv_status::timeout &&
          m.round == round && broken_.ok()) {
        broken_ = absl::DeadlineExceededError(
            absl::StrCat("replica sync '", key, "': replica ", replica,
                         comm_ ? absl::StrCat(" of rank ", comm_->rank()) : "", " waited ",
                         absl::FormatDuration(timeout_), " for the other replicas of its process (",
                         m.arrived, " of ", local_, " came)"));
        cv_.notify_all();
      }
    }
    if (m.round == round) return broken_;
    *values = m.result;
    return m.status;
  }
  // The last to come: the sum in replica order, then across ranks.
  std::vector<double> sum = m.parts[0];
  for (int k = 1; k < local_; ++k) {
    if (m.parts[k].size() != sum.size()) {
      broken_ = absl::InvalidArgumentError(
          absl::StrCat("replica sync '", key, "': replica ", k, " has ", m.parts[k].size(),
                       " values, replica 0 ", sum.size(), " (the replicas bind different shapes)"));
      cv_.notify_all();
      return broken_;
    }
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += m.parts[k][i];
  }
  absl::Status status;
  if (comm_ != nullptr) {
    lock.unlock();
    status = ExchangeAcrossRanks(key, &sum);
    lock.lock();
  }
  m.result = std::move(sum);
  m.status = status;
  m.arrived = 0;
  ++m.round;
  if (!status.ok() && broken_.ok()) broken_ = status;
  cv_.notify_all();
  *values = m.result;
  return status;
}

absl::Status JobReplicaSync::ExchangeAcrossRanks(const std::string& key,
                                                 std::vector<double>* sum) const {
  const Shape shape{static_cast<int64_t>(sum->size())};
  auto fail = [&](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat("replica sync '", key, "': ", s.message()));
  };
  if (comm_->rank() != 0) {
    Tensor mine = Tensor::FromVector(shape, *sum, DType::kFloat64);
    absl::Status s = WaitFor(comm_->Send(mine, 0, kReplicaSyncTag), timeout_);
    if (!s.ok()) return fail(s);
    Tensor total = Tensor::FromVector(shape, std::vector<double>(sum->size()), DType::kFloat64);
    s = WaitFor(comm_->Recv(total, 0, kReplicaSyncTag), timeout_);
    if (!s.ok()) return fail(s);
    *sum = total.ToDoubles();
    return absl::OkStatus();
  }
  for (int r = 1; r < comm_->size(); ++r) {
    Tensor theirs = Tensor::FromVector(shape, std::vector<double>(sum->size()), DType::kFloat64);
    absl::Status s = WaitFor(comm_->Recv(theirs, r, kReplicaSyncTag), timeout_);
    if (!s.ok()) return fail(s);
    const std::vector<double> v = theirs.ToDoubles();
    for (size_t i = 0; i < sum->size(); ++i) (*sum)[i] += v[i];
  }
  Tensor total = Tensor::FromVector(shape, *sum, DType::kFloat64);
  for (int r = 1; r < comm_->size(); ++r) {
    absl::Status s = WaitFor(comm_->Send(total, r, kReplicaSyncTag), timeout_);
    if (!s.ok()) return fail(s);
  }
  return absl::OkStatus();
}

}  // namespace symx
