#include "graph/symbol.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"
#include "graph/file_io.h"
#include "graph/indexed_graph.h"
#include "graph/json.h"
#include "graph/op.h"
#include "graph/scope.h"

namespace symx {
namespace {

absl::Status Invalid(const std::string& msg) { return absl::InvalidArgumentError(msg); }

std::string OutputName(const NodeEntry& e) {
  if (e.node->is_variable()) return e.node->name();
  std::vector<std::string> names = e.node->op()->OutputNames(e.node->attrs);
  return absl::StrCat(e.node->name(), "_", names[e.index]);
}

std::vector<NodeEntry> VisibleOutputs(const NodePtr& node) {
  std::vector<NodeEntry> out;
  for (int i = 0; i < node->num_visible_outputs(); ++i) {
    out.push_back(NodeEntry{node, static_cast<uint32_t>(i), 0});
  }
  return out;
}

Symbol Apply(const char* op, const char* hint, std::vector<Symbol> inputs, AttrMap attrs = {}) {
  OpCall call(op);
  call.NameHint(hint);
  for (const auto& [k, v] : attrs) call.Attr(k, v);
  for (const Symbol& s : inputs) call.Input(s);
  return call.Build();
}


}  // namespace

Symbol Symbol::Variable(const std::string& name, const VariableOptions& options) {
  if (name.empty()) throw Error(Invalid("Variable: the name must not be empty"));
  AttrMap dict = AttrScope::Current();
  for (const auto& [key, value] : options.attrs) dict[NormalizeAttrKey(key)] = value;
  if (options.shape) dict["__shape__"] = options.shape->ToTupleString();
  if (options.dtype) dict["__dtype__"] = std::to_string(static_cast<int>(*options.dtype));
  if (!options.init.empty()) dict["__init__"] = options.init;
  if (options.lr_mult) dict["__lr_mult__"] = FormatDouble(*options.lr_mult);
  if (options.wd_mult) dict["__wd_mult__"] = FormatDouble(*options.wd_mult);
  return Symbol({NodeEntry{MakeVariableNode(name, std::move(dict)), 0, 0}});
}

Symbol Symbol::Group(const std::vector<Symbol>& symbols) {
  std::vector<NodeEntry> outputs;
  for (const Symbol& s : symbols) {
    outputs.insert(outputs.end(), s.outputs_.begin(), s.outputs_.end());
  }
  return Symbol(std::move(outputs));
}

Symbol Symbol::FromJson(const std::string& json) {
  return Symbol(ValueOrThrow(LoadJson(json, "<json string>")));
}

Symbol Symbol::Load(const std::string& path) { return Symbol(ValueOrThrow(LoadJsonFile(path))); }

std::string Symbol::ToJson() const { return SaveJson(outputs_); }

void Symbol::Save(const std::string& path) const {
  const std::string json = ToJson();
  ThrowIfError(WriteFileBytes(path, [&](const ByteSink& sink) { sink(json.data(), json.size()); }));
}

Symbol Symbol::operator[](size_t index) const {
  if (index >= outputs_.size()) {
    throw Error(absl::OutOfRangeError(absl::StrCat(
        "output index ", index, " is out of range: the symbol has ", outputs_.size(), " outputs")));
  }
  return Symbol({outputs_[index]});
}

Symbol Symbol::operator[](const std::string& output_name) const {
  std::vector<std::string> names = ListOutputs();
  int found = -1;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] != output_name) continue;
    if (found >= 0) {
      throw Error(Invalid(absl::StrCat("output name '", output_name, "' is ambiguous")));
    }
    found = static_cast<int>(i);
  }
  if (found < 0) {
    throw Error(absl::NotFoundError(absl::StrCat("no output named '", output_name,
                                                 "' (outputs: ", absl::StrJoin(names, ", "), ")")));
  }
  return Symbol({outputs_[found]});
}

Symbol Symbol::Compose(const std::map<std::string, Symbol>& args) const {
  std::set<std::string> arguments;
  for (const std::string& a : ListInputs()) arguments.insert(a);
  for (const auto& [name, sym] : args) {
    if (!arguments.count(name)) {
      throw Error(Invalid(absl::StrCat("Compose: '", name, "' is not an argument of the symbol")));
    }
    if (sym.num_outputs() != 1) {
      throw Error(Invalid(absl::StrCat("Compose: the symbol given for '", name, "' has ",
                                       sym.num_outputs(), " outputs; exactly 1 is needed")));
    }
  }
  // Copy every node that (transitively) reads a replaced variable; share the rest.
  std::unordered_map<const Node*, NodePtr> copies;
  PostOrderVisit(outputs_, [&](const NodePtr& node) {
    if (node->is_variable()) {
      auto it = args.find(node->name());
      if (it != args.end()) copies[node.get()] = nullptr;  // replaced by an entry below
      return;
    }
    bool changed = false;
    for (const NodeEntry& e : node->inputs) changed |= copies.count(e.node.get()) != 0;
    if (!changed) return;
    auto copy = std::make_shared<Node>(*node);
    for (NodeEntry& e : copy->inputs) {
      auto it = copies.find(e.node.get());
      if (it == copies.end()) continue;
      if (it->second) {
        e.node = it->second;
      } else {
        uint32_t version = e.version;
        e = args.at(e.node->name()).outputs_[0];
        e.version = version;
      }
    }
    copies[node.get()] = copy;
  });
  std::vector<NodeEntry> outputs = outputs_;
  for (NodeEntry& e : outputs) {
    auto it = copies.find(e.node.get());
    if (it == copies.end()) continue;
    e = it->second ? NodeEntry{it->second, e.index, e.version}
                   : args.at(e.node->name()).outputs_[0];
  }
  return Symbol(std::move(outputs));
}

Symbol Symbol::GetInternals(bool hidden_outputs) const {
  std::vector<NodeEntry> outputs;
  PostOrderVisit(outputs_, [&](const NodePtr& node) {
    int n = hidden_outputs ? node->num_outputs() : node->num_visible_outputs();
    for (int i = 0; i < n; ++i) outputs.push_back(NodeEntry{node, static_cast<uint32_t>(i), 0});
  });
  return Symbol(std::move(outputs));
}

Symbol Symbol::GetChildren() const {
  // Per node, not per output: a SliceChannel's outputs have one node, whose
  // inputs are listed once (MXNet's behaviour).
  std::vector<NodeEntry> outputs;
  std::vector<const Node*> seen;
  for (const NodeEntry& e : outputs_) {
    if (std::find(seen.begin(), seen.end(), e.node.get()) != seen.end()) continue;
    seen.push_back(e.node.get());
    outputs.insert(outputs.end(), e.node->inputs.begin(), e.node->inputs.end());
  }
  return Symbol(std::move(outputs));
}

std::vector<std::string> Symbol::ListArguments() const {
  IndexedGraph g(outputs_);
  std::vector<std::string> out;
  for (uint32_t nid : g.arg_nodes()) out.push_back(g[nid].node->name());
  return out;
}

std::vector<std::string> Symbol::ListAuxiliaryStates() const {
  IndexedGraph g(outputs_);
  std::vector<std::string> out;
  for (uint32_t nid : g.aux_nodes()) out.push_back(g[nid].node->name());
  return out;
}

std::vector<std::string> Symbol::ListInputs() const {
  IndexedGraph g(outputs_);
  std::vector<std::string> out;
  for (uint32_t nid : g.input_nodes()) out.push_back(g[nid].node->name());
  return out;
}

std::vector<std::string> Symbol::ListOutputs() const {
  std::vector<std::string> out;
  for (const NodeEntry& e : outputs_) out.push_back(OutputName(e));
  return out;
}

const NodePtr& Symbol::SingleHead(const char* what) const {
  if (outputs_.size() != 1) {
    throw Error(Invalid(
        absl::StrCat(what, " needs a symbol with one output; this one has ", outputs_.size())));
  }
  return outputs_[0].node;
}

std::string Symbol::name() const { return SingleHead("name()")->name(); }

std::optional<std::string> Symbol::Attr(const std::string& key) const {
  const AttrMap& dict = SingleHead("Attr()")->attrs.dict;
  auto it = dict.find(key);
  if (it == dict.end()) it = dict.find(NormalizeAttrKey(key));
  if (it == dict.end()) return std::nullopt;
  return it->second;
}

AttrMap Symbol::ListAttr() const { return SingleHead("ListAttr()")->attrs.dict; }

std::map<std::string, AttrMap> Symbol::AttrDict() const {
  std::map<std::string, AttrMap> out;
  PostOrderVisit(outputs_, [&](const NodePtr& node) {
    if (!node->attrs.dict.empty()) out[node->name()] = node->attrs.dict;
  });
  return out;
}

std::string Symbol::DebugStr() const {
  std::ostringstream os;
  os << "Symbol Outputs:\n";
  for (size_t i = 0; i < outputs_.size(); ++i) {
    os << "\toutput[" << i << "]=" << outputs_[i].node->name() << "(" << outputs_[i].index << ")\n";
  }
  PostOrderVisit(outputs_, [&](const NodePtr& node) {
    if (node->is_variable()) {
      os << "Variable:" << node->name() << "\n";
      return;
    }
    os << "--------------------\n";
    os << "Op:" << node->op()->name() << ", Name=" << node->name() << "\n";
    os << "Inputs:\n";
    for (size_t i = 0; i < node->inputs.size(); ++i) {
      const NodeEntry& e = node->inputs[i];
      os << "\targ[" << i << "]=" << e.node->name() << "(" << e.index << ") version=" << e.version
         << "\n";
    }
    if (!node->attrs.dict.empty()) {
      os << "Attrs:\n";
      for (const auto& [k, v] : node->attrs.dict) os << "\t" << k << "=" << v << "\n";
    }
    if (!node->control_deps.empty()) {
      os << "Control deps:\n";
      for (size_t i = 0; i < node->control_deps.size(); ++i) {
        os << "\tcdep[" << i << "]=" << node->control_deps[i]->name() << "\n";
      }
    }
  });
  return os.str();
}

// ---------------------------------------------------------------- OpCall

OpCall& OpCall::Name(std::string name) {
  name_ = std::move(name);
  return *this;
}

OpCall& OpCall::NameHint(std::string hint) {
  hint_ = std::move(hint);
  return *this;
}

OpCall& OpCall::Attr(const std::string& key, const AttrValue& value) {
  attrs_[NormalizeAttrKey(key)] = value.str();
  return *this;
}

OpCall& OpCall::Input(const Symbol& input) {
  positional_.push_back(input);
  return *this;
}

OpCall& OpCall::Input(const std::string& arg, const Symbol& input) {
  named_.emplace_back(arg, input);
  return *this;
}

Symbol OpCall::Build() const {
  const Op* op = ValueOrThrow(OpRegistry::Global().Lookup(op_name_));
  AttrMap dict = AttrScope::Current();
  for (const auto& [k, v] : attrs_) dict[k] = v;
  if (!op->variadic_key().empty() && !dict.count(op->variadic_key()) && named_.empty()) {
    dict[op->variadic_key()] = std::to_string(positional_.size());
  }
  // The spelling called names the node, as MXNet's functions do: split
  // makes split0 where SliceChannel makes slicechannel0.
  std::string name = NameScope::MakeName(name_, hint_.empty() ? op_name_ : hint_);
  std::string where = absl::StrCat("operator '", name, "' (", op->name(), ")");

  NodeAttrs attrs;
  attrs.op = op;
  attrs.dict = dict;
  absl::StatusOr<OpParamPtr> parsed = op->Parse(dict);
  if (!parsed.ok()) throw Error(Annotate(parsed.status(), where));
  attrs.parsed = *parsed;
  ThrowIfError(CheckVariadicCount(*op, dict, positional_.size() + named_.size(), where));
  std::vector<std::string> arg_names = op->InputNames(attrs);

  std::vector<NodeEntry> inputs(arg_names.size());
  if (positional_.size() > arg_names.size()) {
    throw Error(Invalid(absl::StrCat(where, ": got ", positional_.size(),
                                     " positional inputs, but it takes ", arg_names.size(), " (",
                                     absl::StrJoin(arg_names, ", "), ")")));
  }
  auto take = [&](size_t slot, const Symbol& s, const std::string& label) {
    if (s.num_outputs() != 1) {
      throw Error(Invalid(absl::StrCat(where, ": input '", label, "' has ", s.num_outputs(),
                                       " outputs; an input must have exactly 1")));
    }
    if (inputs[slot].node) {
      throw Error(Invalid(absl::StrCat(where, ": input '", label, "' is given twice")));
    }
    inputs[slot] = s.outputs()[0];
  };
  for (size_t i = 0; i < positional_.size(); ++i) take(i, positional_[i], arg_names[i]);
  for (const auto& [arg, s] : named_) {
    auto it = std::find(arg_names.begin(), arg_names.end(), arg);
    if (it == arg_names.end()) {
      throw Error(Invalid(absl::StrCat(where, ": has no input named '", arg,
                                       "' (inputs: ", absl::StrJoin(arg_names, ", "), ")")));
    }
    take(it - arg_names.begin(), s, arg);
  }
  std::vector<int> aux = op->AuxInputs(attrs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].node) {
      // A missing input becomes a variable that copies the node's attributes.
      AttrMap var_attrs = dict;
      op->AddInputVarAttrs(attrs, static_cast<int>(i), &var_attrs);
      inputs[i] =
          NodeEntry{MakeVariableNode(absl::StrCat(name, "_", arg_names[i]), var_attrs), 0, 0};
    }
    if (std::find(aux.begin(), aux.end(), static_cast<int>(i)) != aux.end() &&
        inputs[i].node->is_variable()) {
      inputs[i].version = 1;  // the op mutates it, as MXNet records
    }
  }
  NodePtr node = ValueOrThrow(MakeOpNode(op, name, std::move(dict), std::move(inputs)));
  return Symbol(VisibleOutputs(node));
}

// ---------------------------------------------------------------- arithmetic

Symbol operator+(const Symbol& a, const Symbol& b) {
  return Apply("elemwise_add", "_plus", {a, b});
}
Symbol operator-(const Symbol& a, const Symbol& b) {
  return Apply("elemwise_sub", "_minus", {a, b});
}
Symbol operator*(const Symbol& a, const Symbol& b) { return Apply("elemwise_mul", "_mul", {a, b}); }
Symbol operator/(const Symbol& a, const Symbol& b) { return Apply("elemwise_div", "_div", {a, b}); }
Symbol ScalarArithmetic(char op, const Symbol& s, const std::string& scalar, bool reverse) {
  AttrMap attrs = {{"scalar", scalar}};
  switch (op) {
    case '+': return Apply("_plus_scalar", "_plusscalar", {s}, attrs);
    case '*': return Apply("_mul_scalar", "_mulscalar", {s}, attrs);
    case '-':
      return reverse ? Apply("_rminus_scalar", "_rminusscalar", {s}, attrs)
                     : Apply("_minus_scalar", "_minusscalar", {s}, attrs);
    case '/':
      return reverse ? Apply("_rdiv_scalar", "_rdivscalar", {s}, attrs)
                     : Apply("_div_scalar", "_divscalar", {s}, attrs);
    default:
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("no scalar arithmetic operator '", std::string(1, op), "' (+ - * /)")));
  }
}

Symbol operator+(const Symbol& a, double b) { return ScalarArithmetic('+', a, FormatDouble(b)); }
Symbol operator-(const Symbol& a, double b) { return ScalarArithmetic('-', a, FormatDouble(b)); }
Symbol operator*(const Symbol& a, double b) { return ScalarArithmetic('*', a, FormatDouble(b)); }
Symbol operator/(const Symbol& a, double b) { return ScalarArithmetic('/', a, FormatDouble(b)); }
Symbol operator+(double a, const Symbol& b) { return b + a; }
Symbol operator-(double a, const Symbol& b) {
  return ScalarArithmetic('-', b, FormatDouble(a), /*reverse=*/true);
}
Symbol operator*(double a, const Symbol& b) { return b * a; }
Symbol operator/(double a, const Symbol& b) {
  return ScalarArithmetic('/', b, FormatDouble(a), /*reverse=*/true);
}
Symbol operator-(const Symbol& a) { return a * -1.0; }

}  // namespace symx
