// CUDA kernels of the convolution family (graph/ops/convolution.cc):
// Convolution, Deconvolution, with their backward ops.
//
// CUDA kernels of Convolution and Deconvolution (1-D, 2-D, 3-D, groups,
// dilation) and their backward ops, on cuDNN.
//
// Both ops are one cuDNN convolution seen from its input side (the "image":
// Convolution's data, Deconvolution's output) to its output side (the
// "columns": Convolution's output, Deconvolution's data); the weight is the
// same (Co, Ci/G, k...) filter in both (devices/cpu/convolution_kernels.cc has the
// same picture). So
//   Convolution forward / Deconvolution data grad  = cudnnConvolutionForward
//   Convolution data grad / Deconvolution forward  = cudnnConvolutionBackwardData
//   weight grad (both)                             = cudnnConvolutionBackwardFilter
// The descriptors and algorithms are made at Bind (PrepareFn) and kept in the
// step's state; the algorithms come from cuDNN's heuristics within the
// `workspace` limit (MXNet's parameter, MB) and are cached per configuration
// for the process; their scratch is the step's planned workspace. float32
// runs without TF32 (CUDNN_FMA_MATH), as MXNet computed it; float16 and
// bfloat16 use tensor cores with float32 accumulation; float64 in float64.
//
// cuDNN 9 marks this descriptor API deprecated in favour of its graph API; it
// is still supported throughout 9.x (the BUILD file silences the warning for
// this library only). Moving to the graph API is recorded as future work.
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "devices/cuda/cuda_status.h"
#include "devices/cuda/kernel_util.h"
#include "graph/ops/convolution.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/reduce_launch.h"
#include "devices/cuda/strided_launch.h"

namespace symx {
namespace cuda {
namespace {

struct ConvAlgos {
  cudnnConvolutionFwdAlgo_t fwd = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnConvolutionBwdDataAlgo_t bwd_data = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
  cudnnConvolutionBwdFilterAlgo_t bwd_filter = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
  size_t fwd_bytes = 0, bwd_data_bytes = 0, bwd_filter_bytes = 0;
};

// Algorithms chosen per configuration (dtype, shapes, parameters), for the
// process: binding the same layer again costs no heuristics query.
std::mutex algo_mu;
std::map<std::string, ConvAlgos>& AlgoCache() {
  static auto* cache = new std::map<std::string, ConvAlgos>();
  return *cache;
}

class CudnnConv : public KernelState {
 public:
  ~CudnnConv() override {
    if (img_ != nullptr) cudnnDestroyTensorDescriptor(img_);
    if (col_ != nullptr) cudnnDestroyTensorDescriptor(col_);
    if (filter_ != nullptr) cudnnDestroyFilterDescriptor(filter_);
    if (conv_ != nullptr) cudnnDestroyConvolutionDescriptor(conv_);
  }

  cudnnTensorDescriptor_t img_ = nullptr, col_ = nullptr;
  cudnnFilterDescriptor_t filter_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
  ConvAlgos algos;
  bool empty = false;  // a dim of size 0: nothing for cuDNN to do
  bool deconv = false;
  Elem elem = Elem::kF32;
};

cudnnDataType_t CudnnType(Elem t) {
  switch (t) {
    case Elem::kF64:
      return CUDNN_DATA_DOUBLE;
    case Elem::kF16:
      return CUDNN_DATA_HALF;
    case Elem::kBF16:
      return CUDNN_DATA_BFLOAT16;
    default:
      return CUDNN_DATA_FLOAT;
  }
}

// cuDNN's Nd descriptors need at least 4 dims: 1-D data gets a spatial 1.
std::vector<int> Dims4(const Shape& s) {
  std::vector<int> d(s.dims().begin(), s.dims().end());
  if (d.size() == 3) d.insert(d.begin() + 2, 1);
  return d;
}

std::vector<int> PackedStrides(const std::vector<int>& d) {
  std::vector<int> st(d.size());
  int stride = 1;
  for (int k = static_cast<int>(d.size()) - 1; k >= 0; --k) {
    st[k] = stride;
    stride *= d[k];
  }
  return st;
}

absl::Status SetTensor(const Context& c, cudnnTensorDescriptor_t* desc, cudnnDataType_t type,
                       const Shape& s) {
  SYMX_CUDNN_RETURN_IF_ERROR(c, cudnnCreateTensorDescriptor(desc));
  const std::vector<int> d = Dims4(s);
  const std::vector<int> st = PackedStrides(d);
  SYMX_CUDNN_RETURN_IF_ERROR(
      c, cudnnSetTensorNdDescriptor(*desc, type, static_cast<int>(d.size()), d.data(), st.data()));
  return absl::OkStatus();
}

bool FitsInt(const Shape& s) {
  for (int64_t d : s.dims()) {
    if (d > 0x7fffffff) return false;
  }
  return s.Size() <= 0x7fffffff;
}

// Builds descriptors and picks algorithms for the step. Forward step inputs:
// data, weight[, bias]; backward: ograd, data, weight.
absl::Status PrepareConv(KernelContext* ctx, size_t* workspace_bytes, bool backward) {
  *workspace_bytes = 0;
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(*ctx));
  const auto& p = ctx->param<ConvParam>();
  const Tensor& data = backward ? ctx->inputs[1] : ctx->inputs[0];
  const Tensor& weight = backward ? ctx->inputs[2] : ctx->inputs[1];
  const Shape out_shape = backward ? ctx->inputs[0].shape() : ctx->outputs[0].shape();
  SYMX_ASSIGN_OR_RETURN(Elem elem, FloatElem(*ctx, data.dtype()));
  const int n = static_cast<int>(p.kernel.size());
  if (n < 1 || n > 3 || data.shape().ndim() != n + 2 || out_shape.ndim() != n + 2 ||
      !FitsInt(data.shape()) || !FitsInt(out_shape) || !FitsInt(weight.shape())) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx->Where(), ": data ", data.DebugString(), " and output ",
                     out_shape.ToString(), " are not a 1-D to 3-D convolution cuDNN takes"));
  }
  const Context& c = device->ctx();
  auto state = std::make_shared<CudnnConv>();
  state->deconv = p.deconv;
  state->elem = elem;
  if (data.size() == 0 || out_shape.Size() == 0 || weight.size() == 0) {
    // cuDNN rejects empty descriptors; the kernels write zeros (and bias).
    state->empty = true;
    ctx->state = state;
    return absl::OkStatus();
  }
  const Shape& img = p.deconv ? out_shape : data.shape();
  const Shape& col = p.deconv ? data.shape() : out_shape;
  const cudnnDataType_t type = CudnnType(elem);
  SYMX_RETURN_IF_ERROR(SetTensor(c, &state->img_, type, img));
  SYMX_RETURN_IF_ERROR(SetTensor(c, &state->col_, type, col));
  SYMX_CUDNN_RETURN_IF_ERROR(c, cudnnCreateFilterDescriptor(&state->filter_));
  const std::vector<int> w = Dims4(weight.shape());
  SYMX_CUDNN_RETURN_IF_ERROR(c, cudnnSetFilterNdDescriptor(state->filter_, type, CUDNN_TENSOR_NCHW,
                                                           static_cast<int>(w.size()), w.data()));
  // Spatial parameters, 1-D data padded to 2-D like the descriptors.
  std::vector<int> pad, stride, dilate;
  if (n == 1) {
    pad.push_back(0);
    stride.push_back(1);
    dilate.push_back(1);
  }
  for (int i = 0; i < n; ++i) {
    int64_t pd = p.pad[i];
    if (p.deconv && !p.target_shape.empty()) {
      // The padding that makes the output exactly the target (as on CPU).
      const int64_t total =
          p.stride[i] * (data.shape()[2 + i] - 1) + p.DilatedKernel(i) - out_shape[2 + i];
      pd = (total + 1) / 2;
    }
    pad.push_back(static_cast<int>(pd));
    stride.push_back(static_cast<int>(p.stride[i]));
    dilate.push_back(static_cast<int>(p.dilate[i]));
  }
  SYMX_CUDNN_RETURN_IF_ERROR(c, cudnnCreateConvolutionDescriptor(&state->conv_));
  SYMX_CUDNN_RETURN_IF_ERROR(
      c, cudnnSetConvolutionNdDescriptor(
             state->conv_, static_cast<int>(pad.size()), pad.data(), stride.data(), dilate.data(),
             CUDNN_CROSS_CORRELATION, elem == Elem::kF64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
  SYMX_CUDNN_RETURN_IF_ERROR(
      c, cudnnSetConvolutionGroupCount(state->conv_, static_cast<int>(p.num_group)));
  SYMX_CUDNN_RETURN_IF_ERROR(
      c, cudnnSetConvolutionMathType(state->conv_, elem == Elem::kF16 || elem == Elem::kBF16
                                                       ? CUDNN_TENSOR_OP_MATH
                                                       : CUDNN_FMA_MATH));
  // The columns side must be what the convolution makes of the image side.
  std::vector<int> expect(Dims4(col).size());
  SYMX_CUDNN_RETURN_IF_ERROR(
      c, cudnnGetConvolutionNdForwardOutputDim(state->conv_, state->img_, state->filter_,
                                               static_cast<int>(expect.size()), expect.data()));
  if (expect != Dims4(col)) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx->Where(), ": data ", data.DebugString(), " and output ", out_shape.ToString(),
        " do not match the kernel, stride, dilate and pad (cuDNN expects columns [",
        absl::StrJoin(expect, ","), "])"));
  }

  const size_t limit = static_cast<size_t>(p.workspace > 0 ? p.workspace : 1024) << 20;
  // Per physical device: GPUs of different models may want other algorithms.
  const std::string key = absl::StrCat(
      device->ordinal(), "|", static_cast<int>(elem), "|", img.ToString(), "|", col.ToString(), "|",
      weight.shape().ToString(), "|", absl::StrJoin(pad, ","), "|", absl::StrJoin(stride, ","), "|",
      absl::StrJoin(dilate, ","), "|", p.num_group, "|", limit);
  bool cached = false;
  {
    std::lock_guard<std::mutex> lock(algo_mu);
    auto it = AlgoCache().find(key);
    cached = it != AlgoCache().end();
    if (cached) state->algos = it->second;
  }
  if (!cached) {
    SYMX_ASSIGN_OR_RETURN(cudnnHandle_t handle, device->cudnn());
    ConvAlgos& a = state->algos;
    constexpr int kMaxAlgos = 16;
    int found = 0;
    cudnnConvolutionFwdAlgoPerf_t fwd[kMaxAlgos];
    SYMX_CUDNN_RETURN_IF_ERROR(
        c, cudnnGetConvolutionForwardAlgorithm_v7(handle, state->img_, state->filter_, state->conv_,
                                                  state->col_, kMaxAlgos, &found, fwd));
    bool ok = false;
    for (int i = 0; i < found && !ok; ++i) {
      if (fwd[i].status == CUDNN_STATUS_SUCCESS && fwd[i].memory <= limit) {
        a.fwd = fwd[i].algo;
        a.fwd_bytes = fwd[i].memory;
        ok = true;
      }
    }
    cudnnConvolutionBwdDataAlgoPerf_t bd[kMaxAlgos];
    SYMX_CUDNN_RETURN_IF_ERROR(c, cudnnGetConvolutionBackwardDataAlgorithm_v7(
                                      handle, state->filter_, state->col_, state->conv_,
                                      state->img_, kMaxAlgos, &found, bd));
    bool ok_bd = false;
    for (int i = 0; i < found && !ok_bd; ++i) {
      if (bd[i].status == CUDNN_STATUS_SUCCESS && bd[i].memory <= limit) {
        a.bwd_data = bd[i].algo;
        a.bwd_data_bytes = bd[i].memory;
        ok_bd = true;
      }
    }
    cudnnConvolutionBwdFilterAlgoPerf_t bf[kMaxAlgos];
    SYMX_CUDNN_RETURN_IF_ERROR(c, cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                                      handle, state->img_, state->col_, state->conv_,
                                      state->filter_, kMaxAlgos, &found, bf));
    bool ok_bf = false;
    for (int i = 0; i < found && !ok_bf; ++i) {
      if (bf[i].status == CUDNN_STATUS_SUCCESS && bf[i].memory <= limit) {
        a.bwd_filter = bf[i].algo;
        a.bwd_filter_bytes = bf[i].memory;
        ok_bf = true;
      }
    }
    if (!ok || !ok_bd || !ok_bf) {
      return absl::ResourceExhaustedError(absl::StrCat(
          ctx->Where(),
          ": cuDNN has no algorithm for this convolution within workspace=", limit >> 20, " MB"));
    }
    // The exact scratch of the chosen algorithms (the heuristics' figures
    // are estimates).
    SYMX_CUDNN_RETURN_IF_ERROR(
        c, cudnnGetConvolutionForwardWorkspaceSize(handle, state->img_, state->filter_,
                                                   state->conv_, state->col_, a.fwd, &a.fwd_bytes));
    SYMX_CUDNN_RETURN_IF_ERROR(c, cudnnGetConvolutionBackwardDataWorkspaceSize(
                                      handle, state->filter_, state->col_, state->conv_,
                                      state->img_, a.bwd_data, &a.bwd_data_bytes));
    SYMX_CUDNN_RETURN_IF_ERROR(c, cudnnGetConvolutionBackwardFilterWorkspaceSize(
                                      handle, state->img_, state->col_, state->conv_,
                                      state->filter_, a.bwd_filter, &a.bwd_filter_bytes));
    std::lock_guard<std::mutex> lock(algo_mu);
    AlgoCache().emplace(key, a);
  }
  const ConvAlgos& a = state->algos;
  // The image-to-columns pass is cuDNN's forward, the reverse its backward-data.
  const size_t img_to_col = a.fwd_bytes, col_to_img = a.bwd_data_bytes;
  if (!backward) {
    *workspace_bytes = p.deconv ? col_to_img : img_to_col;
  } else {
    *workspace_bytes = std::max(p.deconv ? img_to_col : col_to_img, a.bwd_filter_bytes);
  }
  ctx->state = state;
  return absl::OkStatus();
}

absl::Status PrepareForward(KernelContext* ctx, size_t* bytes) {
  return PrepareConv(ctx, bytes, false);
}
absl::Status PrepareBackward(KernelContext* ctx, size_t* bytes) {
  return PrepareConv(ctx, bytes, true);
}

// Scaling factors: double for float64 data, float otherwise (cuDNN's rule).
struct Scale {
  explicit Scale(Elem t, double v) : f(static_cast<float>(v)), d(v), is_double(t == Elem::kF64) {}
  const void* get() const { return is_double ? static_cast<const void*>(&d) : &f; }
  float f;
  double d;
  bool is_double;
};

void* Workspace(const KernelContext& ctx) {
  return ctx.workspace.defined() && ctx.workspace.nbytes() > 0 ? ctx.workspace.raw_data() : nullptr;
}

size_t WorkspaceBytes(const KernelContext& ctx) {
  return ctx.workspace.defined() ? ctx.workspace.nbytes() : 0;
}

// img -> columns (cudnnConvolutionForward).
absl::Status ImgToCol(const KernelContext& ctx, CudaDevice* device, const CudnnConv& s,
                      const void* img, const void* w, void* col) {
  SYMX_ASSIGN_OR_RETURN(cudnnHandle_t handle, device->cudnn());
  const Scale one(s.elem, 1), zero(s.elem, 0);
  SYMX_CUDNN_RETURN_IF_ERROR(
      device->ctx(),
      cudnnConvolutionForward(handle, one.get(), s.img_, img, s.filter_, w, s.conv_, s.algos.fwd,
                              Workspace(ctx), WorkspaceBytes(ctx), zero.get(), s.col_, col));
  return absl::OkStatus();
}

// columns -> img (cudnnConvolutionBackwardData).
absl::Status ColToImg(const KernelContext& ctx, CudaDevice* device, const CudnnConv& s,
                      const void* col, const void* w, void* img) {
  SYMX_ASSIGN_OR_RETURN(cudnnHandle_t handle, device->cudnn());
  const Scale one(s.elem, 1), zero(s.elem, 0);
  SYMX_CUDNN_RETURN_IF_ERROR(
      device->ctx(), cudnnConvolutionBackwardData(handle, one.get(), s.filter_, w, s.col_, col,
                                                  s.conv_, s.algos.bwd_data, Workspace(ctx),
                                                  WorkspaceBytes(ctx), zero.get(), s.img_, img));
  return absl::OkStatus();
}

// Adds bias[c] over the channels of an (N, C, spatial...) tensor.
absl::Status AddBias(const KernelContext& ctx, CudaDevice* device, Elem t, const Tensor& out,
                     const Tensor& bias) {
  const int64_t c = out.shape()[1];
  BroadcastDims d;
  d.ndim = 3;
  d.out_dims[0] = out.shape()[0];
  d.out_dims[1] = c;
  d.out_dims[2] = c == 0 || out.shape()[0] == 0 ? 0 : out.size() / (out.shape()[0] * c);
  d.a_strides[0] = c * d.out_dims[2];
  d.a_strides[1] = d.out_dims[2];
  d.a_strides[2] = 1;
  d.b_strides[1] = 1;
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchBroadcast(BinaryFn::kAdd, t, out.read_raw_data(), bias.read_raw_data(),
                                   out.raw_data(), d, out.size(), device->stream()));
  return absl::OkStatus();
}

absl::Status Forward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  auto* s = dynamic_cast<CudnnConv*>(ctx.state.get());
  if (s == nullptr) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": not prepared at Bind"));
  }
  const auto& p = ctx.param<ConvParam>();
  const Tensor& data = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (!s->empty) {
    if (p.deconv) {
      SYMX_RETURN_IF_ERROR(ColToImg(ctx, device, *s, data.read_raw_data(),
                                    ctx.inputs[1].read_raw_data(), out.raw_data()));
    } else {
      SYMX_RETURN_IF_ERROR(ImgToCol(ctx, device, *s, data.read_raw_data(),
                                    ctx.inputs[1].read_raw_data(), out.raw_data()));
    }
  } else if (out.size() > 0) {
    SYMX_RETURN_IF_ERROR(device->Memset(out.raw_data(), 0, out.nbytes()));
  }
  if (!p.no_bias) SYMX_RETURN_IF_ERROR(AddBias(ctx, device, s->elem, out, ctx.inputs[2]));
  return absl::OkStatus();
}

// Inputs: ograd, data, weight. Outputs: grad data, grad weight[, grad bias].
absl::Status Backward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  auto* s = dynamic_cast<CudnnConv*>(ctx.state.get());
  if (s == nullptr) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": not prepared at Bind"));
  }
  const auto& p = ctx.param<ConvParam>();
  const Tensor& dy = ctx.inputs[0];
  const Tensor& x = ctx.inputs[1];
  const Tensor& w = ctx.inputs[2];
  if (s->empty) {
    // No products: the data and weight gradients are zeros.
    for (size_t j = 0; j < 2 && j < ctx.outputs.size(); ++j) {
      if (OutputWanted(ctx.req, j)) {
        SYMX_RETURN_IF_ERROR(device->Memset(ctx.outputs[j].raw_data(), 0, ctx.outputs[j].nbytes()));
      }
    }
  }
  // The image and columns of this convolution.
  const void* img = p.deconv ? dy.read_raw_data() : x.read_raw_data();
  const void* dcol = p.deconv ? x.read_raw_data() : dy.read_raw_data();
  if (!s->empty && OutputWanted(ctx.req, 0)) {
    if (p.deconv) {
      SYMX_RETURN_IF_ERROR(ImgToCol(ctx, device, *s, dy.read_raw_data(), w.read_raw_data(),
                                    ctx.outputs[0].raw_data()));
    } else {
      SYMX_RETURN_IF_ERROR(ColToImg(ctx, device, *s, dy.read_raw_data(), w.read_raw_data(),
                                    ctx.outputs[0].raw_data()));
    }
  }
  if (!s->empty && OutputWanted(ctx.req, 1)) {
    SYMX_ASSIGN_OR_RETURN(cudnnHandle_t handle, device->cudnn());
    const Scale one(s->elem, 1), zero(s->elem, 0);
    SYMX_CUDNN_RETURN_IF_ERROR(
        device->ctx(),
        cudnnConvolutionBackwardFilter(handle, one.get(), s->img_, img, s->col_, dcol, s->conv_,
                                       s->algos.bwd_filter, Workspace(ctx), WorkspaceBytes(ctx),
                                       zero.get(), s->filter_, ctx.outputs[1].raw_data()));
  }
  if (!p.no_bias && ctx.outputs.size() > 2 && OutputWanted(ctx.req, 2)) {
    // Bias gradient: dY summed over samples and space per channel (dY is
    // the columns for Convolution, the image for Deconvolution).
    const Shape& ds = dy.shape();
    const int64_t c = ds[1];
    const int64_t space = ds[0] == 0 || c == 0 ? 0 : dy.size() / (ds[0] * c);
    StridedDims kept, reduced;
    kept.ndim = 1;
    kept.dims[0] = c;
    kept.src_strides[0] = space;
    reduced.ndim = 2;
    reduced.dims[0] = ds[0];
    reduced.src_strides[0] = c * space;
    reduced.dims[1] = space;
    reduced.src_strides[1] = 1;
    SYMX_CUDA_LAUNCH(
        ctx, LaunchReduceStrided(ReduceFn::kSum, s->elem, dy.read_raw_data(), kept, reduced, 1.0,
                                 ctx.outputs[2].raw_data(), c, device->stream()));
  }
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("Convolution", kGPU, .fn = Forward, .prepare = PrepareForward);
SYMX_REGISTER_KERNEL("Convolution_v1", kGPU, .fn = Forward, .prepare = PrepareForward);
SYMX_REGISTER_KERNEL("Deconvolution", kGPU, .fn = Forward, .prepare = PrepareForward);
SYMX_REGISTER_KERNEL("_backward_Convolution", kGPU, .fn = Backward, .prepare = PrepareBackward);
SYMX_REGISTER_KERNEL("_backward_Deconvolution", kGPU, .fn = Backward, .prepare = PrepareBackward);

}  // namespace cuda

}  // namespace symx
