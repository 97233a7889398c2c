// Executor: running a built plan, and the accessors.
#include "executor/executor.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "executor/exec_plan.h"
#include "graph/error.h"
#include "graph/op.h"

namespace symx {
namespace {

absl::Status RunSteps(std::vector<Step>& steps, bool is_train, const IndexedGraph& g,
                      const MonitorCallback& monitor, bool monitor_all) {
  for (Step& step : steps) {
    step.ctx.is_train = is_train;
    // Inputs are reported before the op runs: an in-place op overwrites them.
    if (monitor && monitor_all) {
      const Node& node = *g[step.node_id].node;
      std::vector<std::string> in_names = node.op()->InputNames(node.attrs);
      for (size_t i = 0; i < step.ctx.inputs.size(); ++i) {
        monitor(absl::StrCat(node.name(), "_", i < in_names.size() ? in_names[i] : "input"),
                step.ctx.inputs[i]);
      }
    }
    absl::Status s = step.kernel->fn(step.ctx);
    if (!s.ok()) return s;
    for (const auto& [dst, src] : step.accumulate) {
      SYMX_RETURN_IF_ERROR(AccumulateInto(src, dst));
    }
    if (monitor) {
      const Node& node = *g[step.node_id].node;
      std::vector<std::string> out_names = node.op()->OutputNames(node.attrs);
      int visible = node.num_visible_outputs();
      for (int j = 0; j < visible; ++j) {
        monitor(absl::StrCat(node.name(), "_",
                             j < static_cast<int>(out_names.size()) ? out_names[j] : "output"),
                step.ctx.outputs[j]);
      }
    }
  }
  return absl::OkStatus();
}

std::map<std::string, Tensor> MakeDict(const std::vector<std::string>& names,
                                       const std::vector<Tensor>& arrays, bool skip_undefined) {
  std::map<std::string, Tensor> out;
  std::set<std::string> dups;
  for (size_t i = 0; i < names.size(); ++i) {
    if (out.count(names[i])) dups.insert(names[i]);
    if (skip_undefined && !arrays[i].defined()) continue;
    out[names[i]] = arrays[i];
  }
  if (!dups.empty()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("Duplicate names detected, [", absl::StrJoin(dups, ", "), "]")));
  }
  return out;
}

}  // namespace

Executor::Executor() = default;
Executor::~Executor() = default;

void Executor::Forward(bool is_train, const std::map<std::string, Tensor>& inputs) {
  if (!inputs.empty()) {
    std::map<std::string, Tensor> args = arg_dict();
    for (const auto& [name, value] : inputs) {
      auto it = args.find(name);
      if (it == args.end()) {
        throw Error(absl::InvalidArgumentError(
            absl::StrCat("Unknown argument ", name,
                         " in Forward (arguments: ", absl::StrJoin(arg_names_, ", "), ")")));
      }
      if (!value.defined() || value.shape() != it->second.shape()) {
        throw Error(absl::InvalidArgumentError(absl::StrCat(
            "Shape not match! Argument ", name, ", need: ", it->second.shape().ToString(),
            ", received: ", value.defined() ? value.shape().ToString() : "<undefined>")));
      }
      if (!value.SharesStorageWith(it->second) || value.offset() != it->second.offset() ||
          value.dtype() != it->second.dtype()) {
        ThrowIfError(CopyTensor(value, it->second));
      }
    }
  }
  ThrowIfError(RunSteps(plan_->forward_steps, is_train, *plan_->graph, monitor_, monitor_all_));
}

void Executor::Backward(const std::vector<Tensor>& head_grads) {
  if (plan_->backward_steps.empty()) return;
  if (!head_grads.empty() && head_grads.size() != outputs_.size()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("Backward got ", head_grads.size(), " head gradients for ", outputs_.size(),
                     " outputs (", absl::StrJoin(output_names_, ", "), ")")));
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Tensor& dst = plan_->head_grads[i];
    if (!dst.defined()) continue;  // a loss head, or no gradient flows from it
    if (head_grads.empty() || !head_grads[i].defined()) {
      throw Error(absl::InvalidArgumentError(absl::StrCat(
          "Because the last operator is not Loss function, head_gradient is required when "
          "calling backward (missing for output ",
          output_names_[i],
          "). If you are attempting to minimize the output as an objective, please modify your "
          "network and pass it through the make_loss symbol.")));
    }
    if (head_grads[i].shape() != dst.shape()) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("head gradient for output ", output_names_[i], " has shape ",
                       head_grads[i].shape().ToString(), ", expected ", dst.shape().ToString())));
    }
    ThrowIfError(CopyTensor(head_grads[i], dst));
  }
  ThrowIfError(RunSteps(plan_->backward_steps, true, *plan_->graph, monitor_, monitor_all_));
}

void Executor::Backward(const std::map<std::string, Tensor>& head_grads) {
  // As MXNet: one array per output by name, so outputs sharing a name share
  // the array given for it.
  std::vector<Tensor> list(outputs_.size());
  for (size_t i = 0; i < output_names_.size(); ++i) {
    auto it = head_grads.find(output_names_[i]);
    if (it != head_grads.end()) list[i] = it->second;
  }
  std::set<std::string> names(output_names_.begin(), output_names_.end());
  for (const auto& [name, t] : head_grads) {
    if (!names.count(name)) {
      throw Error(absl::InvalidArgumentError(absl::StrCat(
          "head gradient given for ", name,
          ", which is not an output (outputs: ", absl::StrJoin(output_names_, ", "), ")")));
    }
  }
  Backward(list);
}

std::map<std::string, Tensor> Executor::arg_dict() const {
  return MakeDict(arg_names_, arg_arrays_, false);
}
std::map<std::string, Tensor> Executor::grad_dict() const {
  return MakeDict(arg_names_, grad_arrays_, true);
}
std::map<std::string, Tensor> Executor::aux_dict() const {
  return MakeDict(aux_names_, aux_arrays_, false);
}
std::map<std::string, Tensor> Executor::output_dict() const {
  return MakeDict(output_names_, outputs_, false);
}

void Executor::CopyParamsFrom(const std::map<std::string, Tensor>& args,
                              const std::map<std::string, Tensor>& aux, bool allow_extra) {
  std::map<std::string, Tensor> my_args = arg_dict();
  std::map<std::string, Tensor> my_aux = aux_dict();
  // Check everything first so a bad name copies nothing.
  for (const auto& [name, t] : args) {
    auto it = my_args.find(name);
    if (it == my_args.end()) {
      if (allow_extra) continue;
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("Find name \"", name, "\" that is not in the arguments")));
    }
    if (t.shape() != it->second.shape()) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("CopyParamsFrom: argument ", name, " has shape ",
                       it->second.shape().ToString(), ", the given array ", t.shape().ToString())));
    }
  }
  for (const auto& [name, t] : aux) {
    auto it = my_aux.find(name);
    if (it == my_aux.end()) {
      if (allow_extra) continue;
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("Find name ", name, " that is not in the auxiliary states")));
    }
    if (t.shape() != it->second.shape()) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("CopyParamsFrom: auxiliary state ", name, " has shape ",
                       it->second.shape().ToString(), ", the given array ", t.shape().ToString())));
    }
  }
  for (const auto& [name, t] : args) {
    auto it = my_args.find(name);
    if (it != my_args.end()) ThrowIfError(CopyTensor(t, it->second));
  }
  for (const auto& [name, t] : aux) {
    auto it = my_aux.find(name);
    if (it != my_aux.end()) ThrowIfError(CopyTensor(t, it->second));
  }
}

Symbol Executor::OptimizedSymbol() const { return symbol_; }

void Executor::SetMonitorCallback(MonitorCallback callback, bool monitor_all) {
  monitor_ = std::move(callback);
  monitor_all_ = monitor_all;
}

std::vector<MemoryStats> Executor::memory_stats() const { return {plan_->stats}; }

std::string Executor::DebugStr() const {
  const IndexedGraph& g = *plan_->graph;
  std::string out;
  auto dump = [&](const std::vector<Step>& steps, const char* phase) {
    for (const Step& s : steps) {
      const Node& node = *g[s.node_id].node;
      absl::StrAppend(&out, phase, " ", node.op()->name(), " ", node.name(), " ->");
      for (const Tensor& t : s.ctx.outputs) absl::StrAppend(&out, " ", t.shape().ToString());
      absl::StrAppend(&out, "\n");
    }
  };
  dump(plan_->forward_steps, "forward");
  dump(plan_->backward_steps, "backward");
  const MemoryStats& m = plan_->stats;
  absl::StrAppend(&out, "Memory on ", m.ctx.ToString(), ": ", m.planned_bytes,
                  " bytes planned for intermediates (", m.no_reuse_bytes, " without reuse), ",
                  m.allocated_bytes, " bytes allocated\n");
  return out;
}

}  // namespace symx
