// The `symx._symx` extension: the engine's C++ API for the Python package
// (python/symx). Python keeps only what Python must do (MXNet's calling
// conventions, numpy interop); everything else is the engine's.
#include <pybind11/pybind11.h>

#include <string>

#include "graph/error.h"
#include "python/src/convert.h"

namespace symx::python {
namespace {

// The exception class engine errors are raised as. symx/base.py sets it to
// mx.base.MXNetError (a subclass of `Error`) once the package is imported.
py::object& ErrorClass() {
  static py::object* cls = new py::object();  // never destroyed: outlives the interpreter
  return *cls;
}

}  // namespace

PYBIND11_MODULE(_symx, m) {
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
}

}  // namespace symx::python
