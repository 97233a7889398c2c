// Imperative calls (mx.nd.<op>): one op on arrays through the engine's cached
// one-op plans (executor/imperative.h). Python passes what MXNet's calling
// convention gave it, sorted into inputs, attributes and out= arrays.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "executor/imperative.h"
#include "python/src/convert.h"

namespace symx::python {
namespace {

std::vector<Tensor> Call(const std::string& op, std::vector<Tensor> positional,
                         std::vector<std::pair<std::string, Tensor>> named, AttrMap attrs,
                         std::vector<Tensor> out, const std::optional<std::string>& ctx,
                         bool is_train) {
  InvokeArgs args{.op = op,
                  .attrs = std::move(attrs),
                  .positional = std::move(positional),
                  .named = std::move(named),
                  .out = std::move(out),
                  .is_train = is_train,
                  .options = BindEngineOptions()};
  if (ctx.has_value()) args.ctx = ToContext(*ctx);
  // Kernels run without the interpreter: other Python threads go on.
  py::gil_scoped_release release;
  return Invoke(args);
}

}  // namespace

void RegisterImperative(py::module_& m) {
  m.def("invoke", &Call, py::arg("op"), py::arg("positional"), py::arg("named"), py::arg("attrs"),
        py::arg("out"), py::arg("ctx"), py::arg("is_train"));
  m.def("imperative_cache_stats", [] {
    ImperativeCacheStats s = GetImperativeCacheStats();
    return py::make_tuple(s.plans, s.hits, s.misses);
  });
  m.def("clear_imperative_cache", &ClearImperativeCache);
}

}  // namespace symx::python
