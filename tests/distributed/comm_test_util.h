// Helpers for communicator tests: running a function on every rank of an
// in-process group (one thread each) and making tensors of any dtype.
#ifndef SYMX_TESTS_DISTRIBUTED_COMM_TEST_UTIL_H_
#define SYMX_TESTS_DISTRIBUTED_COMM_TEST_UTIL_H_

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "distributed/communicator.h"
#include "distributed/inprocess_communicator.h"

namespace symx {

// Runs fn(rank, comm) on `n` threads, one per rank of a new group, and joins.
inline void RunRanks(int n, const std::function<void(int, Communicator&)>& fn) {
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(n);
  std::vector<std::thread> threads;
  for (int r = 1; r < n; ++r) threads.emplace_back([&, r] { fn(r, *group[r]); });
  fn(0, *group[0]);
  for (std::thread& t : threads) t.join();
}

// As RunRanks, with a second communicator of the same ranks for
// synchronizing around a test that breaks the first.
inline void RunRanksWithSync(int n, const std::function<void(Communicator&, Communicator&)>& fn) {
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(n);
  std::vector<std::shared_ptr<Communicator>> sync = CreateInProcessGroup(n);
  std::vector<std::thread> threads;
  for (int r = 1; r < n; ++r) threads.emplace_back([&, r] { fn(*group[r], *sync[r]); });
  fn(*group[0], *sync[0]);
  for (std::thread& t : threads) t.join();
}

// Every storage dtype the communicator must move.
inline std::vector<DType> AllDTypes() {
  return {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16, DType::kUint8,
          DType::kInt8,    DType::kInt16,   DType::kUint16,  DType::kInt32,    DType::kUint32,
          DType::kInt64,   DType::kUint64,  DType::kBool};
}

}  // namespace symx

#endif  // SYMX_TESTS_DISTRIBUTED_COMM_TEST_UTIL_H_
