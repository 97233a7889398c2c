#include "devices/tensor.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "devices/device.h"
#include "devices/dtype_switch.h"
#include "graph/error.h"

namespace symx {

Tensor::Tensor(std::shared_ptr<Storage> storage, size_t offset, Shape shape, DType dtype)
    : storage_(std::move(storage)), offset_(offset), shape_(std::move(shape)), dtype_(dtype) {
  size_ = shape_.Size();
}

absl::StatusOr<size_t> CheckedBytes(const Shape& shape, DType dtype) {
  if (!shape.fully_known()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot allocate a tensor of partly unknown shape ", shape.ToString()));
  }
  if (DTypeSize(dtype) == 0) {
    return absl::InvalidArgumentError("cannot allocate a tensor of unknown dtype");
  }
  // Any zero dim makes the tensor empty, whatever the others are.
  for (int64_t d : shape.dims()) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot allocate a tensor of negative shape ", shape.ToString()));
    }
    if (d == 0) return size_t{0};
  }
  // At most 2^62 bytes: leaves room for alignment and offsets without wrapping.
  constexpr uint64_t kMaxBytes = uint64_t{1} << 62;
  uint64_t bytes = DTypeSize(dtype);
  for (int64_t d : shape.dims()) {
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes) || bytes > kMaxBytes) {
      return absl::ResourceExhaustedError(absl::StrCat("a ", DTypeName(dtype), " tensor of shape ",
                                                       shape.ToString(),
                                                       " is too large to allocate"));
    }
  }
  return static_cast<size_t>(bytes);
}

absl::StatusOr<Tensor> Tensor::Empty(const Shape& shape, DType dtype, Context ctx) {
  SYMX_ASSIGN_OR_RETURN(size_t bytes, CheckedBytes(shape, dtype));
  SYMX_ASSIGN_OR_RETURN(Device * device, GetDevice(ctx));
  SYMX_ASSIGN_OR_RETURN(std::shared_ptr<Storage> storage, device->allocator().Allocate(bytes));
  return Tensor(std::move(storage), 0, shape, dtype);
}

namespace {

// The device of `ctx` when host code cannot dereference its memory (a GPU);
// null for host memory. Tensors exist only on devices that exist.
Device* NonHostDevice(const Context& ctx) {
  if (ctx.type == DeviceType::kCPU) return nullptr;
  absl::StatusOr<Device*> d = GetDevice(ctx);
  return d.ok() && !(*d)->host_memory() ? *d : nullptr;
}

// Host bytes of `t`, wherever it lives.
absl::StatusOr<std::vector<char>> HostBytes(const Tensor& t) {
  std::vector<char> bytes(t.nbytes());
  if (bytes.empty()) return bytes;  // nothing to move (and data() may be null)
  if (Device* d = NonHostDevice(t.ctx())) {
    SYMX_RETURN_IF_ERROR(d->CopyToHost(t.read_raw_data(), bytes.data(), bytes.size()));
  } else {
    std::memcpy(bytes.data(), t.read_raw_data(), bytes.size());
  }
  return bytes;
}

// Writes `bytes` (t.nbytes() of them) into `t`, wherever it lives.
absl::Status SetBytes(const Tensor& t, const std::vector<char>& bytes) {
  if (bytes.empty()) return absl::OkStatus();
  if (Device* d = NonHostDevice(t.ctx())) {
    return d->CopyFromHost(bytes.data(), t.raw_data(), bytes.size());
  }
  std::memcpy(t.raw_data(), bytes.data(), bytes.size());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Tensor> Tensor::Zeros(const Shape& shape, DType dtype, Context ctx) {
  SYMX_ASSIGN_OR_RETURN(Tensor t, Empty(shape, dtype, ctx));
  SYMX_ASSIGN_OR_RETURN(Device * device, GetDevice(ctx));
  SYMX_RETURN_IF_ERROR(device->Memset(t.raw_data(), 0, t.nbytes()));
  return t;
}

Tensor Tensor::FromVector(const Shape& shape, const std::vector<double>& values, DType dtype,
                          Context ctx) {
  Tensor t = ValueOrThrow(Empty(shape, dtype, ctx));
  if (static_cast<int64_t>(values.size()) != t.size()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("FromVector: ", values.size(), " values for shape ", shape.ToString())));
  }
  if (NonHostDevice(ctx) == nullptr) {
    ConvertElements(values.data(), DType::kFloat64, t.raw_data(), dtype, t.size());
    return t;
  }
  std::vector<char> bytes(t.nbytes());
  ConvertElements(values.data(), DType::kFloat64, bytes.data(), dtype, t.size());
  ThrowIfError(SetBytes(t, bytes));
  return t;
}

absl::StatusOr<Tensor> Tensor::View(const Shape& shape) const { return View(shape, dtype_); }

absl::StatusOr<Tensor> Tensor::View(const Shape& shape, DType dtype) const {
  if (!defined()) return absl::FailedPreconditionError("cannot view an undefined tensor");
  SYMX_ASSIGN_OR_RETURN(size_t need, CheckedBytes(shape, dtype));
  size_t have = storage_->bytes() - offset_;
  if (need > have) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot view ", DebugString(), " as ", DTypeName(dtype), " ", shape.ToString(),
                     ": needs ", need, " bytes, the storage holds ", have));
  }
  return Tensor(storage_, offset_, shape, dtype);
}

absl::StatusOr<Tensor> Tensor::Slice(int64_t begin, int64_t end) const {
  if (shape_.ndim() < 1) return absl::InvalidArgumentError("cannot slice a 0-d tensor");
  if (begin < 0 || end < begin || end > shape_[0]) {
    return absl::OutOfRangeError(
        absl::StrCat("slice [", begin, ", ", end, ") is out of range for ", DebugString()));
  }
  std::vector<int64_t> dims = shape_.dims();
  int64_t row = dims[0] == 0 ? 0 : size_ / dims[0];
  dims[0] = end - begin;
  return Tensor(storage_, offset_ + static_cast<size_t>(begin * row) * DTypeSize(dtype_),
                Shape(dims), dtype_);
}

void Tensor::Fill(double value) const {
  Device* device = NonHostDevice(ctx());
  std::vector<char> staged(device != nullptr ? nbytes() : 0);
  SYMX_DTYPE_SWITCH_ALL(dtype_, T, {
    T v = FromDouble<T>(value);
    T* p = device != nullptr ? reinterpret_cast<T*>(staged.data()) : data<T>();
    for (int64_t i = 0; i < size_; ++i) p[i] = v;
  });
  if (device != nullptr) ThrowIfError(SetBytes(*this, staged));
}

std::vector<double> Tensor::ToDoubles() const { return ValueOrThrow(HostDoubles(*this)); }

absl::StatusOr<std::vector<double>> HostDoubles(const Tensor& t) {
  std::vector<double> out(t.size());
  if (NonHostDevice(t.ctx()) == nullptr) {
    ConvertElements(t.read_raw_data(), t.dtype(), out.data(), DType::kFloat64, t.size());
    return out;
  }
  SYMX_ASSIGN_OR_RETURN(std::vector<char> bytes, HostBytes(t));
  ConvertElements(bytes.data(), t.dtype(), out.data(), DType::kFloat64, t.size());
  return out;
}

std::string Tensor::DebugString() const {
  if (!defined()) return "<undefined tensor>";
  return absl::StrCat(DTypeName(dtype_), " ", shape_.ToString(), " on ", ctx().ToString());
}

namespace {

// Integers convert directly (no rounding through double: int64 2^53 + 1
// survives); floating values going to an integer type are clamped to its range
// and NaN becomes 0, where a plain cast would be undefined.
template <typename S, typename D>
D ConvertOne(S v) {
  constexpr bool kIntSrc = std::is_integral_v<S>;
  constexpr bool kIntDst = std::is_integral_v<D>;
  if constexpr (std::is_same_v<D, bool>) {
    return ToDouble(v) != 0.0;
  } else if constexpr (kIntSrc && kIntDst) {
    return static_cast<D>(v);
  } else if constexpr (kIntDst) {
    double x = ToDouble(v);
    if (std::isnan(x)) return D(0);
    if (x <= static_cast<double>(std::numeric_limits<D>::lowest())) {
      return std::numeric_limits<D>::lowest();
    }
    if (x >= static_cast<double>(std::numeric_limits<D>::max())) {
      return std::numeric_limits<D>::max();
    }
    return static_cast<D>(x);
  } else {
    return FromDouble<D>(ToDouble(v));
  }
}

template <typename S, typename D>
void ConvertTyped(const S* src, D* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = ConvertOne<S, D>(src[i]);
}

template <typename S, typename D>
void ConvertDispatch(const void* src, void* dst, int64_t n) {
  ConvertTyped(static_cast<const S*>(src), static_cast<D*>(dst), n);
}

}  // namespace

void ConvertElements(const void* src, DType src_dtype, void* dst, DType dst_dtype, int64_t n) {
  // Zero elements: nothing to do, and an empty vector's data() may be null,
  // which memmove must not see.
  if (n <= 0) return;
  if (src_dtype == dst_dtype) {
    if (src != dst) std::memmove(dst, src, static_cast<size_t>(n) * DTypeSize(src_dtype));
    return;
  }
  SYMX_DTYPE_SWITCH_ALL(src_dtype, S, {
    SYMX_DTYPE_SWITCH_ALL(dst_dtype, D, { ConvertDispatch<S, D>(src, dst, n); });
  });
}

absl::Status CopyTensor(const Tensor& src, const Tensor& dst) {
  if (!src.defined() || !dst.defined()) {
    return absl::InvalidArgumentError("cannot copy from or to an undefined tensor");
  }
  if (src.size() != dst.size()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot copy ", src.DebugString(), " into ",
                                                   dst.DebugString(), ": sizes differ"));
  }
  Device* src_device = NonHostDevice(src.ctx());
  Device* dst_device = NonHostDevice(dst.ctx());
  if (src_device == nullptr && dst_device == nullptr) {
    ConvertElements(src.read_raw_data(), src.dtype(), dst.raw_data(), dst.dtype(), src.size());
    return absl::OkStatus();
  }
  absl::Status s;
  if (src.dtype() == dst.dtype()) {
    // Bytes move directly: host<->device or device<->device.
    if (dst_device != nullptr && src_device != nullptr) {
      s = dst_device->CopyFromDevice(*src_device, src.read_raw_data(), dst.raw_data(),
                                     src.nbytes());
    } else if (dst_device != nullptr) {
      s = dst_device->CopyFromHost(src.read_raw_data(), dst.raw_data(), src.nbytes());
    } else {
      s = src_device->CopyToHost(src.read_raw_data(), dst.raw_data(), src.nbytes());
    }
  } else {
    // A dtype change across a device boundary converts in host memory; the
    // executor's casts run as Cast kernels on the device instead.
    absl::StatusOr<std::vector<char>> bytes = HostBytes(src);
    s = bytes.status();
    if (s.ok()) {
      std::vector<char> converted(dst.nbytes());
      ConvertElements(bytes->data(), src.dtype(), converted.data(), dst.dtype(), src.size());
      s = SetBytes(dst, converted);
    }
  }
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("copying ", src.DebugString(), " into ",
                                               dst.DebugString(), ": ", s.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> CopyToNew(const Tensor& src, Context ctx, DType dtype) {
  SYMX_ASSIGN_OR_RETURN(Tensor dst, Tensor::Empty(src.shape(), dtype, ctx));
  SYMX_RETURN_IF_ERROR(CopyTensor(src, dst));
  return dst;
}

}  // namespace symx
