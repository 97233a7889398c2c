// `_symx.mpi_world()` and the collectives mx.kv's distributed stores need
// (python/symx/kvstore.py). MPI starts only when a script asks for ranks
// under a launcher (mpirun sets its variables); a script run alone never
// loads MPI's state and stays a one-process job.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "distributed/mpi_communicator.h"
#include "graph/error.h"
#include "python/src/convert.h"
#include "python/src/ranks.h"

namespace symx::python {
namespace {

ReduceOp ToReduceOp(const std::string& name) {
  if (name == "sum") return ReduceOp::kSum;
  if (name == "average") return ReduceOp::kAverage;
  if (name == "max") return ReduceOp::kMax;
  if (name == "min") return ReduceOp::kMin;
  throw Error(absl::InvalidArgumentError(
      absl::StrCat("unknown reduction '", name, "' (sum, average, max, min)")));
}

// Starts every operation, then waits for each in order, with the GIL
// released: another Python thread (a reducer's callback, Ctrl-C's handler)
// may run meanwhile.
void RunAll(const PyRanks& ranks, std::vector<std::unique_ptr<Work>> works) {
  absl::Status first;
  {
    py::gil_scoped_release release;
    const absl::Time deadline = absl::Now() + ranks.timeout;
    for (std::unique_ptr<Work>& w : works) {
      absl::Status s = w->Wait(deadline, nullptr);
      if (first.ok() && !s.ok()) first = s;
    }
  }
  ThrowIfError(first);
}

void Allreduce(const PyRanks& ranks, const std::vector<Tensor>& tensors, const std::string& op) {
  const ReduceOp reduce = ToReduceOp(op);
  std::vector<std::unique_ptr<Work>> works;
  for (const Tensor& t : tensors) works.push_back(ranks.comm->Allreduce(t, reduce));
  RunAll(ranks, std::move(works));
}

void Broadcast(const PyRanks& ranks, const std::vector<Tensor>& tensors, int root) {
  std::vector<std::unique_ptr<Work>> works;
  for (const Tensor& t : tensors) works.push_back(ranks.comm->Broadcast(t, root));
  RunAll(ranks, std::move(works));
}

void Barrier(const PyRanks& ranks) {
  std::vector<std::unique_ptr<Work>> works;
  works.push_back(ranks.comm->Barrier());
  RunAll(ranks, std::move(works));
}

// The world of this job, made once; `timeout_s` applies from the first call.
std::shared_ptr<PyRanks> MpiWorld(double timeout_s) {
  static std::shared_ptr<PyRanks>* world = nullptr;
  if (world != nullptr) return *world;
  if (!(timeout_s > 0)) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("the communication timeout must be positive seconds, got ", timeout_s)));
  }
  auto ranks = std::make_shared<PyRanks>();
  {
    py::gil_scoped_release release;
    ranks->comm = ValueOrThrow(InitMpiWorld(nullptr, nullptr));
  }
  ranks->timeout = absl::Seconds(timeout_s);
  world = new std::shared_ptr<PyRanks>(ranks);  // lives as long as MPI does
  return ranks;
}

}  // namespace

void RegisterRanks(py::module_& m) {
  py::class_<PyRanks, std::shared_ptr<PyRanks>>(m, "Ranks")
      .def_property_readonly("rank", [](const PyRanks& r) { return r.comm->rank(); })
      .def_property_readonly("size", [](const PyRanks& r) { return r.comm->size(); })
      .def_property_readonly("timeout",
                             [](const PyRanks& r) { return absl::ToDoubleSeconds(r.timeout); })
      .def("allreduce", &Allreduce, py::arg("tensors"), py::arg("op") = "sum")
      .def("broadcast", &Broadcast, py::arg("tensors"), py::arg("root"))
      .def("barrier", &Barrier)
      .def("abort", [](const PyRanks& r, const std::string& why) {
        r.comm->Abort(absl::InternalError(why));
      });
  m.def("mpi_launched", &StartedByMpiLauncher);
  m.def("mpi_world", &MpiWorld, py::arg("timeout_s"));
  m.def("finalize_mpi", [] {
    py::gil_scoped_release release;
    FinalizeMpi();
  });
}

}  // namespace symx::python
