// The ranks of an `mpirun -np N python ...` job as the Python front sees
// them: a communicator (distributed/communicator.h) with the job's timeout,
// shared by mx.kv's distributed stores and Module's gradient reducer.
#ifndef SYMX_PYTHON_SRC_RANKS_H_
#define SYMX_PYTHON_SRC_RANKS_H_

#include <memory>

#include "absl/time/time.h"
#include "distributed/communicator.h"

namespace symx::python {

struct PyRanks {
  std::shared_ptr<Communicator> comm;
  // Every wait of a collective, and the reducer's, ends after this with an
  // error naming the rank at fault (SYMX_COMM_TIMEOUT, tools/env).
  absl::Duration timeout = absl::Seconds(300);
};

}  // namespace symx::python

#endif  // SYMX_PYTHON_SRC_RANKS_H_
