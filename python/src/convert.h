// Conversions between Python values and the engine's types, shared by the
// binding files. Shapes cross as tuples of ints, dtypes as numpy-style names
// ("float32"), contexts as their text ("cpu(1)"); an undefined Tensor is None.
#ifndef SYMX_PYTHON_SRC_CONVERT_H_
#define SYMX_PYTHON_SRC_CONVERT_H_

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "devices/context.h"
#include "devices/engine_options.h"
#include "devices/tensor.h"
#include "graph/dtype.h"
#include "graph/error.h"
#include "graph/shape.h"

namespace symx::python {

namespace py = pybind11;

inline Context ToContext(const std::string& text) { return ValueOrThrow(ParseContext(text)); }

inline DType ToDType(const std::string& name) { return ValueOrThrow(ParseDType(name)); }

// MXNet's legacy convention: a 0 dim is unknown.
inline Shape ToShape(const std::vector<int64_t>& dims) { return Shape::FromLegacy(dims); }

// A shape as MXNet's Python returns it: unknown dims as 0, an unknown number
// of dims as ().
inline py::tuple FromShape(const Shape& shape) {
  if (!shape.ndim_known()) return py::tuple();
  return py::cast(shape.ToLegacy());
}

inline py::object FromTensor(const Tensor& t) {
  if (!t.defined()) return py::none();
  return py::cast(t);
}

inline py::list FromTensors(const std::vector<Tensor>& tensors) {
  py::list out;
  for (const Tensor& t : tensors) out.append(FromTensor(t));
  return out;
}

inline py::dict FromTensorMap(const std::map<std::string, Tensor>& tensors) {
  py::dict out;
  for (const auto& [name, t] : tensors) out[py::str(name)] = FromTensor(t);
  return out;
}

// None -> undefined Tensor.
inline Tensor TensorOrNone(const py::handle& h) {
  if (h.is_none()) return Tensor();
  return h.cast<Tensor>();
}

inline std::map<std::string, Shape> ToShapeMap(const std::map<std::string, std::vector<int64_t>>& m) {
  std::map<std::string, Shape> out;
  for (const auto& [name, dims] : m) out[name] = ToShape(dims);
  return out;
}

// Every bind's switches, read from the SYMX_* environment variables when the
// module is imported (tools/env/engine_env.h; module.cc).
const EngineOptions& BindEngineOptions();

void RegisterTensor(py::module_& m);
void RegisterSymbol(py::module_& m);
void RegisterExecutor(py::module_& m);
void RegisterTrain(py::module_& m);
void RegisterImperative(py::module_& m);
void RegisterRanks(py::module_& m);
void RegisterGpus(py::module_& m);
// mx.recordio and mx.image: RecordIO files and image codecs.
void RegisterRecordIO(py::module_& m);
// mx.io's engine iterators: ImageRecordIter, CSVIter.
void RegisterIo(py::module_& m);

}  // namespace symx::python

#endif  // SYMX_PYTHON_SRC_CONVERT_H_
