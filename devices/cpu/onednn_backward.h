// The backward step shared by oneDNN's convolution and deconvolution kernels:
// inputs ograd (0), data (1), weight (2); outputs the data gradient (0), the
// weight gradient (1) and the bias gradient (2, optional). It has two halves,
// each a primitive that runs only when one of its outputs is wanted; they run
// one after the other, so their scratchpads share space.
#ifndef SYMX_DEVICES_CPU_ONEDNN_BACKWARD_H_
#define SYMX_DEVICES_CPU_ONEDNN_BACKWARD_H_

#include <algorithm>
#include <cstddef>
#include <unordered_map>

#include "devices/cpu/onednn.h"

namespace symx {
namespace cpu {

template <typename DataPrim, typename WeightPrim>
class WeightedBackwardStep : public OnednnStep {
 public:
  // The data half: `ograd`, `weight` and `data_grad` as symx stores them.
  void SetDataHalf(const typename DataPrim::primitive_desc& pd, const dnnl::memory::desc& ograd,
                   const dnnl::memory::desc& weight, const dnnl::memory::desc& data_grad,
                   WorkspaceArena* arena) {
    data_ograd_ = Operand(ograd, pd.diff_dst_desc(), Operand::kInput, arena);
    data_wei_ = Operand(weight, pd.weights_desc(), Operand::kInput, arena);
    data_grad_ = Operand(data_grad, pd.diff_src_desc(), Operand::kOutput, arena);
    data_scratch_ = pd.scratchpad_desc();
    data_prim_ = DataPrim(pd);
    want_data_ = true;
  }
  // The weight half; `bias` null when the op has none.
  void SetWeightHalf(const typename WeightPrim::primitive_desc& pd, const dnnl::memory::desc& data,
                     const dnnl::memory::desc& ograd, const dnnl::memory::desc& weight,
                     const dnnl::memory::desc* bias, WorkspaceArena* arena) {
    weight_src_ = Operand(data, pd.src_desc(), Operand::kInput, arena);
    weight_ograd_ = Operand(ograd, pd.diff_dst_desc(), Operand::kInput, arena);
    weight_grad_ = Operand(weight, pd.diff_weights_desc(), Operand::kOutput, arena);
    has_bias_ = bias != nullptr;
    if (has_bias_) bias_grad_ = Operand(*bias, *bias, Operand::kOutput, arena);
    weight_scratch_ = pd.scratchpad_desc();
    weight_prim_ = WeightPrim(pd);
    want_weight_ = true;
  }
  // After the halves are set.
  void ReserveScratch(WorkspaceArena* arena) {
    scratch_offset_ = arena->Reserve(std::max(want_data_ ? data_scratch_.get_size() : 0,
                                              want_weight_ ? weight_scratch_.get_size() : 0));
  }

  void Run(const KernelContext& ctx) override {
    const Tensor& ws = ctx.workspace;
    if (want_data_) {
      data_prim_.execute(stream_,
                         {{DNNL_ARG_DIFF_DST, data_ograd_.Enter(ctx.inputs[0], ws, stream_)},
                          {DNNL_ARG_WEIGHTS, data_wei_.Enter(ctx.inputs[2], ws, stream_)},
                          {DNNL_ARG_DIFF_SRC, data_grad_.Enter(ctx.outputs[0], ws, stream_)},
                          {DNNL_ARG_SCRATCHPAD, ScratchpadAt(data_scratch_, ws, scratch_offset_)}});
      data_grad_.Leave(stream_);
    }
    if (want_weight_) {
      std::unordered_map<int, dnnl::memory> args = {
          {DNNL_ARG_SRC, weight_src_.Enter(ctx.inputs[1], ws, stream_)},
          {DNNL_ARG_DIFF_DST, weight_ograd_.Enter(ctx.inputs[0], ws, stream_)},
          {DNNL_ARG_DIFF_WEIGHTS, weight_grad_.Enter(ctx.outputs[1], ws, stream_)},
          {DNNL_ARG_SCRATCHPAD, ScratchpadAt(weight_scratch_, ws, scratch_offset_)}};
      if (has_bias_) args[DNNL_ARG_DIFF_BIAS] = bias_grad_.Enter(ctx.outputs[2], ws, stream_);
      weight_prim_.execute(stream_, args);
      weight_grad_.Leave(stream_);
    }
    stream_.wait();
  }

 private:
  bool want_data_ = false, want_weight_ = false, has_bias_ = false;
  Operand data_ograd_, data_wei_, data_grad_;
  Operand weight_src_, weight_ograd_, weight_grad_, bias_grad_;
  dnnl::memory::desc data_scratch_, weight_scratch_;
  size_t scratch_offset_ = 0;
  DataPrim data_prim_;
  WeightPrim weight_prim_;
};

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_ONEDNN_BACKWARD_H_
