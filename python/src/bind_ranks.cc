// `_symx.mpi_world()` and the collectives mx.kv's distributed stores need
// (python/symx/kvstore.py). MPI starts only when a script asks for ranks
// under a launcher (mpirun sets its variables); a script run alone never
// loads MPI's state and stays a one-process job.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <csignal>
#include <memory>
#include <mutex>
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

// Ctrl-C while a collective waits. Python's own SIGINT handler only notes
// the signal for the interpreter, which acts on it when control comes back
// to Python: a rank waiting for others would sit out its whole timeout. Once
// ranks start, this handler also raises a flag the waits below poll (Work's
// cancel), then calls the handler it replaced, so Python still raises
// KeyboardInterrupt; the script's end then ends the job (kvstore.py).
std::atomic<bool> g_interrupted{false};
struct sigaction g_previous_sigint;

void OnInterrupt(int sig, siginfo_t* info, void* context) {
  g_interrupted.store(true);
  const struct sigaction& prev = g_previous_sigint;
  if ((prev.sa_flags & SA_SIGINFO) != 0) {
    if (prev.sa_sigaction != nullptr) prev.sa_sigaction(sig, info, context);
  } else if (prev.sa_handler == SIG_DFL) {
    signal(sig, SIG_DFL);  // the default action: end the process
    raise(sig);
  } else if (prev.sa_handler != nullptr) {
    prev.sa_handler(sig);
  }
}

// Once per process. Keeps the replaced handler's flags (Python's: no
// SA_RESTART, so its blocking calls still wake with EINTR; SA_ONSTACK), and
// leaves an ignored SIGINT ignored (a job in the background).
void WatchInterrupts() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction current {};
    if (sigaction(SIGINT, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) return;
    struct sigaction action {};
    action.sa_sigaction = &OnInterrupt;
    action.sa_flags = (current.sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &g_previous_sigint);
  });
}

// Whether a SIGINT becomes KeyboardInterrupt: Python's default handler. A
// script's own handler (say, one that sets a stop flag) must not cut a
// collective short.
bool InterruptRaises() {
  py::module_ signal_module = py::module_::import("signal");
  py::object handler = signal_module.attr("getsignal")(signal_module.attr("SIGINT"));
  return handler.is(signal_module.attr("default_int_handler"));
}

// Starts every operation, then waits for each in order, with the GIL
// released: another Python thread (a reducer's callback) may run meanwhile.
// Ctrl-C ends the wait when it raises KeyboardInterrupt (InterruptRaises).
void RunAll(const PyRanks& ranks, std::vector<std::unique_ptr<Work>> works) {
  absl::Status first;
  // A signal before this call is the interpreter's to act on, not this wait's.
  g_interrupted.store(false);
  const std::atomic<bool>* cancel = InterruptRaises() ? &g_interrupted : nullptr;
  {
    py::gil_scoped_release release;
    const absl::Time deadline = absl::Now() + ranks.timeout;
    for (std::unique_ptr<Work>& w : works) {
      absl::Status s = w->Wait(deadline, cancel);
      if (first.ok() && !s.ok()) first = s;
    }
  }
  if (cancel != nullptr && g_interrupted.exchange(false)) {
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
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
// World is read and set with the GIL held; InitMpiWorld runs without it and
// gives every caller the same communicator.
std::shared_ptr<PyRanks> MpiWorld(double timeout_s) {
  static std::shared_ptr<PyRanks>* world = nullptr;
  if (world != nullptr) return *world;
  if (!(timeout_s > 0)) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("the communication timeout must be positive seconds, got ", timeout_s)));
  }
  std::shared_ptr<Communicator> comm;
  {
    py::gil_scoped_release release;
    comm = ValueOrThrow(InitMpiWorld(nullptr, nullptr));
  }
  if (world != nullptr) return *world;  // another thread got here first
  auto ranks = std::make_shared<PyRanks>();
  ranks->comm = std::move(comm);
  ranks->timeout = absl::Seconds(timeout_s);
  WatchInterrupts();
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
