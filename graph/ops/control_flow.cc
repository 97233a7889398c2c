// Control-flow ops: _foreach, _cond and _while_loop (MXNet 1.9.1's src/operator/control_flow.cc).
// Parameters and the checks of the body graph, shape and dtype inference
// through the body, and the gradient, a _backward_foreach node that runs the
// body's backward step by step in reverse (devices/geometry/control_flow.h).
#include "graph/ops/control_flow.h"

#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/indexed_graph.h"
#include "graph/infer_graph.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {

int64_t ForeachParam::BodyInputOf(int i) const {
  if (i < num_data()) return in_data_locs[i];
  i -= num_data();
  if (i < num_states()) return in_state_locs[i];
  return remain_locs[i - num_states()];
}

Shape StepShape(const Shape& data) {
  if (!data.ndim_known() || data.ndim() == 0) return Shape();
  if (data.ndim() == 1) return Shape{1};
  return Shape(std::vector<int64_t>(data.dims().begin() + 1, data.dims().end()));
}

namespace {

absl::StatusOr<OpParamPtr> ParseForeach(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ForeachParam>();
  p->num_args = r.Int("num_args");
  p->num_outputs = r.Int("num_outputs");
  p->num_out_data = r.Int("num_out_data");
  p->in_state_locs = r.Tuple("in_state_locs");
  p->in_data_locs = r.Tuple("in_data_locs");
  p->remain_locs = r.Tuple("remain_locs");
  if (p->num_args < 1) r.Fail("num_args", "must be at least 1");
  if (p->num_outputs < 1) r.Fail("num_outputs", "must be at least 1");
  if (p->num_out_data < 0 || p->num_out_data > p->num_outputs) {
    r.Fail("num_out_data", absl::StrCat("must be in [0, num_outputs = ", p->num_outputs, "]"));
  }
  if (p->in_data_locs.empty()) r.Fail("in_data_locs", "must name at least one data input");
  const size_t locs = p->in_data_locs.size() + p->in_state_locs.size() + p->remain_locs.size();
  if (p->num_args >= 1 && static_cast<int64_t>(locs) != p->num_args - 1) {
    r.Fail("num_args", absl::StrCat("is ", p->num_args, " but in_data_locs, in_state_locs and ",
                                    "remain_locs place ", locs, " inputs (num_args counts the ",
                                    "body as one more)"));
  }
  if (p->num_outputs - p->num_out_data != static_cast<int64_t>(p->in_state_locs.size()) &&
      p->num_out_data >= 0 && p->num_out_data <= p->num_outputs) {
    r.Fail("in_state_locs", absl::StrCat("has ", p->in_state_locs.size(),
                                         " states but num_outputs - num_out_data = ",
                                         p->num_outputs - p->num_out_data, " outputs are states"));
  }
  for (const char* key : {"in_state_locs", "in_data_locs", "remain_locs"}) {
    const std::vector<int64_t>& v = std::string(key) == "in_state_locs"  ? p->in_state_locs
                                    : std::string(key) == "in_data_locs" ? p->in_data_locs
                                                                         : p->remain_locs;
    for (int64_t loc : v) {
      if (loc < 0 || loc >= static_cast<int64_t>(locs)) {
        r.Fail(key,
               absl::StrCat("location ", loc, " is out of range for a body of ", locs, " inputs"));
        break;
      }
    }
  }
  return r.Finish(std::move(p));
}

std::vector<std::string> ForeachInputNames(const NodeAttrs& attrs) {
  auto p = ParamsOf<ForeachParam>(attrs, ParseForeach);
  std::vector<std::string> names;
  if (p == nullptr) return names;
  for (int i = 0; i < p->num_inputs(); ++i) names.push_back(absl::StrCat("data", i));
  return names;
}

// The body's inputs: every node input is placed exactly once, and the body's
// variables and outputs are as many as the parameters say.
absl::Status CheckForeachBody(const NodeAttrs& attrs, size_t num_inputs) {
  const auto& p = Param<ForeachParam>(attrs);
  const Subgraph& body = *attrs.subgraphs[0];
  IndexedGraph g(body.outputs);
  const size_t body_inputs = g.input_nodes().size();
  if (body_inputs != num_inputs) {
    return absl::InvalidArgumentError(
        absl::StrCat("the body has ", body_inputs, " inputs (variables) but the node has ",
                     num_inputs, " (num_args = ", p.num_args, " counts the body as one more)"));
  }
  std::set<int64_t> seen;
  for (int i = 0; i < p.num_inputs(); ++i) {
    int64_t loc = p.BodyInputOf(i);
    if (!seen.insert(loc).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "body input ", loc, " is named twice by in_data_locs, in_state_locs ",
          "and remain_locs (", absl::StrJoin(p.in_data_locs, ","), "; ",
          absl::StrJoin(p.in_state_locs, ","), "; ", absl::StrJoin(p.remain_locs, ","), ")"));
    }
  }
  if (static_cast<int64_t>(body.outputs.size()) != p.num_outputs) {
    return absl::InvalidArgumentError(absl::StrCat("the body has ", body.outputs.size(),
                                                   " outputs but num_outputs = ", p.num_outputs));
  }
  return absl::OkStatus();
}

absl::Status RequireBody(const NodeAttrs& attrs) {
  if (attrs.subgraphs.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("needs its body graph (one subgraph) but has ", attrs.subgraphs.size(),
                     "; a _foreach node is made by loading MXNet's JSON, which carries it"));
  }
  return absl::OkStatus();
}

template <typename T>
T Unknown() {
  if constexpr (std::is_same_v<T, DType>) {
    return DType::kUnknown;
  } else {
    return T();
  }
}

absl::Status Assign(std::vector<Shape>* v, size_t i, const Shape& x, const std::string& what) {
  return x.ndim_known() ? AssignShape(v, i, x, what) : absl::OkStatus();
}
absl::Status Assign(std::vector<DType>* v, size_t i, DType x, const std::string& what) {
  return x == DType::kUnknown ? absl::OkStatus() : AssignType(v, i, x, what);
}

// Runs `infer` over the body with its inputs and outputs seeded from `in`
// (by body position) and `out`, then copies what it found back.
template <typename T, typename SeedFn, typename InferFn>
absl::Status InferBody(const Subgraph& body, std::vector<T>* in, std::vector<T>* out,
                       const SeedFn& seed, const InferFn& infer, const char* what) {
  IndexedGraph g(body.outputs);
  SYMX_ASSIGN_OR_RETURN(std::vector<T> table, seed(g));
  const std::vector<uint32_t>& inputs = g.input_nodes();
  auto merge = [&](uint32_t entry, const T& value, const std::string& slot) -> absl::Status {
    std::vector<T> one{table[entry]};
    absl::Status s;
    if constexpr (std::is_same_v<T, Shape>) {
      s = AssignShape(&one, 0, value, slot);
    } else {
      s = AssignType(&one, 0, value, slot);
    }
    table[entry] = one[0];
    return s;
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    SYMX_RETURN_IF_ERROR(merge(g.entry_id(inputs[i], 0), (*in)[i],
                               absl::StrCat("body input ", g[inputs[i]].node->name())));
  }
  for (size_t j = 0; j < out->size(); ++j) {
    SYMX_RETURN_IF_ERROR(
        merge(g.entry_id(g.outputs()[j]), (*out)[j], absl::StrCat("body output ", j)));
  }
  size_t unknown = 0;
  absl::Status s = infer(g, &table, &unknown);
  if (!s.ok()) return Annotate(s, absl::StrCat("in the body's ", what, " inference"));
  for (size_t i = 0; i < inputs.size(); ++i) (*in)[i] = table[g.entry_id(inputs[i], 0)];
  for (size_t j = 0; j < out->size(); ++j) (*out)[j] = table[g.entry_id(g.outputs()[j])];
  return absl::OkStatus();
}

absl::Status ForeachInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                               std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(RequireBody(attrs));
  const auto& p = Param<ForeachParam>(attrs);
  const int nd = p.num_data();
  // Every data input runs the same number of steps.
  int64_t len = kUnknownDim;
  for (int i = 0; i < nd; ++i) {
    const Shape& s = (*in)[i];
    if (!s.ndim_known()) continue;
    if (s.ndim() == 0) return ShapeError(absl::StrCat("data input ", i), s, "at least 1 dim");
    if (!s.dim_known(0)) continue;
    if (len != kUnknownDim && s[0] != len) {
      return absl::InvalidArgumentError(
          absl::StrCat("data input ", i, " has ", s[0], " steps along axis 0 but an earlier ",
                       "data input has ", len, " (shapes ", s.ToString(), ")"));
    }
    len = s[0];
  }
  std::vector<Shape> body_in(p.num_inputs()), body_out(p.num_outputs);
  for (int i = 0; i < p.num_inputs(); ++i) {
    body_in[p.BodyInputOf(i)] = i < nd ? StepShape((*in)[i]) : (*in)[i];
  }
  for (int j = 0; j < p.num_outputs; ++j) {
    body_out[j] = j < p.num_out_data ? StepShape((*out)[j]) : (*out)[j];
  }
  SYMX_RETURN_IF_ERROR(
      InferBody(*attrs.subgraphs[0], &body_in, &body_out, InitialShapes, InferShapes, "shape"));
  auto stacked = [len](const Shape& step) {
    std::vector<int64_t> dims{len};
    dims.insert(dims.end(), step.dims().begin(), step.dims().end());
    return Shape(std::move(dims));
  };
  for (int i = 0; i < p.num_inputs(); ++i) {
    const Shape& b = body_in[p.BodyInputOf(i)];
    if (!b.ndim_known()) continue;
    if (i >= nd) {
      SYMX_RETURN_IF_ERROR(AssignShape(in, i, b, absl::StrCat("input data", i)));
    } else if ((*in)[i].ndim() == 1) {
      SYMX_RETURN_IF_ERROR(AssignShape(in, i, Shape{len}, absl::StrCat("input data", i)));
    } else {
      SYMX_RETURN_IF_ERROR(AssignShape(in, i, stacked(b), absl::StrCat("input data", i)));
    }
  }
  for (int j = 0; j < p.num_outputs; ++j) {
    const Shape& b = body_out[j];
    if (!b.ndim_known()) continue;
    SYMX_RETURN_IF_ERROR(
        AssignShape(out, j, j < p.num_out_data ? stacked(b) : b, absl::StrCat("output ", j)));
  }
  // A state keeps its shape from step to step.
  for (int k = 0; k < p.num_states(); ++k) {
    const Shape& init = (*in)[nd + k];
    const Shape& last = (*out)[p.num_out_data + k];
    if (init.fully_known() && last.fully_known() && init != last) {
      return absl::InvalidArgumentError(
          absl::StrCat("state ", k, " enters the body as ", init.ToString(),
                       " but the body returns it as ", last.ToString()));
    }
  }
  return absl::OkStatus();
}

absl::Status ForeachInferType(const NodeAttrs& attrs, std::vector<DType>* in,
                              std::vector<DType>* out) {
  SYMX_RETURN_IF_ERROR(RequireBody(attrs));
  const auto& p = Param<ForeachParam>(attrs);
  std::vector<DType> body_in(p.num_inputs(), DType::kUnknown);
  for (int i = 0; i < p.num_inputs(); ++i) body_in[p.BodyInputOf(i)] = (*in)[i];
  SYMX_RETURN_IF_ERROR(
      InferBody(*attrs.subgraphs[0], &body_in, out, InitialTypes, InferTypes, "dtype"));
  for (int i = 0; i < p.num_inputs(); ++i) {
    DType t = body_in[p.BodyInputOf(i)];
    if (t == DType::kUnknown) continue;
    SYMX_RETURN_IF_ERROR(AssignType(in, i, t, absl::StrCat("input data", i)));
  }
  return absl::OkStatus();
}

// _backward_foreach(ograd0.., data0..) -> grad of each node input; it carries
// the forward node's body.
std::vector<NodeEntry> ForeachGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  std::vector<NodeEntry> inputs = FillZeroGrads(n, ograds);
  for (const NodeEntry& e : n->inputs) inputs.push_back(e);
  std::vector<NodeEntry> grads = MakeBackwardNode("_backward_foreach", n, std::move(inputs));
  grads[0].node->attrs.subgraphs = n->attrs.subgraphs;
  return grads;
}

std::vector<std::string> BackwardForeachInputs(const NodeAttrs& attrs) {
  const auto& p = Param<ForeachParam>(attrs);
  std::vector<std::string> names;
  for (int j = 0; j < p.num_outputs; ++j) names.push_back(absl::StrCat("ograd", j));
  for (int i = 0; i < p.num_inputs(); ++i) names.push_back(absl::StrCat("data", i));
  return names;
}

SYMX_REGISTER_OP("_foreach")
    .Describe("Runs a body graph over the rows of its data inputs along axis 0, carrying states")
    .SetParse(ParseForeach)
    .SetInputNames(ForeachInputNames)
    .SetOutputNames([](const NodeAttrs& attrs) {
      std::vector<std::string> names;
      for (int j = 0; j < Param<ForeachParam>(attrs).num_outputs; ++j) {
        names.push_back(absl::StrCat("output", j));
      }
      return names;
    })
    .SetSubgraphs(1, CheckForeachBody)
    .SetInferShape(ForeachInferShape)
    .SetInferType(ForeachInferType)
    .SetGradient(ForeachGradient);

// ------------------------------------------------------------------ _cond

absl::StatusOr<OpParamPtr> ParseCond(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<CondParam>();
  p->num_args = r.Int("num_args");
  p->num_outputs = r.Int("num_outputs");
  p->cond_input_locs = r.Tuple("cond_input_locs");
  p->then_input_locs = r.Tuple("then_input_locs");
  p->else_input_locs = r.Tuple("else_input_locs");
  if (p->num_args < 3) r.Fail("num_args", "must be at least 3 (the three bodies count as inputs)");
  if (p->num_outputs < 1) r.Fail("num_outputs", "must be at least 1");
  const char* keys[] = {"cond_input_locs", "then_input_locs", "else_input_locs"};
  for (int b = 0; b < 3; ++b) {
    std::set<int64_t> seen;
    for (int64_t loc : p->LocsOf(b)) {
      if (loc < 0 || loc >= p->num_args - 3) {
        r.Fail(keys[b], absl::StrCat("location ", loc, " is out of range for ", p->num_args - 3,
                                     " inputs (num_args - 3)"));
        break;
      }
      if (!seen.insert(loc).second) {
        r.Fail(keys[b], absl::StrCat("names input ", loc, " twice"));
        break;
      }
    }
  }
  return r.Finish(std::move(p));
}

std::vector<std::string> CondInputNames(const NodeAttrs& attrs) {
  auto p = ParamsOf<CondParam>(attrs, ParseCond);
  std::vector<std::string> names;
  if (p == nullptr) return names;
  for (int i = 0; i < p->num_inputs(); ++i) names.push_back(absl::StrCat("data", i));
  return names;
}

const char* const kCondBodies[] = {"cond", "then", "else"};

absl::Status CheckCondBodies(const NodeAttrs& attrs, size_t num_inputs) {
  const auto& p = Param<CondParam>(attrs);
  if (static_cast<int>(num_inputs) != p.num_inputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "has ", num_inputs, " inputs but num_args = ", p.num_args, " (the node's inputs plus 3)"));
  }
  for (int b = 0; b < 3; ++b) {
    const Subgraph& body = *attrs.subgraphs[b];
    IndexedGraph g(body.outputs);
    if (g.input_nodes().size() != p.LocsOf(b).size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the ", kCondBodies[b], " body has ", g.input_nodes().size(), " inputs (variables) but ",
          kCondBodies[b], "_input_locs names ", p.LocsOf(b).size()));
    }
    const size_t want = b == 0 ? 1 : static_cast<size_t>(p.num_outputs);
    if (body.outputs.size() != want) {
      return absl::InvalidArgumentError(
          absl::StrCat("the ", kCondBodies[b], " body has ", body.outputs.size(), " outputs but ",
                       b == 0 ? "a condition has 1" : "num_outputs = ",
                       b == 0 ? "" : absl::StrCat(p.num_outputs)));
    }
  }
  return absl::OkStatus();
}

absl::Status RequireCondBodies(const NodeAttrs& attrs) {
  if (attrs.subgraphs.size() != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "needs its cond, then and else bodies (three subgraphs) but has ", attrs.subgraphs.size()));
  }
  return absl::OkStatus();
}

// Each body runs on the node inputs its locations name; both branches give
// the outputs, which must agree (MXNet 1.9.1 leaves them to run time).
template <typename T, typename SeedFn, typename InferFn>
absl::Status InferCond(const NodeAttrs& attrs, std::vector<T>* in, std::vector<T>* out,
                       const SeedFn& seed, const InferFn& infer, const char* what) {
  SYMX_RETURN_IF_ERROR(RequireCondBodies(attrs));
  const auto& p = Param<CondParam>(attrs);
  for (int b = 0; b < 3; ++b) {
    const std::vector<int64_t>& locs = p.LocsOf(b);
    std::vector<T> body_in;
    for (int64_t loc : locs) body_in.push_back((*in)[loc]);
    std::vector<T> body_out = b == 0 ? std::vector<T>{Unknown<T>()} : *out;
    absl::Status s = InferBody(*attrs.subgraphs[b], &body_in, &body_out, seed, infer, what);
    if (!s.ok()) return Annotate(s, absl::StrCat("the ", kCondBodies[b], " body"));
    for (size_t k = 0; k < locs.size(); ++k) {
      SYMX_RETURN_IF_ERROR(Assign(in, locs[k], body_in[k], absl::StrCat("input data", locs[k])));
    }
    if (b == 0) continue;
    for (size_t j = 0; j < out->size(); ++j) {
      SYMX_RETURN_IF_ERROR(
          Assign(out, j, body_out[j],
                 absl::StrCat("output ", j, " (from the ", kCondBodies[b], " body)")));
    }
  }
  return absl::OkStatus();
}

absl::Status CondInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  return InferCond(attrs, in, out, InitialShapes, InferShapes, "shape");
}

absl::Status CondInferType(const NodeAttrs& attrs, std::vector<DType>* in,
                           std::vector<DType>* out) {
  return InferCond(attrs, in, out, InitialTypes, InferTypes, "dtype");
}

// _backward_cond(ograd0.., data0..) -> grad of each node input: the taken
// branch's, zero for inputs it does not read.
std::vector<NodeEntry> CondGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  std::vector<NodeEntry> inputs = FillZeroGrads(n, ograds);
  for (const NodeEntry& e : n->inputs) inputs.push_back(e);
  std::vector<NodeEntry> grads = MakeBackwardNode("_backward_cond", n, std::move(inputs));
  grads[0].node->attrs.subgraphs = n->attrs.subgraphs;
  return grads;
}

std::vector<std::string> BackwardCondInputs(const NodeAttrs& attrs) {
  const auto& p = Param<CondParam>(attrs);
  std::vector<std::string> names;
  for (int j = 0; j < p.num_outputs; ++j) names.push_back(absl::StrCat("ograd", j));
  for (int i = 0; i < p.num_inputs(); ++i) names.push_back(absl::StrCat("data", i));
  return names;
}

SYMX_REGISTER_OP("_cond")
    .Describe("Runs the then or the else body as the cond body's one-element output is nonzero")
    .SetParse(ParseCond)
    .SetInputNames(CondInputNames)
    .SetOutputNames([](const NodeAttrs& attrs) {
      std::vector<std::string> names;
      for (int j = 0; j < Param<CondParam>(attrs).num_outputs; ++j) {
        names.push_back(absl::StrCat("output", j));
      }
      return names;
    })
    .SetSubgraphs(3, CheckCondBodies)
    .SetInferShape(CondInferShape)
    .SetInferType(CondInferType)
    .SetGradient(CondGradient);

// ------------------------------------------------------------------ _while_loop

absl::StatusOr<OpParamPtr> ParseWhileLoop(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<WhileLoopParam>();
  p->num_args = r.Int("num_args");
  p->num_outputs = r.Int("num_outputs");
  p->num_out_data = r.Int("num_out_data");
  p->max_iterations = r.Int("max_iterations");
  p->cond_input_locs = r.Tuple("cond_input_locs");
  p->func_input_locs = r.Tuple("func_input_locs");
  p->func_var_locs = r.Tuple("func_var_locs");
  if (p->num_args < 2) r.Fail("num_args", "must be at least 2 (the two bodies count as inputs)");
  if (p->num_outputs < 1) r.Fail("num_outputs", "must be at least 1");
  if (p->num_out_data < 0) r.Fail("num_out_data", "must be at least 0");
  if (p->max_iterations < 1) r.Fail("max_iterations", "must be at least 1");
  if (p->num_outputs - p->num_out_data != static_cast<int64_t>(p->func_var_locs.size())) {
    r.Fail("func_var_locs", absl::StrCat("names ", p->func_var_locs.size(),
                                         " loop variables but num_outputs - num_out_data = ",
                                         p->num_outputs - p->num_out_data));
  }
  for (const char* key : {"cond_input_locs", "func_input_locs"}) {
    const std::vector<int64_t>& v =
        std::string(key) == "cond_input_locs" ? p->cond_input_locs : p->func_input_locs;
    std::set<int64_t> seen;
    for (int64_t loc : v) {
      if (loc < 0 || loc >= p->num_args - 2) {
        r.Fail(key, absl::StrCat("location ", loc, " is out of range for ", p->num_args - 2,
                                 " inputs (num_args - 2)"));
        break;
      }
      if (!seen.insert(loc).second) {
        r.Fail(key, absl::StrCat("names input ", loc, " twice"));
        break;
      }
    }
  }
  std::set<int64_t> seen;
  for (int64_t loc : p->func_var_locs) {
    if (loc < 0 || loc >= static_cast<int64_t>(p->func_input_locs.size())) {
      r.Fail("func_var_locs", absl::StrCat("location ", loc, " is out of range for func's ",
                                           p->func_input_locs.size(), " inputs"));
      break;
    }
    if (!seen.insert(loc).second) {
      r.Fail("func_var_locs", absl::StrCat("names func input ", loc, " twice"));
      break;
    }
  }
  return r.Finish(std::move(p));
}

std::vector<std::string> WhileLoopInputNames(const NodeAttrs& attrs) {
  auto p = ParamsOf<WhileLoopParam>(attrs, ParseWhileLoop);
  std::vector<std::string> names;
  if (p == nullptr) return names;
  for (int i = 0; i < p->num_inputs(); ++i) names.push_back(absl::StrCat("data", i));
  return names;
}

const char* const kLoopBodies[] = {"cond", "func"};

absl::Status CheckWhileLoopBodies(const NodeAttrs& attrs, size_t num_inputs) {
  const auto& p = Param<WhileLoopParam>(attrs);
  if (static_cast<int>(num_inputs) != p.num_inputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "has ", num_inputs, " inputs but num_args = ", p.num_args, " (the node's inputs plus 2)"));
  }
  for (int b = 0; b < 2; ++b) {
    const Subgraph& body = *attrs.subgraphs[b];
    IndexedGraph g(body.outputs);
    if (g.input_nodes().size() != p.LocsOf(b).size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the ", kLoopBodies[b], " body has ", g.input_nodes().size(), " inputs (variables) but ",
          kLoopBodies[b], "_input_locs names ", p.LocsOf(b).size()));
    }
    const size_t want = b == 0 ? 1 : static_cast<size_t>(p.num_outputs);
    if (body.outputs.size() != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the ", kLoopBodies[b], " body has ", body.outputs.size(), " outputs but ",
          b == 0 ? "a condition has 1" : absl::StrCat("num_outputs = ", p.num_outputs)));
    }
  }
  return absl::OkStatus();
}

absl::Status RequireLoopBodies(const NodeAttrs& attrs) {
  if (attrs.subgraphs.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "needs its cond and func bodies (two subgraphs) but has ", attrs.subgraphs.size()));
  }
  return absl::OkStatus();
}

// func's step outputs are the op's rows; a loop variable keeps its input's
// shape and dtype. MXNet 1.9.1 has no shape function for _while_loop (its
// outputs' shapes are settled at run time); symx infers them.
template <typename T, typename SeedFn, typename InferFn, typename StackFn, typename RowFn>
absl::Status InferWhileLoop(const NodeAttrs& attrs, std::vector<T>* in, std::vector<T>* out,
                            const SeedFn& seed, const InferFn& infer, const StackFn& stack,
                            const RowFn& row, const char* what) {
  SYMX_RETURN_IF_ERROR(RequireLoopBodies(attrs));
  const auto& p = Param<WhileLoopParam>(attrs);
  for (int v = 0; v < p.num_vars(); ++v) {
    const int j = static_cast<int>(p.num_out_data) + v;
    SYMX_RETURN_IF_ERROR(Assign(out, j, (*in)[p.VarInput(v)], absl::StrCat("output ", j)));
    SYMX_RETURN_IF_ERROR(
        Assign(in, p.VarInput(v), (*out)[j], absl::StrCat("input data", p.VarInput(v))));
  }
  for (int b = 0; b < 2; ++b) {
    const std::vector<int64_t>& locs = p.LocsOf(b);
    std::vector<T> body_in;
    for (int64_t loc : locs) body_in.push_back((*in)[loc]);
    std::vector<T> body_out(b == 0 ? 1 : out->size(), Unknown<T>());
    for (size_t j = 0; b == 1 && j < out->size(); ++j) {
      body_out[j] = static_cast<int64_t>(j) < p.num_out_data ? row((*out)[j]) : (*out)[j];
    }
    absl::Status s = InferBody(*attrs.subgraphs[b], &body_in, &body_out, seed, infer, what);
    if (!s.ok()) return Annotate(s, absl::StrCat("the ", kLoopBodies[b], " body"));
    for (size_t k = 0; k < locs.size(); ++k) {
      SYMX_RETURN_IF_ERROR(Assign(in, locs[k], body_in[k], absl::StrCat("input data", locs[k])));
    }
    if (b == 0) continue;
    for (size_t j = 0; j < out->size(); ++j) {
      const bool data = static_cast<int64_t>(j) < p.num_out_data;
      SYMX_RETURN_IF_ERROR(
          Assign(out, j, data ? stack(body_out[j]) : body_out[j], absl::StrCat("output ", j)));
    }
  }
  for (int v = 0; v < p.num_vars(); ++v) {
    const int j = static_cast<int>(p.num_out_data) + v;
    SYMX_RETURN_IF_ERROR(Assign(
        in, p.VarInput(v), (*out)[j],
        absl::StrCat("loop variable ", v, " (input data", p.VarInput(v), ", output ", j, ")")));
  }
  return absl::OkStatus();
}

absl::Status WhileLoopInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  const int64_t rows = Param<WhileLoopParam>(attrs).max_iterations;
  auto stack = [rows](const Shape& step) {
    if (!step.ndim_known()) return Shape();
    std::vector<int64_t> dims{rows};
    dims.insert(dims.end(), step.dims().begin(), step.dims().end());
    return Shape(std::move(dims));
  };
  auto row = [](const Shape& s) {
    if (!s.ndim_known() || s.ndim() == 0) return Shape();
    return Shape(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end()));
  };
  return InferWhileLoop(attrs, in, out, InitialShapes, InferShapes, stack, row, "shape");
}

absl::Status WhileLoopInferType(const NodeAttrs& attrs, std::vector<DType>* in,
                                std::vector<DType>* out) {
  auto same = [](DType t) { return t; };
  return InferWhileLoop(attrs, in, out, InitialTypes, InferTypes, same, same, "dtype");
}

std::vector<NodeEntry> WhileLoopGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  std::vector<NodeEntry> inputs = FillZeroGrads(n, ograds);
  for (const NodeEntry& e : n->inputs) inputs.push_back(e);
  std::vector<NodeEntry> grads = MakeBackwardNode("_backward_while_loop", n, std::move(inputs));
  grads[0].node->attrs.subgraphs = n->attrs.subgraphs;
  return grads;
}

std::vector<std::string> BackwardWhileLoopInputs(const NodeAttrs& attrs) {
  const auto& p = Param<WhileLoopParam>(attrs);
  std::vector<std::string> names;
  for (int j = 0; j < p.num_outputs; ++j) names.push_back(absl::StrCat("ograd", j));
  for (int i = 0; i < p.num_inputs(); ++i) names.push_back(absl::StrCat("data", i));
  return names;
}

SYMX_REGISTER_OP("_while_loop")
    .Describe("Runs the func body while the cond body's output is nonzero, at most max_iterations")
    .SetParse(ParseWhileLoop)
    .SetInputNames(WhileLoopInputNames)
    .SetOutputNames([](const NodeAttrs& attrs) {
      std::vector<std::string> names;
      for (int j = 0; j < Param<WhileLoopParam>(attrs).num_outputs; ++j) {
        names.push_back(absl::StrCat("output", j));
      }
      return names;
    })
    .SetSubgraphs(2, CheckWhileLoopBodies)
    .SetInferShape(WhileLoopInferShape)
    .SetInferType(WhileLoopInferType)
    .SetGradient(WhileLoopGradient);

[[maybe_unused]] const bool kBackwardOpsRegistered = [] {
  RegisterBackwardOp(
      "_backward_foreach", ParseForeach, BackwardForeachInputs,
      [](const NodeAttrs& attrs) { return Param<ForeachParam>(attrs).num_inputs(); });
  RegisterBackwardOp("_backward_cond", ParseCond, BackwardCondInputs,
                     [](const NodeAttrs& attrs) { return Param<CondParam>(attrs).num_inputs(); });
  RegisterBackwardOp(
      "_backward_while_loop", ParseWhileLoop, BackwardWhileLoopInputs,
      [](const NodeAttrs& attrs) { return Param<WhileLoopParam>(attrs).num_inputs(); });
  return true;
}();

}  // namespace
}  // namespace symx
