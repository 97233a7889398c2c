// The body binder of the control-flow kernels (devices/geometry/control_flow.h):
// a body is bound as an ordinary Executor on the node's device, once, at the
// outer bind's Prepare, with arrays allocated here; each step then copies its
// values into those arrays and runs Forward (and Backward).
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/geometry/control_flow.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/indexed_graph.h"

namespace symx {
namespace {

class ExecutorBody : public BoundBody {
 public:
  const std::vector<Tensor>& inputs() const override { return inputs_; }
  const std::vector<Tensor>& outputs() const override { return exe_->outputs(); }
  const std::vector<Tensor>& input_grads() const override { return grads_; }

  absl::Status Forward(bool is_train) override {
    try {
      exe_->Forward(is_train);
    } catch (const Error& e) {
      return absl::Status(e.code(), e.what());
    }
    return absl::OkStatus();
  }
  absl::Status Backward(const std::vector<Tensor>& head_grads) override {
    try {
      exe_->Backward(head_grads);
    } catch (const Error& e) {
      return absl::Status(e.code(), e.what());
    }
    return absl::OkStatus();
  }

  static absl::StatusOr<std::unique_ptr<BoundBody>> Bind(const BodyBindSpec& spec) {
    auto body = std::make_unique<ExecutorBody>();
    IndexedGraph g(spec.body->outputs);
    const std::vector<uint32_t>& input_nodes = g.input_nodes();
    if (input_nodes.size() != spec.in_shapes.size()) {
      return absl::InvalidArgumentError(absl::StrCat("the body has ", input_nodes.size(),
                                                     " inputs but ", spec.in_shapes.size(),
                                                     " are given"));
    }
    std::vector<Tensor> by_node(g.num_nodes()), grad_by_node(g.num_nodes());
    body->inputs_.resize(input_nodes.size());
    body->grads_.resize(input_nodes.size());
    for (size_t i = 0; i < input_nodes.size(); ++i) {
      SYMX_ASSIGN_OR_RETURN(body->inputs_[i],
                            Tensor::Zeros(spec.in_shapes[i], spec.in_types[i], spec.ctx));
      by_node[input_nodes[i]] = body->inputs_[i];
      if (!spec.grads.empty() && spec.grads[i] != BodyGrad::kNone &&
          !g.is_mutable_input(input_nodes[i])) {
        SYMX_ASSIGN_OR_RETURN(body->grads_[i],
                              Tensor::Zeros(spec.in_shapes[i], spec.in_types[i], spec.ctx));
        grad_by_node[input_nodes[i]] = body->grads_[i];
      }
    }
    std::vector<Tensor> args, arg_grads, aux;
    std::vector<GradReq> reqs;
    for (uint32_t nid : g.arg_nodes()) {
      args.push_back(by_node[nid]);
      arg_grads.push_back(grad_by_node[nid]);
      size_t pos = 0;
      while (input_nodes[pos] != nid) ++pos;
      const bool add = !spec.grads.empty() && spec.grads[pos] == BodyGrad::kAdd;
      reqs.push_back(!grad_by_node[nid].defined() ? GradReq::kNull
                     : add                        ? GradReq::kAdd
                                                  : GradReq::kWrite);
    }
    for (uint32_t nid : g.aux_nodes()) aux.push_back(by_node[nid]);
    BindOptions options;
    options.ctx = spec.ctx;
    options.grad_req = reqs;
    options.engine = spec.options;
    std::optional<ArrayArgs> grads;
    if (!spec.grads.empty()) grads = ArrayArgs(arg_grads);
    try {
      body->exe_ = Executor::Bind(Symbol(spec.body->outputs), options, args, grads, aux);
    } catch (const Error& e) {
      return absl::Status(e.code(), e.what());
    }
    return std::unique_ptr<BoundBody>(std::move(body));
  }

 private:
  std::unique_ptr<Executor> exe_;
  std::vector<Tensor> inputs_, grads_;
};

[[maybe_unused]] const bool kBodyBinderRegistered = RegisterBodyBinder(&ExecutorBody::Bind);

}  // namespace
}  // namespace symx
