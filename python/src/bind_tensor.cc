// Tensor (the NDArray's storage), contexts and .params files.
//
// A host Tensor is seen by numpy without a copy through `numpy(writable)`: an
// array over the tensor's memory whose base keeps the Tensor (and so its
// storage) alive. A writable view takes a writable pointer, which counts as a
// write to the storage (tensor.h): what a kernel derived from the old
// contents (oneDNN's converted weights) is rebuilt at the next run. A
// read-only view counts nothing. (Not the buffer protocol: an error there
// cannot become a Python exception and would end the process.)
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/params_io.h"
#include "devices/tensor.h"
#include "python/src/convert.h"

namespace symx::python {
namespace {

// The struct-module format of each dtype numpy can represent.
const char* BufferFormat(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return "f";
    case DType::kFloat64: return "d";
    case DType::kFloat16: return "e";
    case DType::kUint8: return "B";
    case DType::kInt32: return "i";
    case DType::kInt8: return "b";
    case DType::kInt64: return "q";
    case DType::kBool: return "?";
    case DType::kInt16: return "h";
    case DType::kUint16: return "H";
    case DType::kUint32: return "I";
    case DType::kUint64: return "Q";
    default: return nullptr;
  }
}

py::array NumpyView(const py::object& self, bool writable) {
  const Tensor& t = self.cast<const Tensor&>();
  if (t.ctx().type != DeviceType::kCPU) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "an array on ", t.ctx().ToString(), " has no host memory to view; copy it to cpu() first")));
  }
  const char* format = BufferFormat(t.dtype());
  if (format == nullptr) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat(DTypeName(t.dtype()), " has no numpy dtype; cast the array (astype) first")));
  }
  std::vector<py::ssize_t> shape(t.shape().dims().begin(), t.shape().dims().end());
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = static_cast<py::ssize_t>(DTypeSize(t.dtype()));
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  void* data = writable ? t.raw_data() : const_cast<void*>(t.read_raw_data());
  py::array view(py::dtype(format), shape, strides, data, self);
  if (!writable) view.attr("setflags")(py::arg("write") = false);
  return view;
}

// A new tensor on `ctx` holding a C-contiguous buffer's bytes as `dtype`
// (symx/ndarray.py converts and makes the buffer contiguous first).
Tensor FromBuffer(const py::buffer& buffer, const std::string& dtype_name, const std::string& ctx) {
  DType dtype = ToDType(dtype_name);
  py::buffer_info info = buffer.request();
  std::vector<int64_t> dims(info.shape.begin(), info.shape.end());
  if (info.itemsize != static_cast<py::ssize_t>(DTypeSize(dtype))) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "buffer items are ", info.itemsize, " bytes, ", dtype_name, " needs ", DTypeSize(dtype))));
  }
  py::ssize_t expect = info.itemsize;
  for (int i = info.ndim - 1; i >= 0; --i) {
    if (info.shape[i] > 1 && info.strides[i] != expect) {
      throw Error(absl::InvalidArgumentError("the buffer is not C-contiguous"));
    }
    expect *= info.shape[i];
  }
  Tensor host = ValueOrThrow(Tensor::Empty(Shape(dims), dtype, Context::CPU()));
  if (host.nbytes() > 0) std::memcpy(host.raw_data(), info.ptr, host.nbytes());
  Context where = ToContext(ctx);
  if (where == Context::CPU()) return host;
  return ValueOrThrow(CopyToNew(host, where, dtype));
}

py::tuple LoadParamsFile(const std::string& path) {
  NamedTensors loaded = ValueOrThrow(LoadParams(path));
  return py::make_tuple(loaded.names, FromTensors(loaded.tensors));
}

void SaveParamsFile(const std::string& path, const std::vector<std::string>& names,
                    const std::vector<py::object>& tensors) {
  NamedTensors params;
  params.names = names;
  for (const py::object& t : tensors) params.tensors.push_back(TensorOrNone(t));
  ThrowIfError(SaveParams(path, params));
}

}  // namespace

void RegisterTensor(py::module_& m) {
  m.def("parse_context", [](const std::string& text) {
    Context c = ToContext(text);
    const char* type = c.type == DeviceType::kGPU         ? "gpu"
                       : c.type == DeviceType::kCPUPinned ? "cpu_pinned"
                       : c.type == DeviceType::kCPUShared ? "cpu_shared"
                                                          : "cpu";
    return py::make_tuple(type, c.id, c.rank);
  });

  py::class_<Tensor>(m, "Tensor")
      .def("numpy", &NumpyView, py::arg("writable"),
           "A numpy array over this host tensor's memory (no copy); it keeps the tensor alive")
      .def_property_readonly("shape",
                             [](const Tensor& t) { return py::tuple(py::cast(t.shape().dims())); })
      .def_property_readonly("dtype", [](const Tensor& t) { return DTypeName(t.dtype()); })
      .def_property_readonly("context", [](const Tensor& t) { return t.ctx().ToString(); })
      .def_property_readonly("size", &Tensor::size)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def_property_readonly("offset", &Tensor::offset)
      .def("view",
           [](const Tensor& t, const std::vector<int64_t>& dims) {
             return ValueOrThrow(t.View(Shape(dims)));
           })
      .def("slice",
           [](const Tensor& t, int64_t begin, int64_t end) {
             return ValueOrThrow(t.Slice(begin, end));
           })
      .def("fill", &Tensor::Fill, py::call_guard<py::gil_scoped_release>())
      .def("copy_from",
           [](const Tensor& dst, const Tensor& src) { ThrowIfError(CopyTensor(src, dst)); },
           py::call_guard<py::gil_scoped_release>())
      .def("copy_to_new",
           [](const Tensor& t, const std::string& ctx, const std::string& dtype) {
             return ValueOrThrow(CopyToNew(t, ToContext(ctx), ToDType(dtype)));
           })
      .def("same_storage", &Tensor::SharesStorageWith)
      .def("__repr__", &Tensor::DebugString);

  m.def("empty", [](const std::vector<int64_t>& dims, const std::string& dtype,
                    const std::string& ctx) {
    return ValueOrThrow(Tensor::Empty(Shape(dims), ToDType(dtype), ToContext(ctx)));
  });
  m.def("zeros", [](const std::vector<int64_t>& dims, const std::string& dtype,
                    const std::string& ctx) {
    return ValueOrThrow(Tensor::Zeros(Shape(dims), ToDType(dtype), ToContext(ctx)));
  });
  m.def("from_buffer", &FromBuffer, py::arg("buffer"), py::arg("dtype"), py::arg("ctx"));
  m.def("load_params", &LoadParamsFile, py::arg("path"),
        "(names, tensors) of an MXNet .params/NDArray list file; names empty for a list file");
  m.def("save_params", &SaveParamsFile, py::arg("path"), py::arg("names"), py::arg("tensors"));
}

}  // namespace symx::python
