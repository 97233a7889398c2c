// Bind, SimpleBind and Reshape: turning the user's arrays and options into a
// ResolvedBind (one array per argument and aux state), then a plan.
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "executor/device_workers.h"
#include "executor/exec_plan.h"
#include "executor/executor.h"
#include "executor/passes/passes.h"
#include "executor/place.h"
#include "executor/run_state.h"
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
    bind.comm = options.comm;
    bind.comm_timeout = options.comm_timeout;
    bind.engine = options.engine;
    // Ranks that plan with different switches would cut different graphs.
    bind.request.push_back("engine " + options.engine.ToString());
    bind.ranks = RanksOf(options.comm);
    if (options.shared_exec != nullptr) bind.pools = options.shared_exec->pools_;
    // The sharing executor may be destroyed first; only its pools are kept.
    exe->bind_options_.shared_exec = nullptr;
    auto plan = std::make_unique<ExecPlan>();
    SYMX_RETURN_IF_ERROR(BuildPlan(symbol, &bind, plan.get(), &exe->outputs_, &exe->pools_));
    exe->run_ = std::make_unique<RunState>(*plan);
    exe->plan_ = std::move(plan);
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
  static RankView RanksOf(const std::shared_ptr<Communicator>& comm) {
    RankView ranks;
    if (comm != nullptr && comm->size() > 1) {
      ranks.self = comm->rank();
      ranks.size = comm->size();
    }
    return ranks;
  }
  static absl::StatusOr<std::unique_ptr<Executor>> TryReshape(
      const Executor& old, const std::map<std::string, Shape>& shapes, bool partial_shaping,
      bool allow_up_sizing, Rendezvous* rendezvous);
  static void CopyMonitor(const Executor& from, Executor* to) {
    to->monitor_ = from.monitor_;
    to->monitor_all_ = from.monitor_all_;
  }
};

namespace {

using ExecutorOr = absl::StatusOr<std::unique_ptr<Executor>>;

// Runs a bind; in a cross-rank bind, under a Rendezvous so that a rank that
// fails makes every rank fail (distributed/agreement.h).
ExecutorOr AcrossRanks(const std::shared_ptr<Communicator>& comm, absl::Duration timeout,
                       const std::function<ExecutorOr(Rendezvous*)>& try_bind) {
  if (!ExecutorBuilder::RanksOf(comm).cross_rank()) return try_bind(nullptr);
  Rendezvous rendezvous(*comm, "bind", timeout);
  ExecutorOr exe = absl::InternalError("bind did not run");
  try {
    exe = try_bind(&rendezvous);
  } catch (const std::exception& e) {
    if (!rendezvous.settled()) {
      rendezvous.Abandon(absl::InternalError(absl::StrCat("bind failed: ", e.what())));
    }
    throw;
  }
  if (!exe.ok() && !rendezvous.settled()) rendezvous.Abandon(exe.status());
  return exe;
}

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

ExecutorOr TryBind(const Symbol& symbol, const BindOptions& options, const ArrayArgs& args,
                   const std::optional<ArrayArgs>& args_grad, const ArrayArgs& aux_states,
                   Rendezvous* rendezvous) {
  std::vector<std::string> arg_names = symbol.ListArguments();
  std::vector<std::string> aux_names = symbol.ListAuxiliaryStates();
  // Across ranks an array is bound on one rank only; BuildPlan finds it.
  const bool cross_rank = rendezvous != nullptr;
  ResolvedBind bind;
  bind.ctx = options.ctx;
  bind.rendezvous = rendezvous;
  bind.request.push_back("bind");
  SYMX_ASSIGN_OR_RETURN(bind.args, ResolveArrays(args, arg_names, "args", cross_rank));
  SYMX_ASSIGN_OR_RETURN(bind.aux, ResolveArrays(aux_states, aux_names, "aux_states", cross_rank));
  if (!cross_rank) {
    SYMX_RETURN_IF_ERROR(CheckDefined(bind.args, arg_names, "argument"));
    SYMX_RETURN_IF_ERROR(CheckDefined(bind.aux, aux_names, "auxiliary state"));
  }
  bind.grads.assign(arg_names.size(), Tensor());
  if (args_grad) {
    SYMX_ASSIGN_OR_RETURN(bind.grads, ResolveArrays(*args_grad, arg_names, "args_grad", true));
  }
  // Arguments without a gradient array (on any rank) get null in BuildPlan.
  SYMX_ASSIGN_OR_RETURN(bind.reqs, options.grad_req.Resolve(arg_names, /*allow_empty_map=*/true));
  // Without group2ctx everything runs on ctx (MXNet's rule); with it, arrays
  // may live anywhere and Place/Partition move values where they are needed.
  if (options.group2ctx.empty() && !cross_rank) {
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

ExecutorOr TrySimpleBind(const Symbol& symbol, const SimpleBindOptions& o, Rendezvous* rendezvous) {
  SYMX_ASSIGN_OR_RETURN(ForwardInference inf, InferForward(symbol, o.shapes, o.type_dict));
  std::vector<std::string> arg_names = symbol.ListArguments();
  std::vector<std::string> aux_names = symbol.ListAuxiliaryStates();
  ResolvedBind bind;
  bind.ctx = o.ctx;
  bind.rendezvous = rendezvous;
  bind.request.push_back("simple_bind");
  for (const auto& [name, shape] : o.shapes) {
    bind.request.push_back(absl::StrCat("shape ", name, "=", shape.ToString()));
  }
  if (o.type_dict) {
    for (const auto& [name, dtype] : *o.type_dict) {
      bind.request.push_back(absl::StrCat("dtype ", name, "=", DTypeName(dtype)));
    }
  }
  SYMX_ASSIGN_OR_RETURN(bind.reqs, o.grad_req.Resolve(arg_names));
  // Each variable is allocated on its ctx_group's context (else o.ctx); in a
  // cross-rank bind only by the rank that context belongs to.
  const RankView ranks = ExecutorBuilder::RanksOf(o.comm);
  std::map<std::string, Context> group2ctx;
  for (const auto& [group, c] : o.group2ctx) group2ctx[group] = ranks.FromOption(c);
  std::vector<std::optional<Context>> arg_ctx, aux_ctx;
  {
    IndexedGraph g(symbol.outputs());
    auto home = [&](uint32_t nid) -> std::optional<Context> {
      Context c = VariableContext(*g[nid].node, ranks.FromOption(o.ctx), group2ctx);
      if (!ranks.IsLocal(c)) return std::nullopt;
      return RankView::Local(c);
    };
    for (uint32_t nid : g.arg_nodes()) arg_ctx.push_back(home(nid));
    for (uint32_t nid : g.aux_nodes()) aux_ctx.push_back(home(nid));
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
    if (!arg_ctx[i]) {
      // Another rank's array; BuildPlan allocates its gradient where it is
      // computed, which may be here.
      if (bind.reqs[i] != GradReq::kNull) bind.allocate_grad[i] = true;
      bind.args.push_back(arr);
      bind.grads.push_back(grad);
      continue;
    }
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
      SYMX_ASSIGN_OR_RETURN(arr, ReshapeOrCreate(name, s, d, *arg_ctx[i], o.shared_buffer,
                                                 &bind.allocated_array_bytes));
      if (bind.reqs[i] != GradReq::kNull) {
        SYMX_ASSIGN_OR_RETURN(grad, ReshapeOrCreate("grad of " + name, s, d, *arg_ctx[i],
                                                    o.shared_buffer, &bind.allocated_array_bytes));
      }
    }
    if (!arr.defined()) {
      SYMX_ASSIGN_OR_RETURN(arr, Tensor::Zeros(s, d, *arg_ctx[i]));
      bind.allocated_array_bytes[*arg_ctx[i]] += arr.nbytes();
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
    if (!aux_ctx[i]) {  // another rank's
      bind.aux.push_back(arr);
      continue;
    }
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
      SYMX_ASSIGN_OR_RETURN(arr, Tensor::Zeros(inf.aux_shapes[i], inf.aux_types[i], *aux_ctx[i]));
      bind.allocated_array_bytes[*aux_ctx[i]] += arr.nbytes();
    }
    bind.aux.push_back(arr);
  }
  BindOptions bo;
  bo.ctx = o.ctx;
  bo.group2ctx = o.group2ctx;
  bo.shared_exec = o.shared_exec;
  bo.comm = o.comm;
  bo.comm_timeout = o.comm_timeout;
  bo.defer_send_wait = o.defer_send_wait;
  bo.engine = o.engine;
  return ExecutorBuilder::Build(symbol, bo, std::move(bind));
}

}  // namespace

std::unique_ptr<Executor> Executor::Bind(const Symbol& symbol, const BindOptions& options,
                                         const ArrayArgs& args,
                                         const std::optional<ArrayArgs>& args_grad,
                                         const ArrayArgs& aux_states) {
  return ValueOrThrow(AcrossRanks(options.comm, options.comm_timeout, [&](Rendezvous* rv) {
    return TryBind(symbol, options, args, args_grad, aux_states, rv);
  }));
}

std::unique_ptr<Executor> Executor::SimpleBind(const Symbol& symbol,
                                               const SimpleBindOptions& options) {
  auto exe = AcrossRanks(options.comm, options.comm_timeout,
                         [&](Rendezvous* rv) { return TrySimpleBind(symbol, options, rv); });
  if (!exe.ok()) {
    throw Error(absl::Status(exe.status().code(), absl::StrCat("simple_bind error. Arguments:\n",
                                                               DescribeSimpleBindArgs(options),
                                                               exe.status().message())));
  }
  return *std::move(exe);
}

std::unique_ptr<Executor> Executor::Reshape(const std::map<std::string, Shape>& shapes,
                                            bool partial_shaping, bool allow_up_sizing) const {
  std::unique_ptr<Executor> exe =
      ValueOrThrow(AcrossRanks(bind_options_.comm, bind_options_.comm_timeout, [&](Rendezvous* rv) {
        return ExecutorBuilder::TryReshape(*this, shapes, partial_shaping, allow_up_sizing, rv);
      }));
  ExecutorBuilder::CopyMonitor(*this, exe.get());
  return exe;
}

absl::StatusOr<std::unique_ptr<Executor>> ExecutorBuilder::TryReshape(
    const Executor& old, const std::map<std::string, Shape>& shapes, bool partial_shaping,
    bool allow_up_sizing, Rendezvous* rendezvous) {
  // Dtypes stay those of the bound arrays (every rank's); shapes are re-inferred.
  std::map<std::string, DType> dtypes;
  for (size_t i = 0; i < old.arg_names_.size(); ++i) {
    dtypes[old.arg_names_[i]] = old.plan_->arg_dtypes[i];
  }
  for (size_t i = 0; i < old.aux_names_.size(); ++i) {
    dtypes[old.aux_names_[i]] = old.plan_->aux_dtypes[i];
  }
  SYMX_ASSIGN_OR_RETURN(ForwardInference inf, InferForward(old.symbol_, shapes, dtypes));
  ResolvedBind bind;
  bind.ctx = old.bind_options_.ctx;
  bind.reqs = old.grad_reqs_;
  bind.rendezvous = rendezvous;
  bind.request.push_back(absl::StrCat("reshape partial_shaping=", partial_shaping,
                                      " allow_up_sizing=", allow_up_sizing));
  for (const auto& [name, shape] : shapes) {
    bind.request.push_back(absl::StrCat("shape ", name, "=", shape.ToString()));
  }
  auto resize = [&](const std::string& name, const Tensor& array, const Shape& s, bool named,
                    const char* kind) -> absl::StatusOr<Tensor> {
    if (!array.defined()) return array;  // none, or another rank's
    if (array.shape() == s) return array;
    if (!named && !partial_shaping) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Shape of unspecified ", kind, ": ", name, " changed from ", array.shape().ToString(),
          " to ", s.ToString(),
          ". This can cause the new executor to not share parameters with the old one. Please "
          "check for error in network. If this is intended, set partial_shaping=True to "
          "suppress this warning."));
    }
    if (s.Size() > array.size()) {
      if (!allow_up_sizing) {
        return absl::InvalidArgumentError(absl::StrCat(
            "New shape of ", kind, ": ", name, " (", s.ToString(), ") is larger than original (",
            array.shape().ToString(),
            "). First making a big executor and then down sizing it is more efficient than the "
            "reverse. If you really want to up size, set allow_up_sizing=True to enable "
            "allocation of new arrays."));
      }
      auto fresh = Tensor::Zeros(s, array.dtype(), array.ctx());
      if (fresh.ok()) bind.allocated_array_bytes[array.ctx()] += fresh->nbytes();
      return fresh;
    }
    return array.View(s);
  };
  for (size_t i = 0; i < old.arg_names_.size(); ++i) {
    const std::string& name = old.arg_names_[i];
    const bool named = shapes.count(name) != 0;
    SYMX_ASSIGN_OR_RETURN(Tensor arg,
                          resize(name, old.arg_arrays_[i], inf.arg_shapes[i], named, "arg"));
    SYMX_ASSIGN_OR_RETURN(Tensor grad,
                          resize(name, old.grad_arrays_[i], inf.arg_shapes[i], named, "arg"));
    bind.args.push_back(arg);
    bind.grads.push_back(grad);
  }
  for (size_t i = 0; i < old.aux_names_.size(); ++i) {
    SYMX_ASSIGN_OR_RETURN(
        Tensor aux, resize(old.aux_names_[i], old.aux_arrays_[i], inf.aux_shapes[i], false, "aux"));
    bind.aux.push_back(aux);
  }
  BindOptions bo = old.bind_options_;
  bo.shared_exec = &old;
  return Build(old.symbol_, bo, std::move(bind));
}

}  // namespace symx
