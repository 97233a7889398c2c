// Op: a registered operator schema. It says what an op's inputs, outputs and
// parameters are and how shapes, dtypes and gradients follow; it has no kernels
// (those are registered per device in devices/).
//
// Ops are registered once at static-initialization time and are immutable and
// thread-safe to read afterwards. Subsystems look them up by name or alias.
//
//   SYMX_REGISTER_OP(FullyConnected)
//       .Describe("y = x W^T + b")
//       .SetParse(ParseFullyConnected)
//       .SetInputNames(...)
//       .SetInferShape(...)
//       .SetGradient(...);
#ifndef SYMX_GRAPH_OP_H_
#define SYMX_GRAPH_OP_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/dtype.h"
#include "graph/error.h"
#include "graph/node.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {

using ParseFn = std::function<absl::StatusOr<OpParamPtr>(const AttrMap&)>;
using NamesFn = std::function<std::vector<std::string>(const NodeAttrs&)>;
using CountFn = std::function<int(const NodeAttrs&)>;
using IndicesFn = std::function<std::vector<int>(const NodeAttrs&)>;
// Fills unknown parts of `in` (all inputs, aux included) and `out` from what is
// known, in both directions where the op allows. Unknowns may remain; a conflict
// is an error naming the argument and both shapes (see infer_util.h).
using InferShapeFn =
    std::function<absl::Status(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out)>;
using InferTypeFn =
    std::function<absl::Status(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out)>;
// Builds the gradient of `node`'s inputs from the gradients of its outputs.
// `out_grads[i]` is the gradient of output i, or an empty entry (node == nullptr)
// where it is known to be zero. Returns one entry per input; an empty entry means
// the gradient is zero (or, for aux inputs, does not exist).
// Output shapes that depend on input values, not only on input shapes
// (boolean_mask's rows): called with the input shapes and the host values of
// the op's value inputs (in_values[i] is empty for the others).
using ValueShapeFn = std::function<absl::Status(
    const NodeAttrs& attrs, const std::vector<Shape>& in_shapes,
    const std::vector<std::vector<double>>& in_values, std::vector<Shape>* out_shapes)>;
using GradientFn = std::function<std::vector<NodeEntry>(const NodePtr& node,
                                                        const std::vector<NodeEntry>& out_grads)>;
// Adds attributes to the variable created for a missing input `input` (MXNet's
// FSetInputVarAttrOnCompose: BatchNorm's moving_var starts at one).
using InputVarAttrsFn = std::function<void(const NodeAttrs&, int input, AttrMap* var_attrs)>;
// Checks a control-flow node's body graphs against its parameters and its
// number of inputs (loop-variable locations in range, output counts).
using SubgraphCheckFn = std::function<absl::Status(const NodeAttrs&, size_t num_inputs)>;
// (input index, output index) pairs that may share storage.
using InplaceFn = std::function<std::vector<std::pair<int, int>>(const NodeAttrs&)>;

// How mixed precision (train/mixed_precision.h) treats an op.
enum class PrecisionClass : uint8_t {
  kFollow,   // computes in the model's low-precision dtype
  kFloat32,  // needs float32's range or precision: its inputs are cast up
  // A loss head: float32, and its input 0 is multiplied by the loss scale
  // (the gradient starts here, so scaling the head scales every gradient).
  kFloat32LossHead,
};

class Op {
 public:
  explicit Op(std::string name, std::string source_file = "");

  const std::string& name() const { return name_; }
  const std::vector<std::string>& aliases() const { return aliases_; }
  const std::string& description() const { return description_; }
  // The source file that registered the op (graph/ops/F.cc for family F):
  // the family table's test (tests/ops/family_table_test.cc) reads it.
  const std::string& source_file() const { return source_file_; }

  absl::StatusOr<OpParamPtr> Parse(const AttrMap& attrs) const { return parse_(attrs); }
  std::vector<std::string> InputNames(const NodeAttrs& attrs) const;
  std::vector<std::string> OutputNames(const NodeAttrs& attrs) const;
  int NumInputs(const NodeAttrs& attrs) const;
  int NumOutputs(const NodeAttrs& attrs) const;
  int NumVisibleOutputs(const NodeAttrs& attrs) const;
  // Inputs that are auxiliary states (mutated by the op, e.g. BatchNorm's moving stats).
  std::vector<int> AuxInputs(const NodeAttrs& attrs) const;
  // For ops with a variable number of inputs: the attribute that holds the count
  // ("num_args"), filled in automatically from positional inputs.
  const std::string& variadic_key() const { return variadic_key_; }
  void AddInputVarAttrs(const NodeAttrs& attrs, int input, AttrMap* var_attrs) const {
    if (input_var_attrs_) input_var_attrs_(attrs, input, var_attrs);
  }

  const InferShapeFn& infer_shape() const { return infer_shape_; }
  const InferTypeFn& infer_type() const { return infer_type_; }
  const GradientFn& gradient() const { return gradient_; }
  const InplaceFn& inplace() const { return inplace_; }
  // How many body graphs (NodeAttrs::subgraphs) a node of this op carries
  // (0 for all but the control-flow ops), and their check.
  int num_subgraphs() const { return num_subgraphs_; }
  const SubgraphCheckFn& check_subgraphs() const { return check_subgraphs_; }
  // The op's gradient is known to be zero / undefined; the gradient pass stops here.
  bool non_differentiable() const { return non_differentiable_; }
  // Made by a pass for binds that compute no gradient (the fused ops): asking
  // for its gradient is an error that says to bind the original symbol.
  bool inference_only() const { return inference_only_; }
  // A loss head: its backward needs no head gradient.
  bool is_loss() const { return is_loss_; }
  // A backward op: control_deps[0] is the forward node; output i is the gradient of
  // the forward node's input i and has its shape and dtype.
  bool is_backward() const { return is_backward_; }
  PrecisionClass precision_class() const { return precision_class_; }
  // Input i holds integer indices or labels (Embedding's data, take's
  // indices, a loss head's label): float-typed in MXNet models, and wrong
  // once rounded to 11 bits (float16 holds integers exactly only up to
  // 2048), so no dtype rewrite touches it.
  bool IsIndexInput(int i) const;
  // Elementwise over inputs and outputs of one shape, whatever their layout:
  // the layout plan stores them channels-last when its neighbours are
  // (executor/layout_plan.h).
  bool layout_agnostic() const { return layout_agnostic_; }
  // Its attribute values change from call to call (an optimizer's rate and
  // step count) and decide neither shapes, dtypes nor the kernel: imperative
  // plans key on the attribute names and parse the values on every call
  // (executor/imperative.h), so a schedule does not rebuild the plan. The
  // attributes of attrs_keyed_by_value() (a multi_ update's num_weights,
  // which decides its inputs and outputs) key by value all the same.
  bool attrs_per_call() const { return attrs_per_call_; }
  const std::vector<std::string>& attrs_keyed_by_value() const { return attrs_keyed_by_value_; }

  // Registration (static init only).
  Op& Describe(std::string text);
  Op& AddAlias(std::string alias);
  Op& SetParse(ParseFn fn);
  Op& SetInputNames(std::vector<std::string> names);
  Op& SetInputNames(NamesFn fn);
  Op& SetOutputNames(std::vector<std::string> names);
  Op& SetOutputNames(NamesFn fn);
  Op& SetNumVisibleOutputs(CountFn fn);
  Op& SetAuxInputs(IndicesFn fn);
  Op& SetVariadic(std::string count_key);
  Op& SetInputVarAttrs(InputVarAttrsFn fn);
  Op& SetInferShape(InferShapeFn fn);
  Op& SetInferType(InferTypeFn fn);
  Op& SetGradient(GradientFn fn);
  Op& SetNonDifferentiable();
  Op& SetInferenceOnly();
  Op& SetSubgraphs(int count, SubgraphCheckFn check);
  Op& SetInplace(InplaceFn fn);
  Op& SetInplace(std::vector<std::pair<int, int>> pairs);
  Op& SetLoss();
  Op& SetBackward();
  Op& SetPrecisionClass(PrecisionClass c);
  Op& SetIndexInputs(std::vector<int> inputs);
  Op& SetLayoutAgnostic();
  Op& SetAttrsPerCall(std::vector<std::string> keyed_by_value = {});

  // An output shape depends on the values of inputs `value_inputs`: its
  // InferShapeFn leaves those dims unknown, a bind refuses the op (memory is
  // planned from shapes before any value exists), and an imperative call reads
  // those inputs to the host, completes the shapes with `fn`, and plans that
  // call alone (executor/imperative.cc).
  Op& SetValueDependentShape(std::vector<int> value_inputs, ValueShapeFn fn);
  const ValueShapeFn& value_shape() const { return value_shape_; }
  const std::vector<int>& value_inputs() const { return value_inputs_; }

 private:
  std::string name_;
  std::string source_file_;
  std::vector<std::string> aliases_;
  std::string description_;
  ParseFn parse_;
  NamesFn input_names_;
  NamesFn output_names_;
  CountFn num_visible_outputs_;
  IndicesFn aux_inputs_;
  std::string variadic_key_;
  InputVarAttrsFn input_var_attrs_;
  InferShapeFn infer_shape_;
  InferTypeFn infer_type_;
  GradientFn gradient_;
  InplaceFn inplace_;
  int num_subgraphs_ = 0;
  SubgraphCheckFn check_subgraphs_;
  bool non_differentiable_ = false;
  bool inference_only_ = false;
  bool is_loss_ = false;
  bool is_backward_ = false;
  PrecisionClass precision_class_ = PrecisionClass::kFollow;
  std::vector<int> index_inputs_;
  bool layout_agnostic_ = false;
  bool attrs_per_call_ = false;
  std::vector<std::string> attrs_keyed_by_value_;
  ValueShapeFn value_shape_;
  std::vector<int> value_inputs_;
};

class OpRegistry {
 public:
  static OpRegistry& Global();

  // Registers a new op; registering a name twice is a programming error.
  // `file` defaults to the file of the call (a helper that registers for
  // its callers passes theirs on).
  Op& Register(const std::string& name, const char* file = __builtin_FILE());
  // By name or alias; nullptr if unknown.
  const Op* Find(absl::string_view name) const;
  // A NotFound error naming `name` (and a close match, if any) when unknown.
  absl::StatusOr<const Op*> Lookup(absl::string_view name) const;
  // Every op, sorted by name.
  std::vector<const Op*> List() const;
  // Adds `alias` for op (called by Op::AddAlias).
  void AddAlias(const std::string& alias, const Op* op);

 private:
  OpRegistry() = default;
  std::vector<std::unique_ptr<Op>> ops_;
  std::map<std::string, const Op*, std::less<>> by_name_;
};

#define SYMX_REGISTER_OP(OpName)                                        \
  static ::symx::Op& SYMX_CONCAT_(symx_op_registration_, __COUNTER__) = \
      ::symx::OpRegistry::Global().Register(OpName)

}  // namespace symx

#endif  // SYMX_GRAPH_OP_H_
