// The `symx._symx` extension: the engine's C++ API for the Python package
// (python/symx). Python keeps only what Python must do (MXNet's calling
// conventions, numpy interop); everything else is the engine's.
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "distributed/mpi_communicator.h"
#include "graph/error.h"
#include "python/src/convert.h"
#include "tools/env/engine_env.h"

namespace symx::python {
namespace {

// The exception class engine errors are raised as. symx/base.py sets it to
// mx.base.MXNetError (a subclass of `Error`) once the package is imported.
py::object& ErrorClass() {
  static py::object* cls = new py::object();  // never destroyed: outlives the interpreter
  return *cls;
}

EngineOptions& EngineOptionsValue() {
  static EngineOptions* options = new EngineOptions();
  return *options;
}

// The environment is read here, once, as the symx tool's main does: the
// engine itself never reads it.
void ReadEnvironment() {
  absl::StatusOr<DeviceOptions> devices = DeviceOptionsFromEnvironment();
  if (!devices.ok()) throw py::value_error(std::string(devices.status().message()));
  if (devices->cpu_threads == 0 && StartedByMpiLauncher()) {
    // As the symx tool under mpirun: without SYMX_CPU_THREADS the host's
    // cores are shared by its ranks. MPI itself starts later (on the first
    // distributed kvstore or cross-rank bind), after devices may exist, so
    // the ranks on this host come from the launcher's environment (Open
    // MPI's, or MPICH/Hydra's); unknown: one.
    int local = 1;
    for (const char* var : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE"}) {
      if (const char* v = std::getenv(var)) {
        local = std::max(1, std::atoi(v));
        break;
      }
    }
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    devices->cpu_threads = std::max(1, cores / local);
  }
  SetDeviceOptions(*devices);
  absl::StatusOr<EngineOptions> engine = EngineOptionsFromEnvironment();
  if (!engine.ok()) throw py::value_error(std::string(engine.status().message()));
  EngineOptionsValue() = *engine;
}

}  // namespace

const EngineOptions& BindEngineOptions() { return EngineOptionsValue(); }

PYBIND11_MODULE(_symx, m) {
  ReadEnvironment();
  m.doc() = "symx engine bindings (use the `symx` package, not this module)";
  static py::exception<Error> base_error(m, "Error", PyExc_RuntimeError);
  ErrorClass() = base_error;
  m.def("_set_error_class", [](py::object cls) { ErrorClass() = std::move(cls); });
  // The intra-op threads of each CPU device (0: the machine's cores).
  m.def("cpu_threads", [] { return GetDeviceOptions().cpu_threads; });
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(ErrorClass().ptr(), e.what());
    }
  });
  RegisterTensor(m);
  RegisterSymbol(m);
  RegisterExecutor(m);
  RegisterTrain(m);
  RegisterImperative(m);
  RegisterRanks(m);
  RegisterGpus(m);
  RegisterRecordIO(m);
  RegisterIo(m);
}

}  // namespace symx::python
