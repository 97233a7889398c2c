// The `symx._symx` extension: the engine's C++ API for the Python package
// (python/symx). Python keeps only what Python must do (MXNet's calling
// conventions, numpy interop); everything else is the engine's.
#include <pybind11/pybind11.h>

#include <string>

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
  absl::Status devices = SetDeviceOptionsFromEnvironment();
  if (!devices.ok()) throw py::value_error(std::string(devices.message()));
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
}

}  // namespace symx::python
