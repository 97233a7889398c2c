// Symbol: the user-facing handle to a dataflow graph — a list of output entries
// of an immutable, shared node DAG (graph/node.h).
//
// Composition never mutates existing nodes, so Symbols are cheap to copy and safe
// to share across threads. Every method converts internal errors into
// symx::Error (graph/error.h) with a message naming the node, op and argument.
//
//   Symbol data = Symbol::Variable("data");
//   Symbol fc1 = OpCall("FullyConnected").Name("fc1").Attr("num_hidden", 128)
//                    .Input("data", data);            // fc1_weight, fc1_bias created
//   Symbol act = OpCall("Activation").Attr("act_type", "relu").Input(fc1);
//   Symbol y = 2 * act + data;                          // arithmetic with scalars
#ifndef SYMX_GRAPH_SYMBOL_H_
#define SYMX_GRAPH_SYMBOL_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/attrs.h"
#include "graph/dtype.h"
#include "graph/node.h"
#include "graph/shape.h"

namespace symx {

struct VariableOptions {
  std::optional<Shape> shape;     // stored as __shape__ "(2, 3)"; unknown dims as 0
  std::optional<DType> dtype;     // stored as __dtype__ (type flag)
  std::string init;               // stored as __init__ (initializer description)
  std::optional<double> lr_mult;  // __lr_mult__
  std::optional<double> wd_mult;  // __wd_mult__
  AttrMap attrs;                  // more attributes; hidden keys normalized
};

// Result of shape inference, in ListArguments/ListOutputs/ListAuxiliaryStates
// order. Unknown dims are -1 (Shape::ToLegacy gives MXNet's 0).
struct ShapeInference {
  bool complete = false;
  std::vector<Shape> arg_shapes;
  std::vector<Shape> out_shapes;
  std::vector<Shape> aux_shapes;
  // When incomplete: which arguments are unknown (at most 10), MXNet's wording.
  std::string missing;
};

struct TypeInference {
  bool complete = false;
  std::vector<DType> arg_types;
  std::vector<DType> out_types;
  std::vector<DType> aux_types;
  std::string missing;
};

class Symbol {
 public:
  Symbol() = default;
  explicit Symbol(std::vector<NodeEntry> outputs) : outputs_(std::move(outputs)) {}

  static Symbol Variable(const std::string& name, const VariableOptions& options = {});
  // The outputs of all `symbols`, in order.
  static Symbol Group(const std::vector<Symbol>& symbols);
  static Symbol FromJson(const std::string& json);
  static Symbol Load(const std::string& path);

  size_t num_outputs() const { return outputs_.size(); }
  const std::vector<NodeEntry>& outputs() const { return outputs_; }
  // Output by position or by name (as ListOutputs gives it).
  Symbol operator[](size_t index) const;
  Symbol operator[](const std::string& output_name) const;

  // MXNet's symbol call: a copy of this graph with the named argument variables
  // replaced by `args` (each a single-output symbol). Unknown names are errors.
  Symbol Compose(const std::map<std::string, Symbol>& args) const;
  // Every visible output of every node, in DFS order (MXNet's get_internals);
  // with `hidden_outputs` also the ones an op hides (BatchNorm's saved mean
  // and var), which `symx inspect` reports.
  Symbol GetInternals(bool hidden_outputs = false) const;
  // The inputs of the output nodes; empty if they have none.
  Symbol GetChildren() const;

  std::vector<std::string> ListArguments() const;
  std::vector<std::string> ListOutputs() const;
  std::vector<std::string> ListAuxiliaryStates() const;
  // Arguments and auxiliary states in DFS order.
  std::vector<std::string> ListInputs() const;

  // Name of the single output's node (error for a group of several outputs).
  std::string name() const;
  // Attribute of the single output's node; hidden keys may be asked by their
  // short name ("lr_mult" finds "__lr_mult__").
  std::optional<std::string> Attr(const std::string& key) const;
  // All attributes of the single output's node.
  AttrMap ListAttr() const;
  // node name -> attributes, for every node with attributes.
  std::map<std::string, AttrMap> AttrDict() const;

  // Infers shapes from the given ones (by name: any input, aux included; or
  // positional in ListArguments order, with unknown Shape() entries). As in
  // MXNet, a 0 dim in a given shape means unknown. A name that is not an input
  // is an error (MXNet ignores it). A conflict throws. InferShape clears the lists
  // when the result is incomplete; InferShapePartial always fills them.
  ShapeInference InferShape(const std::map<std::string, Shape>& known) const;
  ShapeInference InferShape(const std::vector<Shape>& positional) const;
  ShapeInference InferShapePartial(const std::map<std::string, Shape>& known) const;
  ShapeInference InferShapePartial(const std::vector<Shape>& positional) const;
  TypeInference InferType(const std::map<std::string, DType>& known) const;
  TypeInference InferTypePartial(const std::map<std::string, DType>& known) const;

  // MXNet 1.9 symbol JSON, byte-compatible with what MXNet writes.
  std::string ToJson() const;
  void Save(const std::string& path) const;
  std::string DebugStr() const;

 private:
  const NodePtr& SingleHead(const char* what) const;
  std::vector<NodeEntry> outputs_;
};

// Builds one operator application. Missing inputs become variables named
// "<node>_<input>" (e.g. "fc1_weight") that copy the node's attributes.
class OpCall {
 public:
  explicit OpCall(std::string op_name) : op_name_(std::move(op_name)) {}
  OpCall& Name(std::string name);
  // Prefix for the automatic name when none is given (default: the op name
  // or alias as given, lower-cased: "fullyconnected0", "split0").
  OpCall& NameHint(std::string hint);
  OpCall& Attr(const std::string& key, const AttrValue& value);
  OpCall& Input(const Symbol& input);                          // next positional input
  OpCall& Input(const std::string& arg, const Symbol& input);  // named input
  Symbol Build() const;
  operator Symbol() const { return Build(); }  // NOLINT: builder converts implicitly

 private:
  std::string op_name_;
  std::string name_;
  std::string hint_;
  AttrMap attrs_;
  std::vector<Symbol> positional_;
  std::vector<std::pair<std::string, Symbol>> named_;
};

// Arithmetic, as MXNet's Python operators: symbol-symbol ops are elementwise
// (shapes must match), symbol-scalar ops are the *_scalar ops.
Symbol operator+(const Symbol& a, const Symbol& b);
Symbol operator-(const Symbol& a, const Symbol& b);
Symbol operator*(const Symbol& a, const Symbol& b);
Symbol operator/(const Symbol& a, const Symbol& b);
Symbol operator+(const Symbol& a, double b);
Symbol operator-(const Symbol& a, double b);
Symbol operator*(const Symbol& a, double b);
Symbol operator/(const Symbol& a, double b);
Symbol operator+(double a, const Symbol& b);
Symbol operator-(double a, const Symbol& b);
Symbol operator*(double a, const Symbol& b);
Symbol operator/(double a, const Symbol& b);
Symbol operator-(const Symbol& a);
// The scalar forms with the scalar's text as the caller wrote it (MXNet's
// Python stores str(3) = "3", str(0.5) = "0.5"): `op` is one of + - * /;
// `reverse` puts the scalar on the left (1 - a, 2 / a).
Symbol ScalarArithmetic(char op, const Symbol& s, const std::string& scalar, bool reverse = false);

}  // namespace symx

#endif  // SYMX_GRAPH_SYMBOL_H_
