#include "executor/imperative.h"

#include <algorithm>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/kernel_choice.h"
#include "graph/error.h"
#include "graph/node.h"
#include "graph/op.h"

namespace symx {
namespace {

// Ops only the engine places; an imperative call has no peer to talk to.
bool EngineOnly(const std::string& name) {
  return name == "_CrossDeviceCopy" || name == "_send" || name == "_recv";
}

// Where each output of a call writes.
enum class OutputSink : uint8_t {
  kNew,      // a new array (or the plan's hidden buffer)
  kOut,      // the caller's `out` array, directly
  kInplace,  // the caller's `out`, which is the input the op may overwrite
  kStaged,   // the caller's `out` aliases an input the op reads: a new array, copied after
};

// What the first call with a key builds and later calls reuse.
struct OnePlan {
  NodeAttrs attrs;
  std::string where;              // "operator dot" for messages
  std::vector<int> slot;          // per call input (positional, then named): the op's input index
  std::vector<Shape> out_shapes;  // every output, hidden ones included
  std::vector<DType> out_types;
  int num_visible = 0;
  std::vector<OutputSink> sinks;  // per visible output
  std::vector<int> aux;           // aux input indices (written back when is_train)
  const KernelInfo* kernel = nullptr;
  KernelContext ctx;  // attrs, device, threads, options, state, workspace, req
  // Hidden outputs (BatchNorm's batch mean/var, Dropout's mask): nobody reads
  // them after the call, so one buffer each serves every call (calls on a
  // device run one at a time: DeviceMutex).
  std::vector<Tensor> hidden;
  size_t held_bytes = 0;  // workspace and hidden outputs (not what a prepared state holds)
  // The output shapes came from input values (Op::value_shape): the plan
  // serves its own call only and is not cached.
  bool per_call = false;
};

// A device's kernels run one at a time (devices/device.h: its generator and
// a prepared state are not made for two callers); imperative calls from
// several threads take turns per device.
std::mutex& DeviceMutex(const Device* device) {
  static std::mutex* mu = new std::mutex();
  static auto* per_device = new std::unordered_map<const Device*, std::unique_ptr<std::mutex>>();
  std::lock_guard<std::mutex> lock(*mu);
  std::unique_ptr<std::mutex>& m = (*per_device)[device];
  if (m == nullptr) m = std::make_unique<std::mutex>();
  return *m;
}

class PlanCache {
 public:
  // The plan for `key`, or null; a hit makes it the most recently used.
  std::shared_ptr<OnePlan> Find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++stats_.misses;
      return nullptr;
    }
    ++stats_.hits;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }

  void Insert(const std::string& key, std::shared_ptr<OnePlan> plan) {
    std::lock_guard<std::mutex> lock(mu_);
    if (index_.count(key)) return;  // another thread built it first
    bytes_ += plan->held_bytes;
    order_.emplace_front(key, std::move(plan));
    index_[key] = order_.begin();
    while (order_.size() > 1 &&
           (order_.size() > kImperativeCachePlans || bytes_ > kImperativeCacheBytes)) {
      bytes_ -= order_.back().second->held_bytes;
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

  ImperativeCacheStats Stats() {
    std::lock_guard<std::mutex> lock(mu_);
    ImperativeCacheStats s = stats_;
    s.plans = order_.size();
    s.bytes = bytes_;
    return s;
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    index_.clear();
    order_.clear();
    bytes_ = 0;
    stats_ = {};
  }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<OnePlan>>;
  std::mutex mu_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
  ImperativeCacheStats stats_;
};

PlanCache& Cache() {
  static PlanCache* cache = new PlanCache();  // never destroyed: plans outlive static teardown
  return *cache;
}

absl::Status Invalid(const std::string& where, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

// Every call input in one list (positional first) and the context they share.
struct CallInputs {
  std::vector<Tensor> tensors;
  Context ctx;
};

absl::StatusOr<CallInputs> GatherInputs(const InvokeArgs& args, const std::string& where) {
  CallInputs in;
  in.tensors = args.positional;
  for (const auto& [name, t] : args.named) in.tensors.push_back(t);
  for (size_t i = 0; i < in.tensors.size(); ++i) {
    if (!in.tensors[i].defined()) {
      const std::string label =
          i < args.positional.size()
              ? absl::StrCat("positional input ", i)
              : absl::StrCat("input '", args.named[i - args.positional.size()].first, "'");
      return Invalid(where, absl::StrCat(label, " is not an array"));
    }
  }
  if (!in.tensors.empty()) {
    in.ctx = in.tensors[0].ctx();
    for (const Tensor& t : in.tensors) {
      if (t.ctx() != in.ctx) {
        return Invalid(
            where, absl::StrCat("inputs are on different contexts (", in.ctx.ToString(), " and ",
                                t.ctx().ToString(), "); copy them to one with as_in_context"));
      }
    }
    return in;
  }
  if (args.ctx.has_value()) {
    in.ctx = *args.ctx;
  } else if (auto it = args.attrs.find("ctx"); it != args.attrs.end() && !it->second.empty()) {
    SYMX_ASSIGN_OR_RETURN(in.ctx, ParseContext(it->second));
  } else {
    in.ctx = Context::CPU(0);
  }
  return in;
}

// The key of a call: everything a plan depends on. Field separators are
// control characters no attribute or op name holds.
std::string PlanKey(const InvokeArgs& args, const CallInputs& in) {
  std::string key = absl::StrCat(args.op, "\x01", args.is_train ? "t" : "i", "\x01",
                                 in.ctx.ToString(), "\x01", args.options.ToString(), "\x01");
  // An op whose attribute values change from call to call (an optimizer's
  // rate) keys on their names only: its plan parses the values per call;
  // but not on those that decide its inputs and outputs (num_weights).
  const Op* op = OpRegistry::Global().Find(args.op);
  const bool per_call = op != nullptr && op->attrs_per_call();
  for (const auto& [k, v] : args.attrs) {
    const bool by_value =
        !per_call || std::find(op->attrs_keyed_by_value().begin(), op->attrs_keyed_by_value().end(),
                               k) != op->attrs_keyed_by_value().end();
    absl::StrAppend(&key, k, by_value ? "=" : "", by_value ? v : "", "\x02");
  }
  absl::StrAppend(&key, "\x01", args.positional.size());
  for (const auto& [name, t] : args.named) absl::StrAppend(&key, "\x02", name);
  for (const Tensor& t : in.tensors) {
    absl::StrAppend(&key, "\x01", DTypeName(t.dtype()), ":");
    for (int64_t d : t.shape().dims()) absl::StrAppend(&key, d, ",");
  }
  // How every out array relates to every input: none, exactly it ('='), or
  // overlapping storage without being it ('~'); the plan's sinks follow.
  absl::StrAppend(&key, "\x01", args.out.size(), ":");
  for (const Tensor& o : args.out) {
    for (const Tensor& t : in.tensors) {
      char rel = '.';
      if (o.defined() && o.SharesStorageWith(t)) {
        rel = o.offset() == t.offset() && o.nbytes() == t.nbytes() ? '=' : '~';
      }
      key.push_back(rel);
    }
    key.push_back(',');
  }
  return key;
}

// Parses the attributes and maps every call input to its slot of the op.
absl::Status ResolveInputs(const Op& op, const InvokeArgs& args, OnePlan* plan) {
  AttrMap dict = args.attrs;
  const size_t given = args.positional.size() + args.named.size();
  if (!op.variadic_key().empty() && !dict.count(op.variadic_key()) && args.named.empty()) {
    dict[op.variadic_key()] = std::to_string(args.positional.size());
  }
  plan->attrs.op = &op;
  plan->attrs.name = op.name();
  absl::StatusOr<OpParamPtr> parsed = op.Parse(dict);
  if (!parsed.ok()) return Annotate(parsed.status(), plan->where);
  plan->attrs.dict = std::move(dict);
  plan->attrs.parsed = *std::move(parsed);
  SYMX_RETURN_IF_ERROR(CheckVariadicCount(op, plan->attrs.dict, given, plan->where));
  const std::vector<std::string> names = op.InputNames(plan->attrs);
  if (args.positional.size() > names.size()) {
    return Invalid(plan->where,
                   absl::StrCat("got ", args.positional.size(), " positional inputs, but it takes ",
                                names.size(), " (", absl::StrJoin(names, ", "), ")"));
  }
  std::vector<bool> taken(names.size(), false);
  for (size_t i = 0; i < args.positional.size(); ++i) {
    plan->slot.push_back(static_cast<int>(i));
    taken[i] = true;
  }
  for (const auto& [name, t] : args.named) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      return Invalid(plan->where, absl::StrCat("has no input named '", name,
                                               "' (inputs: ", absl::StrJoin(names, ", "), ")"));
    }
    const size_t s = static_cast<size_t>(it - names.begin());
    if (taken[s]) return Invalid(plan->where, absl::StrCat("input '", name, "' is given twice"));
    taken[s] = true;
    plan->slot.push_back(static_cast<int>(s));
  }
  std::vector<std::string> missing;
  for (size_t s = 0; s < names.size(); ++s) {
    if (!taken[s]) missing.push_back(names[s]);
  }
  if (!missing.empty()) {
    return Invalid(plan->where, absl::StrCat("input", missing.size() > 1 ? "s " : " ",
                                             absl::StrJoin(missing, ", "),
                                             " not given (an imperative call needs every input: ",
                                             absl::StrJoin(names, ", "), ")"));
  }
  return absl::OkStatus();
}

// Output shapes and dtypes from the inputs'.
absl::Status InferOutputs(const std::vector<Tensor>& inputs, OnePlan* plan) {
  const Op& op = *plan->attrs.op;
  const int num_out = op.NumOutputs(plan->attrs);
  std::vector<Shape> in_shapes(inputs.size());
  std::vector<DType> in_types(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    in_shapes[i] = inputs[i].shape();
    in_types[i] = inputs[i].dtype();
  }
  std::vector<Shape> out_shapes(num_out);
  std::vector<DType> out_types(num_out, DType::kUnknown);
  if (op.infer_shape()) {
    SYMX_RETURN_IF_ERROR(
        Annotate(op.infer_shape()(plan->attrs, &in_shapes, &out_shapes), plan->where));
  }
  if (op.infer_type()) {
    SYMX_RETURN_IF_ERROR(
        Annotate(op.infer_type()(plan->attrs, &in_types, &out_types), plan->where));
  }
  if (op.value_shape()) {
    // Shapes that depend on values: read those inputs (a synchronization on a
    // GPU) and complete the shapes for this call.
    std::vector<std::vector<double>> values(inputs.size());
    for (int i : op.value_inputs()) {
      if (i < 0 || i >= static_cast<int>(inputs.size())) continue;
      absl::StatusOr<std::vector<double>> v = HostDoubles(inputs[i]);
      if (!v.ok()) return Annotate(v.status(), plan->where);
      values[i] = *std::move(v);
    }
    SYMX_RETURN_IF_ERROR(
        Annotate(op.value_shape()(plan->attrs, in_shapes, values, &out_shapes), plan->where));
    plan->per_call = true;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    // The op may not change what it was given (an input of the wrong shape
    // that inference "fixed" is a conflict the op did not report).
    if (in_shapes[i] != inputs[i].shape() || in_types[i] != inputs[i].dtype()) {
      return Invalid(plan->where,
                     absl::StrCat("input ", i, " (", inputs[i].shape().ToString(), " ",
                                  DTypeName(inputs[i].dtype()), ") does not fit the op: it needs ",
                                  in_shapes[i].ToString(), " ", DTypeName(in_types[i])));
    }
  }
  const std::vector<std::string> out_names = op.OutputNames(plan->attrs);
  for (int j = 0; j < num_out; ++j) {
    const std::string label =
        j < static_cast<int>(out_names.size()) ? out_names[j] : absl::StrCat(j);
    if (!out_shapes[j].fully_known()) {
      return Invalid(plan->where, absl::StrCat("the shape of output ", label,
                                               " cannot be inferred from the inputs (got ",
                                               out_shapes[j].ToString(), ")"));
    }
    if (out_types[j] == DType::kUnknown) {
      return Invalid(plan->where, absl::StrCat("the dtype of output ", label,
                                               " cannot be inferred from the inputs"));
    }
  }
  plan->out_shapes = std::move(out_shapes);
  plan->out_types = std::move(out_types);
  plan->num_visible = op.NumVisibleOutputs(plan->attrs);
  plan->aux = op.AuxInputs(plan->attrs);
  return absl::OkStatus();
}

// Every call's `out` arrays against the plan's outputs (a plan found by key
// knows only how they alias the inputs).
absl::Status CheckOut(const InvokeArgs& args, const Context& ctx, const OnePlan& plan) {
  if (args.out.empty()) return absl::OkStatus();
  if (args.out.size() != static_cast<size_t>(plan.num_visible)) {
    return Invalid(plan.where, absl::StrCat("out= has ", args.out.size(), " array(s) for ",
                                            plan.num_visible, " output(s)"));
  }
  for (int j = 0; j < plan.num_visible; ++j) {
    const Tensor& o = args.out[j];
    if (!o.defined()) return Invalid(plan.where, absl::StrCat("out[", j, "] is not an array"));
    if (o.shape() != plan.out_shapes[j] || o.dtype() != plan.out_types[j]) {
      return Invalid(plan.where, absl::StrCat("out[", j, "] is ", o.shape().ToString(), " ",
                                              DTypeName(o.dtype()), ", the output is ",
                                              plan.out_shapes[j].ToString(), " ",
                                              DTypeName(plan.out_types[j])));
    }
    if (o.ctx() != ctx) {
      return Invalid(plan.where, absl::StrCat("out[", j, "] is on ", o.ctx().ToString(),
                                              ", the op runs on ", ctx.ToString()));
    }
  }
  return absl::OkStatus();
}

// Decides where each visible output goes (CheckOut has passed).
void ChooseSinks(const InvokeArgs& args, const std::vector<Tensor>& inputs, OnePlan* plan) {
  plan->sinks.assign(plan->num_visible, OutputSink::kNew);
  if (args.out.empty()) return;
  std::vector<std::pair<int, int>> pairs;
  if (plan->attrs.op->inplace()) pairs = plan->attrs.op->inplace()(plan->attrs);
  for (int j = 0; j < plan->num_visible; ++j) {
    const Tensor& o = args.out[j];
    plan->sinks[j] = OutputSink::kOut;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!o.SharesStorageWith(inputs[i])) continue;
      const bool same = o.offset() == inputs[i].offset() && o.nbytes() == inputs[i].nbytes();
      const bool declared = std::find(pairs.begin(), pairs.end(),
                                      std::make_pair(static_cast<int>(i), j)) != pairs.end();
      // Any input the output overlaps without being that input's declared
      // in-place pair makes it staged, whatever the other inputs are.
      plan->sinks[j] = same && declared && plan->sinks[j] != OutputSink::kStaged
                           ? OutputSink::kInplace
                           : OutputSink::kStaged;
    }
  }
}

// The kernel and its prepared context, made with the first call's arrays.
absl::Status PrepareKernel(const InvokeArgs& args, const std::vector<Tensor>& inputs,
                           const std::vector<Tensor>& outputs, const Context& ctx, OnePlan* plan) {
  SYMX_ASSIGN_OR_RETURN(Device * device, GetDevice(ctx));
  std::vector<DType> dtypes;
  for (const Tensor& t : inputs) dtypes.push_back(t.dtype());
  for (DType t : plan->out_types) dtypes.push_back(t);
  plan->kernel = ChooseKernel(plan->attrs.op->name(), *device, dtypes, args.options, plan->where);
  if (plan->kernel == nullptr) {
    return absl::UnimplementedError(
        absl::StrCat(plan->where, " has no kernel for ", ctx.ToString()));
  }
  KernelContext& k = plan->ctx;
  k.attrs = &plan->attrs;
  k.device = device;
  k.num_threads = device->num_threads();
  k.options = args.options;
  k.is_train = args.is_train;
  k.inputs = inputs;
  k.outputs = outputs;
  for (int j = 0; j < static_cast<int>(outputs.size()); ++j) {
    k.req.push_back(j < plan->num_visible && plan->sinks[j] == OutputSink::kInplace
                        ? OpReq::kInplace
                        : OpReq::kWrite);
  }
  size_t bytes = 0;
  if (plan->kernel->prepare != nullptr) {
    SYMX_RETURN_IF_ERROR(Annotate(plan->kernel->prepare(&k, &bytes), plan->where));
  }
  if (k.state == nullptr && plan->kernel->workspace != nullptr) {
    std::vector<Shape> in_shapes;
    for (const Tensor& t : inputs) in_shapes.push_back(t.shape());
    const DType dt = inputs.empty() ? plan->out_types[0] : inputs[0].dtype();
    bytes = plan->kernel->workspace(plan->attrs, in_shapes, plan->out_shapes, dt);
  }
  if (bytes > 0) {
    SYMX_ASSIGN_OR_RETURN(k.workspace,
                          Tensor::Empty(Shape{static_cast<int64_t>(bytes)}, DType::kUint8, ctx));
  }
  plan->held_bytes = bytes;
  for (const Tensor& h : plan->hidden) plan->held_bytes += h.nbytes();
  // The plan keeps no array of the call that made it (each call brings its
  // own); only what the kernel prepared.
  k.inputs.clear();
  k.outputs.clear();
  return absl::OkStatus();
}

// `in`: GatherInputs of `args`; `key`: PlanKey of both.
absl::Status Run(const InvokeArgs& args, const CallInputs& in, const std::string& key,
                 std::vector<Tensor>* result) {
  const std::string where = absl::StrCat("operator ", args.op);
  std::shared_ptr<OnePlan> plan = Cache().Find(key);
  const bool fresh = plan == nullptr;
  if (fresh) {
    SYMX_ASSIGN_OR_RETURN(const Op* op, OpRegistry::Global().Lookup(args.op));
    if (op->is_backward() || EngineOnly(op->name())) {
      return Invalid(where, "is not callable imperatively (the engine places it in graphs)");
    }
    plan = std::make_shared<OnePlan>();
    plan->where = absl::StrCat("operator ", op->name());
    SYMX_RETURN_IF_ERROR(ResolveInputs(*op, args, plan.get()));
  }
  // The op's inputs in its own order.
  std::vector<Tensor> inputs(in.tensors.size());
  for (size_t i = 0; i < in.tensors.size(); ++i) inputs[plan->slot[i]] = in.tensors[i];
  if (fresh) SYMX_RETURN_IF_ERROR(InferOutputs(inputs, plan.get()));
  SYMX_RETURN_IF_ERROR(CheckOut(args, in.ctx, *plan));
  if (fresh) ChooseSinks(args, inputs, plan.get());
  std::vector<Tensor> outputs(plan->out_shapes.size());
  for (size_t j = 0; j < outputs.size(); ++j) {
    const bool visible = static_cast<int>(j) < plan->num_visible;
    if (visible && (plan->sinks[j] == OutputSink::kOut || plan->sinks[j] == OutputSink::kInplace)) {
      outputs[j] = args.out[j];
    } else if (!visible && !plan->hidden.empty()) {
      outputs[j] = plan->hidden[j - plan->num_visible];
    } else {
      SYMX_ASSIGN_OR_RETURN(outputs[j],
                            Tensor::Empty(plan->out_shapes[j], plan->out_types[j], in.ctx));
    }
  }
  if (fresh) {
    plan->hidden.assign(outputs.begin() + plan->num_visible, outputs.end());
    SYMX_RETURN_IF_ERROR(PrepareKernel(args, inputs, outputs, in.ctx, plan.get()));
  }
  // The values of this call's attributes, for an op whose plan keys on their
  // names only (the first call's are the plan's own).
  NodeAttrs call_attrs;
  if (!fresh && plan->attrs.op->attrs_per_call()) {
    call_attrs = plan->attrs;
    call_attrs.dict = args.attrs;
    absl::StatusOr<OpParamPtr> parsed = plan->attrs.op->Parse(call_attrs.dict);
    if (!parsed.ok()) return Annotate(parsed.status(), plan->where);
    call_attrs.parsed = *std::move(parsed);
  }
  {
    std::lock_guard<std::mutex> lock(DeviceMutex(plan->ctx.device));
    KernelContext ctx = plan->ctx;
    if (call_attrs.op != nullptr) ctx.attrs = &call_attrs;
    ctx.inputs = std::move(inputs);
    ctx.outputs = outputs;
    SYMX_RETURN_IF_ERROR(plan->kernel->fn(ctx));
  }
  // Only a plan whose first call ran is kept (and one whose shapes hold for
  // other calls too).
  if (fresh && !plan->per_call) Cache().Insert(key, plan);
  result->assign(outputs.begin(), outputs.begin() + plan->num_visible);
  for (int j = 0; j < plan->num_visible; ++j) {
    if (plan->sinks[j] != OutputSink::kStaged) continue;
    SYMX_RETURN_IF_ERROR(Annotate(CopyTensor(outputs[j], args.out[j]), where));
    (*result)[j] = args.out[j];
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<Tensor> Invoke(const InvokeArgs& args) {
  const std::string where = absl::StrCat("operator ", args.op);
  CallInputs in = ValueOrThrow(GatherInputs(args, where));
  std::vector<Tensor> result;
  // A call that fails leaves no plan behind: plans enter the cache only
  // once their first call has run.
  ThrowIfError(Run(args, in, PlanKey(args, in), &result));
  return result;
}

ImperativeCacheStats GetImperativeCacheStats() { return Cache().Stats(); }

void ClearImperativeCache() { Cache().Clear(); }

}  // namespace symx
