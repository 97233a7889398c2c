// Symbols, the operator registry and the attribute/name scopes.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/op.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "python/src/convert.h"

namespace symx::python {
namespace {

py::tuple FromShapeInference(const ShapeInference& r) {
  auto shapes = [](const std::vector<Shape>& v) {
    py::list out;
    for (const Shape& s : v) out.append(FromShape(s));
    return out;
  };
  return py::make_tuple(r.complete, shapes(r.arg_shapes), shapes(r.out_shapes),
                        shapes(r.aux_shapes), r.missing);
}

py::tuple FromTypeInference(const TypeInference& r) {
  auto types = [](const std::vector<DType>& v) {
    py::list out;
    for (DType t : v) {
      if (t == DType::kUnknown) {
        out.append(py::none());
      } else {
        out.append(DTypeName(t));
      }
    }
    return out;
  };
  return py::make_tuple(r.complete, types(r.arg_types), types(r.out_types), types(r.aux_types),
                        r.missing);
}

// Known shapes by name or by position (a positional None or () is unknown).
ShapeInference InferShapeAny(const Symbol& s, const py::object& known, bool partial) {
  if (py::isinstance<py::dict>(known)) {
    std::map<std::string, Shape> by_name;
    for (auto [k, v] : known.cast<py::dict>()) {
      by_name[k.cast<std::string>()] = ToShape(v.cast<std::vector<int64_t>>());
    }
    return partial ? s.InferShapePartial(by_name) : s.InferShape(by_name);
  }
  std::vector<Shape> positional;
  for (py::handle v : known.cast<py::list>()) {
    positional.push_back(v.is_none() ? Shape() : ToShape(v.cast<std::vector<int64_t>>()));
  }
  return partial ? s.InferShapePartial(positional) : s.InferShape(positional);
}

// One registered op as the Python front needs it to generate a function:
// (name, aliases, description, input names with default attributes (None
// when they depend on the attributes), whether it is a backward op).
py::tuple DescribeOp(const Op& op) {
  py::object inputs = py::none();
  absl::StatusOr<OpParamPtr> parsed = op.Parse({});
  if (parsed.ok()) {
    NodeAttrs attrs{&op, "", {}, *parsed};
    try {
      inputs = py::cast(op.InputNames(attrs));
    } catch (const std::exception&) {
      inputs = py::none();
    }
  }
  return py::make_tuple(op.name(), op.aliases(), op.description(), inputs, op.is_backward());
}

Symbol CallOp(const std::string& op_name, const std::string& name,
              const std::vector<Symbol>& positional,
              const std::vector<std::pair<std::string, Symbol>>& named, const AttrMap& attrs) {
  OpCall call(op_name);
  if (!name.empty()) call.Name(name);
  for (const auto& [key, value] : attrs) call.Attr(key, value);
  for (const Symbol& s : positional) call.Input(s);
  for (const auto& [arg, s] : named) call.Input(arg, s);
  return call.Build();
}

Symbol Binary(const std::string& op, const Symbol& a, const Symbol& b) {
  if (op == "+") return a + b;
  if (op == "-") return a - b;
  if (op == "*") return a * b;
  if (op == "/") return a / b;
  throw Error(absl::InvalidArgumentError("unknown symbol operator " + op));
}


// A with-statement scope: the C++ RAII object lives from __enter__ to __exit__.
template <typename Scope, typename Arg>
class PyScope {
 public:
  explicit PyScope(Arg arg) : arg_(std::move(arg)) {}
  void Enter() {
    if (scope_) throw Error(absl::FailedPreconditionError("scope entered twice"));
    scope_ = std::make_unique<Scope>(arg_);
  }
  void Exit() { scope_.reset(); }

 private:
  Arg arg_;
  std::unique_ptr<Scope> scope_;
};

}  // namespace

void RegisterSymbol(py::module_& m) {
  py::class_<Symbol>(m, "Symbol")
      .def_static(
          "variable",
          [](const std::string& name, std::optional<std::vector<int64_t>> shape,
             std::optional<std::string> dtype, const std::string& init,
             std::optional<double> lr_mult, std::optional<double> wd_mult, const AttrMap& attrs) {
            VariableOptions options;
            if (shape) options.shape = ToShape(*shape);
            if (dtype) options.dtype = ToDType(*dtype);
            options.init = init;
            options.lr_mult = lr_mult;
            options.wd_mult = wd_mult;
            options.attrs = attrs;
            return Symbol::Variable(name, options);
          },
          py::arg("name"), py::arg("shape"), py::arg("dtype"), py::arg("init"),
          py::arg("lr_mult"), py::arg("wd_mult"), py::arg("attrs"))
      .def_static("group", &Symbol::Group)
      .def_static("from_json", &Symbol::FromJson)
      .def_static("load", &Symbol::Load)
      .def_property_readonly("num_outputs", &Symbol::num_outputs)
      .def("output", [](const Symbol& s, size_t i) { return s[i]; })
      .def("output_by_name", [](const Symbol& s, const std::string& n) { return s[n]; })
      .def("compose", &Symbol::Compose)
      .def("get_internals", [](const Symbol& s) { return s.GetInternals(); })
      .def("get_children", &Symbol::GetChildren)
      .def("list_arguments", &Symbol::ListArguments)
      .def("list_outputs", &Symbol::ListOutputs)
      .def("list_auxiliary_states", &Symbol::ListAuxiliaryStates)
      .def("list_inputs", &Symbol::ListInputs)
      .def("name", &Symbol::name)
      .def("attr", &Symbol::Attr)
      .def("list_attr", &Symbol::ListAttr)
      .def("attr_dict", &Symbol::AttrDict)
      .def(
          "infer_shape",
          [](const Symbol& s, const py::object& known, bool partial) {
            return FromShapeInference(InferShapeAny(s, known, partial));
          },
          py::arg("known"), py::arg("partial"))
      .def(
          "infer_type",
          [](const Symbol& s, const std::map<std::string, std::string>& known, bool partial) {
            std::map<std::string, DType> types;
            for (const auto& [k, v] : known) types[k] = ToDType(v);
            return FromTypeInference(partial ? s.InferTypePartial(types) : s.InferType(types));
          },
          py::arg("known"), py::arg("partial"))
      .def("tojson", &Symbol::ToJson)
      .def("save", &Symbol::Save)
      .def("debug_str", &Symbol::DebugStr);
  m.def("list_ops", [] {
    py::list out;
    for (const Op* op : OpRegistry::Global().List()) out.append(DescribeOp(*op));
    return out;
  });
  m.def("call_op", &CallOp, py::arg("op"), py::arg("name"), py::arg("positional"),
        py::arg("named"), py::arg("attrs"));
  m.def("binary", &Binary);
  // The scalar as Python's str() wrote it; `reverse`: it is on the left (2 * a).
  m.def("scalar", [](const std::string& op, const Symbol& a, const std::string& scalar,
                     bool reverse) {
    if (op.size() != 1) throw Error(absl::InvalidArgumentError("unknown symbol operator " + op));
    return ScalarArithmetic(op[0], a, scalar, reverse);
  });

  using PyAttrScope = PyScope<AttrScope, AttrMap>;
  py::class_<PyAttrScope>(m, "AttrScope")
      .def(py::init<AttrMap>())
      .def("enter", &PyAttrScope::Enter)
      .def("exit", &PyAttrScope::Exit);
  m.def("current_attrs", &AttrScope::Current);
  using PyNameScope = PyScope<NameScope, std::string>;
  py::class_<PyNameScope>(m, "NameScope")
      .def(py::init<std::string>())
      .def("enter", &PyNameScope::Enter)
      .def("exit", &PyNameScope::Exit);
  m.def("make_name", [](const std::string& name, const std::string& hint) {
    return NameScope::MakeName(name, hint);
  });
}

}  // namespace symx::python
