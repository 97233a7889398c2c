#include "tools/symx/inspect.h"

#include <iomanip>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"
#include "graph/op.h"
#include "graph/symbol.h"
#include "nlohmann/json.hpp"
#include "tools/symx/flags.h"
#include "tools/symx/report.h"

namespace symx::cli {
namespace {

using OrderedJson = nlohmann::ordered_json;

struct Row {
  std::string name;
  std::string op;
  std::vector<Shape> shapes;
  std::vector<DType> dtypes;
};

// Parameters are the arguments an op consumes as its weight, bias, gamma or
// beta: what a checkpoint stores and an optimizer updates.
std::set<std::string> ParameterNames(const Symbol& sym) {
  static const std::set<std::string> kSlots = {"weight", "bias", "gamma", "beta"};
  std::set<std::string> out;
  Symbol internals = sym.GetInternals();
  std::set<const Node*> seen;
  for (const NodeEntry& e : internals.outputs()) {
    const Node& node = *e.node;
    if (node.is_variable() || !seen.insert(&node).second) continue;
    std::vector<std::string> names = node.op()->InputNames(node.attrs);
    for (size_t i = 0; i < names.size() && i < node.inputs.size(); ++i) {
      if (kSlots.count(names[i]) && node.inputs[i].node->is_variable()) {
        out.insert(node.inputs[i].node->name());
      }
    }
  }
  return out;
}

OrderedJson ShapeJson(const Shape& s) {
  OrderedJson dims = OrderedJson::array();
  for (int64_t d : s.ToLegacy()) dims.push_back(d);
  return dims;
}

std::string ShapeText(const Shape& s) {
  if (!s.ndim_known()) return "?";
  std::vector<std::string> parts;
  for (int i = 0; i < s.ndim(); ++i) parts.push_back(s.dim_known(i) ? absl::StrCat(s[i]) : "?");
  return absl::StrCat("(", absl::StrJoin(parts, ","), ")");
}

}  // namespace

void RunInspect(const InspectOptions& options, std::ostream& out) {
  Symbol sym = Symbol::Load(options.symbol_path);
  ShapeInference shapes = sym.InferShapePartial(options.shapes);
  // As MXNet's simple_bind: without --dtype every argument defaults to float32
  // (unless it carries __dtype__); with --dtype only the listed names are seeded.
  std::map<std::string, DType> dtypes = options.dtypes;
  if (dtypes.empty()) {
    std::vector<std::string> args = sym.ListArguments();
    Symbol internals = sym.GetInternals();
    std::set<std::string> hinted;
    for (const NodeEntry& e : internals.outputs()) {
      if (e.node->is_variable() && e.node->attrs.dict.count("__dtype__")) {
        hinted.insert(e.node->name());
      }
    }
    for (const std::string& a : args) {
      if (!hinted.count(a)) dtypes[a] = DType::kFloat32;
    }
  }
  TypeInference types = sym.InferTypePartial(dtypes);

  Symbol internals = sym.GetInternals(/*hidden_outputs=*/true);
  ShapeInference node_shapes = internals.InferShapePartial(options.shapes);
  TypeInference node_types = internals.InferTypePartial(dtypes);

  std::vector<Row> nodes;
  const std::vector<NodeEntry>& entries = internals.outputs();
  for (size_t i = 0; i < entries.size(); ++i) {
    const Node& node = *entries[i].node;
    if (nodes.empty() || nodes.back().name != node.name() || entries[i].index == 0) {
      nodes.push_back(Row{node.name(), node.is_variable() ? "null" : node.op()->name(), {}, {}});
    }
    nodes.back().shapes.push_back(node_shapes.out_shapes[i]);
    nodes.back().dtypes.push_back(node_types.out_types[i]);
  }

  std::vector<std::string> arg_names = sym.ListArguments();
  std::vector<std::string> aux_names = sym.ListAuxiliaryStates();
  std::vector<std::string> out_names = sym.ListOutputs();
  std::set<std::string> params = ParameterNames(sym);
  int64_t num_parameters = 0;
  bool parameters_known = true;
  for (size_t i = 0; i < arg_names.size(); ++i) {
    if (!params.count(arg_names[i])) continue;
    if (shapes.arg_shapes[i].fully_known()) {
      num_parameters += shapes.arg_shapes[i].Size();
    } else {
      parameters_known = false;
    }
  }

  auto list = [](const std::vector<std::string>& names, const std::vector<Shape>& s,
                 const std::vector<DType>& t) {
    std::vector<TableRow> rows;
    for (size_t i = 0; i < names.size(); ++i) rows.push_back({names[i], s[i], t[i]});
    return rows;
  };
  std::vector<TableRow> arg_rows = list(arg_names, shapes.arg_shapes, types.arg_types);
  std::vector<TableRow> aux_rows = list(aux_names, shapes.aux_shapes, types.aux_types);
  std::vector<TableRow> out_rows = list(out_names, shapes.out_shapes, types.out_types);

  if (options.json) {
    OrderedJson doc;
    auto rows_json = [](const std::vector<TableRow>& rows) {
      OrderedJson arr = OrderedJson::array();
      for (const TableRow& r : rows) {
        arr.push_back(
            {{"name", r.name}, {"shape", ShapeJson(r.shape)}, {"dtype", DTypeName(r.dtype)}});
      }
      return arr;
    };
    doc["arguments"] = rows_json(arg_rows);
    doc["auxiliary_states"] = rows_json(aux_rows);
    doc["outputs"] = rows_json(out_rows);
    OrderedJson node_list = OrderedJson::array();
    for (const Row& n : nodes) {
      OrderedJson shapes_json = OrderedJson::array();
      for (const Shape& s : n.shapes) shapes_json.push_back(ShapeJson(s));
      node_list.push_back({{"name", n.name}, {"op", n.op}, {"output_shapes", shapes_json}});
    }
    doc["nodes"] = node_list;
    doc["num_parameters"] = num_parameters;
    out << doc.dump(2) << "\n";
    return;
  }

  out << "Symbol: " << options.symbol_path << "\n\n";
  PrintTable(out, "Arguments", arg_rows);
  PrintTable(out, "Auxiliary states", aux_rows);
  PrintTable(out, "Outputs", out_rows);
  out << "Nodes (" << nodes.size() << "):\n";
  size_t name_width = 4, op_width = 2;
  for (const Row& n : nodes) {
    name_width = std::max(name_width, n.name.size());
    op_width = std::max(op_width, n.op.size());
  }
  out << "  " << std::left << std::setw(name_width) << "name"
      << "  " << std::setw(op_width) << "op"
      << "  output shapes\n";
  for (const Row& n : nodes) {
    std::vector<std::string> s;
    for (const Shape& shape : n.shapes) s.push_back(ShapeText(shape));
    out << "  " << std::left << std::setw(name_width) << n.name << "  " << std::setw(op_width)
        << n.op << "  " << absl::StrJoin(s, " ") << "\n";
  }
  out << "\nParameters: " << num_parameters
      << (parameters_known ? "" : " (some parameter shapes are unknown; give more --shape)")
      << "\n";
  if (!shapes.complete) {
    out << "\nShapes are incomplete. " << shapes.missing << "\n";
  }
}

int InspectMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, {"--shape", "--dtype"}, {"--json"});
  if (!parsed.ok()) {
    err << "symx inspect: " << parsed.status().message() << "\n";
    return 2;
  }
  if (parsed->positional.size() != 1) {
    err << "symx inspect: expected one MODEL-symbol.json argument\n"
        << "usage: symx inspect MODEL-symbol.json [--shape NAME=D0,D1,...]... "
           "[--dtype NAME=TYPE]... [--json]\n";
    return 2;
  }
  InspectOptions options;
  options.symbol_path = parsed->positional[0];
  options.json = !parsed->switches.empty();
  for (const auto& [flag, value] : parsed->values) {
    if (flag == "--shape") {
      auto kv = ParseShapeFlag(value);
      if (!kv.ok()) {
        err << "symx inspect: " << kv.status().message() << "\n";
        return 2;
      }
      if (options.shapes.count(kv->first)) {
        err << "symx inspect: --shape given twice for '" << kv->first << "'\n";
        return 2;
      }
      options.shapes[kv->first] = kv->second;
    } else {
      auto kv = ParseDtypeFlag(value);
      if (!kv.ok()) {
        err << "symx inspect: " << kv.status().message() << "\n";
        return 2;
      }
      options.dtypes[kv->first] = kv->second;
    }
  }
  try {
    RunInspect(options, out);
  } catch (const Error& e) {
    err << "symx inspect: " << OneLine(e.what()) << "\n";
    return 1;
  }
  return 0;
}

}  // namespace symx::cli
