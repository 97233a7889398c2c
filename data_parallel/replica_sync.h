// JobReplicaSync: devices/kernel.h's ReplicaSync for the replicas of a
// data-parallel job, the sums _contrib_SyncBatchNorm needs for its batch
// statistics. The gradient reducer makes one and sets it on its replicas.
//
// Inside a process the replicas meet per key: each hands in its values and
// waits; the last to come adds them in replica order. Across ranks that
// replica then exchanges the process's sum with the others by point-to-point
// messages under one tag of its own (kReplicaSyncTag), rank 0 adding the
// ranks' sums in rank order and sending the total back. Point-to-point keeps
// these exchanges out of the collectives' numbering, which the reducer's
// communication thread uses concurrently; the replicas of every rank reach
// their SyncBatchNorm steps in the same order (their graphs are one graph),
// so the messages of one tag pair up rank by rank.
#ifndef SYMX_DATA_PARALLEL_REPLICA_SYNC_H_
#define SYMX_DATA_PARALLEL_REPLICA_SYNC_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "devices/kernel.h"
#include "distributed/communicator.h"

namespace symx {

// The point-to-point tag of the exchanges across ranks (the placement
// pass's edge tags count up from 0; a data-parallel job has no such edges).
inline constexpr int64_t kReplicaSyncTag = (int64_t{1} << 30) - 2;

class JobReplicaSync : public ReplicaSync {
 public:
  // `local_replicas` executors of this process; `comm`: the job's ranks
  // (nullptr or one rank: this process only); `total_replicas` over all
  // ranks; every wait ends after `timeout`.
  JobReplicaSync(int local_replicas, std::shared_ptr<Communicator> comm, int total_replicas,
                 absl::Duration timeout);

  int total_replicas() const override { return total_; }
  absl::Status Sum(const std::string& key, int replica, std::vector<double>* values) const override;

 private:
  // One key's meeting: the values handed in this round, then the result.
  struct Meeting {
    uint64_t round = 0;
    int arrived = 0;
    std::vector<std::vector<double>> parts;
    std::vector<double> result;
    absl::Status status;
  };
  // The process's sum with every other rank's (the last local replica only).
  absl::Status ExchangeAcrossRanks(const std::string& key, std::vector<double>* sum) const;

  const int local_;
  const std::shared_ptr<Communicator> comm_;
  const int total_;
  const absl::Duration timeout_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  mutable std::map<std::string, Meeting> meetings_ ABSL_GUARDED_BY(mu_);
  // The first failure: the job cannot go on once a meeting broke.
  mutable absl::Status broken_ ABSL_GUARDED_BY(mu_);
};

}  // namespace symx

#endif  // SYMX_DATA_PARALLEL_REPLICA_SYNC_H_
