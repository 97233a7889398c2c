// Bind, SimpleBind and Reshape: turning the user's arrays and options into a
// ResolvedBind (one array per argument and aux state), then a plan.
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "executor/device_workers.h"
#include "executor/exec_plan.h"
#include "executor/place.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/indexed_graph.h"
#include "graph/infer_graph.h"

namespace symx {

class ExecutorBuilder {
 public:
  static absl::StatusOr<std::unique_ptr<Executor>> Build(const Symbol& symbol,
                                                         const BindOptions& options,
                                                         ResolvedBind bind) {
    std::unique_ptr<Executor> exe(new Executor());
    exe->symbol_ = symbol;
    exe->arg_names_ = symbol.ListArguments();
    exe->aux_names_ = symbol.ListAuxiliaryStates();
    exe->output_names_ = symbol.ListOutputs();
    exe->bind_options_ = options;
    bind.ctx = options.ctx;
    bind.group2ctx = options.group2ctx;
    if (options.shared_exec != nullptr) bind.pools = options.shared_exec->pools_;
    // The sharing executor may be destroyed first; only its pools are kept.
    exe->bind_options_.shared_exec = nullptr;
    exe->plan_ = std::make_unique<ExecPlan>();
    SYMX_RETURN_IF_ERROR(BuildPlan(symbol, &bind, exe->plan_.get(), &exe->outputs_, &exe->pools_));
    if (exe->plan_->devices.size() > 1) {
      exe->workers_ = std::make_unique<DeviceWorkers>(exe->plan_->devices.size());
    }
    exe->arg_arrays_ = std::move(bind.args);
    exe->grad_arrays_ = std::move(bind.grads);
    exe->aux_arrays_ = std::move(bind.aux);
    exe->grad_reqs_ = std::move(bind.reqs);
    return exe;
  }

  static const BindOptions& options(const Executor& e) { return e.bind_options_; }
  static void CopyMonitor(const Executor& from, Executor* to) {
    to->monitor_ = from.monitor_;
    to->monitor_all_ = from.monitor_all_;
  }
};

namespace {

// One array per name from a list or a map.
absl::StatusOr<std::vector<Tensor>> ResolveArrays(const ArrayArgs& given,
                                                  const std::vector<std::string>& names,
                                                  const char* what, bool allow_missing) {
  std::vector<Tensor> out(names.size());
  if (!given.is_map()) {
    if (given.list().size() != names.size()) {
      if (allow_missing && given.list().empty()) return out;
      return absl::InvalidArgumentError(absl::StrCat(
          "Length of ", what, " does not match the number of arguments: expected ", names.size(),
          " (", absl::StrJoin(names, ", "), "), got ", given.list().size()));
    }
    return given.list();
  }
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = given.map().find(names[i]);
    if (it == given.map().end()) {
      if (allow_missing) continue;
      return absl::InvalidArgumentError(
          absl::StrCat("key `", names[i], "` is missing in `", what, "`"));
    }
    out[i] = it->second;
  }
  return out;
}

absl::Status CheckDefined(const std::vector<Tensor>& arrays, const std::vector<std::string>& names,
                          const char* what) {
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!arrays[i].defined()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the array for ", what, " ", names[i], " is undefined"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckContexts(const std::vector<Tensor>& arrays, const Context& ctx) {
  for (const Tensor& t : arrays) {
    if (t.defined() && t.ctx() != ctx) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input array is in ", t.ctx().ToString(), " while binding with ctx=", ctx.ToString(),
          ". All arguments must be in global context (", ctx.ToString(),
          ") unless group2ctx is specified for cross-device graph."));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Executor>> TryBind(const Symbol& symbol, const BindOptions& options,
                                                  const ArrayArgs& args,
                                                  const std::optional<ArrayArgs>& args_grad,
                                                  const ArrayArgs& aux_states) {
  std::vector<std::string> arg_names = symbol.ListArguments();
  std::vector<std::string> aux_names = symbol.ListAuxiliaryStates();
  ResolvedBind bind;
  bind.ctx = options.ctx;
  SYMX_ASSIGN_OR_RETURN(bind.args, ResolveArrays(args, arg_names, "args", false));
  SYMX_RETURN_IF_ERROR(CheckDefined(bind.args, arg_names, "argument"));
  SYMX_ASSIGN_OR_RETURN(bind.aux, ResolveArrays(aux_states, aux_names, "aux_states", false));
  SYMX_RETURN_IF_ERROR(CheckDefined(bind.aux, aux_names, "auxiliary state"));
  bind.grads.assign(arg_names.size(), Tensor());
  if (args_grad) {
    SYMX_ASSIGN_OR_RETURN(bind.grads, ResolveArrays(*args_grad, arg_names, "args_grad", true));
  }
  SYMX_ASSIGN_OR_RETURN(bind.reqs, options.grad_req.Resolve(arg_names, /*allow_empty_map=*/true));
  for (size_t i = 0; i < arg_names.size(); ++i) {
    if (!bind.grads[i].defined()) bind.reqs[i] = GradReq::kNull;
  }
  // Without group2ctx everything runs on ctx (MXNet's rule); with it, arrays
  // may live anywhere and Place/Partition move values where they are needed.
  if (options.group2ctx.empty()) {
    SYMX_RETURN_IF_ERROR(CheckContexts(bind.args, options.ctx));
    SYMX_RETURN_IF_ERROR(CheckContexts(bind.grads, options.ctx));
    SYMX_RETURN_IF_ERROR(CheckContexts(bind.aux, options.ctx));
  }
  return ExecutorBuilder::Build(symbol, options, std::move(bind));
}

// Shapes and dtypes of every argument and aux state from the forward graph.
struct ForwardInference {
  std::vector<Shape> arg_shapes, aux_shapes;
  std::vector<DType> arg_types, aux_types;
};

absl::StatusOr<ForwardInference> InferForward(
    const Symbol& symbol, const std::map<std::string, Shape>& shapes,
    const std::optional<std::map<std::string, DType>>& type_dict) {
  IndexedGraph g(symbol.outputs());
  SYMX_ASSIGN_OR_RETURN(ShapeTable st, InitialShapes(g));
  SYMX_ASSIGN_OR_RETURN(TypeTable tt, InitialTypes(g));
  SYMX_RETURN_IF_ERROR(SeedInputs(g, shapes, type_dict, &st, &tt));
  size_t unknown = 0;
  SYMX_RETURN_IF_ERROR(InferShapes(g, &st, &unknown));
  SYMX_RETURN_IF_ERROR(InferTypes(g, &tt, &unknown));
  ForwardInference out;
  std::vector<std::string> bad_shapes, bad_types;
  auto collect = [&](const std::vector<uint32_t>& nodes, std::vector<Shape>* s,
                     std::vector<DType>* t) {
    for (uint32_t nid : nodes) {
      uint32_t e = g.entry_id(nid, 0);
      s->push_back(st[e]);
      t->push_back(tt[e]);
      if (!st[e].fully_known() && bad_shapes.size() < 10) {
        bad_shapes.push_back(absl::StrCat(g[nid].node->name(), ": ", st[e].ToString()));
      }
      if (tt[e] == DType::kUnknown && bad_types.size() < 10) {
        bad_types.push_back(absl::StrCat(g[nid].node->name(), ": -1"));
      }
    }
  };
  collect(g.arg_nodes(), &out.arg_shapes, &out.arg_types);
  collect(g.aux_nodes(), &out.aux_shapes, &out.aux_types);
  if (!bad_shapes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "InferShape pass cannot decide shapes for the following arguments (? means unknown "
        "dimensions). Please consider providing them as inputs:\n",
        absl::StrJoin(bad_shapes, ", ")));
  }
  if (!bad_types.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "InferType pass cannot decide dtypes for the following arguments (-1 means unknown "
        "dtype). Please consider providing them as inputs:\n",
        absl::StrJoin(bad_types, ", ")));
  }
  return out;
}

std::string DescribeSimpleBindArgs(const SimpleBindOptions& o) {
  std::string out;
  for (const auto& [name, shape] : o.shapes)
    absl::StrAppend(&out, name, ": ", shape.ToTupleString(), "\n");
  if (o.type_dict) {
    for (const auto& [name, dtype] : *o.type_dict)
      absl::StrAppend(&out, name, ": ", DTypeName(dtype), "\n");
  }
  return out;
}

// MXNet's ReshapeOrCreate for bucketing inputs: a view of the buffer's array
// when it is large enough, else a new zero array that replaces it.
absl::StatusOr<Tensor> ReshapeOrCreate(const std::string& key, const Shape& shape, DType dtype,
                                       const Context& ctx, std::map<std::string, Tensor>* buffer,
                                       std::map<Context, size_t>* allocated) {
  auto it = buffer->find(key);
  if (it != buffer->end()) {
    const Tensor& have = it->second;
    // Large enough: reuse as a view, which needs the same dtype. Too small:
    // replaced below whatever its dtype (MXNet's order of checks).
    if (have.size() >= shape.Size()) {
      if (have.dtype() != dtype) {
        return absl::InvalidArgumentError(absl::StrCat("shared_buffer array ", key, " is ",
                                                       DTypeName(have.dtype()),
                                                       ", the executor needs ", DTypeName(dtype)));
      }
      return have.View(shape);
    }
    std::fprintf(stderr,
                 "symx: Bucketing: data %s has a shape %s, which is larger than already allocated "
                 "shape %s. Need to re-allocate. Consider putting default bucket key to be the "
                 "bucket taking the largest input for better memory sharing.\n",
                 key.c_str(), shape.ToString().c_str(), have.shape().ToString().c_str());
  }
  SYMX_ASSIGN_OR_RETURN(Tensor fresh, Tensor::Zeros(shape, dtype, ctx));
  (*allocated)[ctx] += fresh.nbytes();
  (*buffer)[key] = fresh;
  return fresh;
}

absl::StatusOr<std::unique_ptr<Executor>> TrySimpleBind(const Symbol& symbol,
                                                        const SimpleBindOptions& o) {
  SYMX_ASSIGN_OR_RETURN(ForwardInference inf, InferForward(symbol, o.shapes, o.type_dict));
  std::vector<std::string> arg_names = symbol.ListArguments();
  std::vector<std::string> aux_names = symbol.ListAuxiliaryStates();
  ResolvedBind bind;
  bind.ctx = o.ctx;
  SYMX_ASSIGN_OR_RETURN(bind.reqs, o.grad_req.Resolve(arg_names));
  // Each variable is allocated on its ctx_group's context (else o.ctx).
  std::vector<Context> arg_ctx, aux_ctx;
  {
    IndexedGraph g(symbol.outputs());
    for (uint32_t nid : g.arg_nodes()) arg_ctx.push_back(VariableContext(*g[nid].node, o.ctx, o.group2ctx));
    for (uint32_t nid : g.aux_nodes()) aux_ctx.push_back(VariableContext(*g[nid].node, o.ctx, o.group2ctx));
  }
  bind.allocate_grad.assign(arg_names.size(), false);
  std::set<std::string> shared_names(o.shared_arg_names.begin(), o.shared_arg_names.end());
  std::map<std::string, Tensor> shared_args, shared_grads, shared_aux;
  if (o.shared_exec != nullptr && o.shared_buffer != nullptr) {
    shared_args = o.shared_exec->arg_dict();
    shared_grads = o.shared_exec->grad_dict();
    shared_aux = o.shared_exec->aux_dict();
  }
  auto same_array = [](const Tensor& t, const Shape& s, DType d, const std::string& name,
                       const char* what) -> absl::Status {
    if (t.shape() != s || t.dtype() != d) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Inferred shape does not match shared_exec.", what, "'s shape for ", name, ": inferred ",
          DTypeName(d), " ", s.ToString(), ", shared ", t.DebugString()));
    }
    return absl::OkStatus();
  };
  for (size_t i = 0; i < arg_names.size(); ++i) {
    const std::string& name = arg_names[i];
    const Shape& s = inf.arg_shapes[i];
    DType d = inf.arg_types[i];
    Tensor arr, grad;
    if (o.shared_buffer != nullptr && shared_names.count(name)) {
      if (o.shared_exec != nullptr) {
        auto it = shared_args.find(name);
        if (it == shared_args.end()) {
          return absl::InvalidArgumentError(
              absl::StrCat("shared argument ", name, " is not an argument of shared_exec"));
        }
        SYMX_RETURN_IF_ERROR(same_array(it->second, s, d, name, "arg_array"));
        arr = it->second;
        auto git = shared_grads.find(name);
        if (bind.reqs[i] != GradReq::kNull && git != shared_grads.end()) grad = git->second;
      }
    } else if (o.shared_buffer != nullptr) {
      SYMX_ASSIGN_OR_RETURN(
          arr, ReshapeOrCreate(name, s, d, arg_ctx[i], o.shared_buffer, &bind.allocated_array_bytes));
      if (bind.reqs[i] != GradReq::kNull) {
        SYMX_ASSIGN_OR_RETURN(grad, ReshapeOrCreate("grad of " + name, s, d, arg_ctx[i],
                                                    o.shared_buffer, &bind.allocated_array_bytes));
      }
    }
    if (!arr.defined()) {
      SYMX_ASSIGN_OR_RETURN(arr, Tensor::Zeros(s, d, arg_ctx[i]));
      bind.allocated_array_bytes[arg_ctx[i]] += arr.nbytes();
    }
    if (!grad.defined() && bind.reqs[i] != GradReq::kNull) {
      // Allocated by BuildPlan on the device that computes the gradient.
      bind.allocate_grad[i] = true;
    }
    bind.args.push_back(arr);
    bind.grads.push_back(grad);
  }
  for (size_t i = 0; i < aux_names.size(); ++i) {
    Tensor arr;
    if (o.shared_buffer != nullptr && o.shared_exec != nullptr) {
      auto it = shared_aux.find(aux_names[i]);
      if (it == shared_aux.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "auxiliary state ", aux_names[i], " is not an auxiliary state of shared_exec"));
      }
      SYMX_RETURN_IF_ERROR(
          same_array(it->second, inf.aux_shapes[i], inf.aux_types[i], aux_names[i], "aux_array"));
      arr = it->second;
    } else {
      SYMX_ASSIGN_OR_RETURN(arr, Tensor::Zeros(inf.aux_shapes[i], inf.aux_types[i], aux_ctx[i]));
      bind.allocated_array_bytes[aux_ctx[i]] += arr.nbytes();
    }
    bind.aux.push_back(arr);
  }
  BindOptions bo;
  bo.ctx = o.ctx;
  bo.group2ctx = o.group2ctx;
  bo.shared_exec = o.shared_exec;
  return ExecutorBuilder::Build(symbol, bo, std::move(bind));
}

}  // namespace

std::unique_ptr<Executor> Executor::Bind(const Symbol& symbol, const BindOptions& options,
                                         const ArrayArgs& args,
                                         const std::optional<ArrayArgs>& args_grad,
                                         const ArrayArgs& aux_states) {
  return ValueOrThrow(TryBind(symbol, options, args, args_grad, aux_states));
}

std::unique_ptr<Executor> Executor::SimpleBind(const Symbol& symbol,
                                               const SimpleBindOptions& options) {
  auto exe = TrySimpleBind(symbol, options);
  if (!exe.ok()) {
    throw Error(absl::Status(exe.status().code(), absl::StrCat("simple_bind error. Arguments:\n",
                                                               DescribeSimpleBindArgs(options),
                                                               exe.status().message())));
  }
  return *std::move(exe);
}

std::unique_ptr<Executor> Executor::Reshape(const std::map<std::string, Shape>& shapes,
                                            bool partial_shaping, bool allow_up_sizing) const {
  // Dtypes stay those of the bound arrays; shapes are re-inferred.
  std::map<std::string, DType> dtypes;
  for (size_t i = 0; i < arg_names_.size(); ++i) dtypes[arg_names_[i]] = arg_arrays_[i].dtype();
  for (size_t i = 0; i < aux_names_.size(); ++i) dtypes[aux_names_[i]] = aux_arrays_[i].dtype();
  ForwardInference inf = ValueOrThrow(InferForward(symbol_, shapes, dtypes));
  ResolvedBind bind;
  bind.ctx = bind_options_.ctx;
  bind.reqs = grad_reqs_;
  auto resize = [&](const std::string& name, const Tensor& old, const Shape& s, bool named,
                    const char* kind) -> absl::StatusOr<Tensor> {
    if (!old.defined()) return old;
    if (old.shape() == s) return old;
    if (!named && !partial_shaping) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Shape of unspecified ", kind, ": ", name, " changed from ", old.shape().ToString(),
          " to ", s.ToString(),
          ". This can cause the new executor to not share parameters with the old one. Please "
          "check for error in network. If this is intended, set partial_shaping=True to "
          "suppress this warning."));
    }
    if (s.Size() > old.size()) {
      if (!allow_up_sizing) {
        return absl::InvalidArgumentError(absl::StrCat(
            "New shape of ", kind, ": ", name, " (", s.ToString(), ") is larger than original (",
            old.shape().ToString(),
            "). First making a big executor and then down sizing it is more efficient than the "
            "reverse. If you really want to up size, set allow_up_sizing=True to enable "
            "allocation of new arrays."));
      }
      auto fresh = Tensor::Zeros(s, old.dtype(), old.ctx());
      if (fresh.ok()) bind.allocated_array_bytes[old.ctx()] += fresh->nbytes();
      return fresh;
    }
    return old.View(s);
  };
  for (size_t i = 0; i < arg_names_.size(); ++i) {
    bool named = shapes.count(arg_names_[i]) != 0;
    bind.args.push_back(
        ValueOrThrow(resize(arg_names_[i], arg_arrays_[i], inf.arg_shapes[i], named, "arg")));
    bind.grads.push_back(
        ValueOrThrow(resize(arg_names_[i], grad_arrays_[i], inf.arg_shapes[i], named, "arg")));
  }
  for (size_t i = 0; i < aux_names_.size(); ++i) {
    bind.aux.push_back(
        ValueOrThrow(resize(aux_names_[i], aux_arrays_[i], inf.aux_shapes[i], false, "aux")));
  }
  BindOptions bo = bind_options_;
  bo.shared_exec = this;
  std::unique_ptr<Executor> exe =
      ValueOrThrow(ExecutorBuilder::Build(symbol_, bo, std::move(bind)));
  ExecutorBuilder::CopyMonitor(*this, exe.get());
  return exe;
}

}  // namespace symx
