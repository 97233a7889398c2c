// _contrib_SyncBatchNorm over the replicas of an mpirun job (run with -np 2
// and -np 4): every rank's two CPU replicas must normalize with the whole
// batch's statistics, as in the in-process sync_batch_norm_test.
#include "tests/data_parallel/sync_batch_norm_cases.h"
#include "tests/distributed/mpi_test_main.h"

namespace symx {
namespace {

TEST(MpiSyncBatchNorm, RanksAndDevicesTogether) {
  sync_bn_cases::RanksAndDevicesTogether(MpiWorld());
}

}  // namespace
}  // namespace symx
