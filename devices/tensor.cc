#include "devices/tensor.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "devices/device.h"
#include "devices/dtype_switch.h"
#include "graph/error.h"

namespace symx {

Tensor::Tensor(std::shared_ptr<Storage> storage, size_t offset, Shape shape, DType dtype)
    : storage_(std::move(storage)), offset_(offset), shape_(std::move(shape)), dtype_(dtype) {
  size_ = shape_.Size();
}

absl::StatusOr<Tensor> Tensor::Empty(const Shape& shape, DType dtype, Context ctx) {
  if (!shape.fully_known()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot allocate a tensor of partly unknown shape ", shape.ToString()));
  }
  for (int64_t d : shape.dims()) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot allocate a tensor of negative shape ", shape.ToString()));
    }
  }
  if (DTypeSize(dtype) == 0) {
    return absl::InvalidArgumentError("cannot allocate a tensor of unknown dtype");
  }
  SYMX_ASSIGN_OR_RETURN(Device * device, GetDevice(ctx));
  size_t bytes = static_cast<size_t>(shape.Size()) * DTypeSize(dtype);
  SYMX_ASSIGN_OR_RETURN(std::shared_ptr<Storage> storage, device->allocator().Allocate(bytes));
  return Tensor(std::move(storage), 0, shape, dtype);
}

absl::StatusOr<Tensor> Tensor::Zeros(const Shape& shape, DType dtype, Context ctx) {
  SYMX_ASSIGN_OR_RETURN(Tensor t, Empty(shape, dtype, ctx));
  std::memset(t.raw_data(), 0, t.nbytes());
  return t;
}

Tensor Tensor::FromVector(const Shape& shape, const std::vector<double>& values, DType dtype,
                          Context ctx) {
  Tensor t = ValueOrThrow(Empty(shape, dtype, ctx));
  if (static_cast<int64_t>(values.size()) != t.size()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("FromVector: ", values.size(), " values for shape ", shape.ToString())));
  }
  ConvertElements(values.data(), DType::kFloat64, t.raw_data(), dtype, t.size());
  return t;
}

absl::StatusOr<Tensor> Tensor::View(const Shape& shape) const { return View(shape, dtype_); }

absl::StatusOr<Tensor> Tensor::View(const Shape& shape, DType dtype) const {
  if (!defined()) return absl::FailedPreconditionError("cannot view an undefined tensor");
  if (!shape.fully_known()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot view as unknown shape ", shape.ToString()));
  }
  size_t need = static_cast<size_t>(shape.Size()) * DTypeSize(dtype);
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
  SYMX_DTYPE_SWITCH_ALL(dtype_, T, {
    T v = FromDouble<T>(value);
    T* p = data<T>();
    for (int64_t i = 0; i < size_; ++i) p[i] = v;
  });
}

std::vector<double> Tensor::ToDoubles() const {
  std::vector<double> out(size_);
  ConvertElements(raw_data(), dtype_, out.data(), DType::kFloat64, size_);
  return out;
}

std::string Tensor::DebugString() const {
  if (!defined()) return "<undefined tensor>";
  return absl::StrCat(DTypeName(dtype_), " ", shape_.ToString(), " on ", ctx().ToString());
}

namespace {

template <typename S, typename D>
void ConvertTyped(const S* src, D* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = FromDouble<D>(ToDouble(src[i]));
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
  // Every device of this build keeps its memory in host address space.
  ConvertElements(src.raw_data(), src.dtype(), dst.raw_data(), dst.dtype(), src.size());
  return absl::OkStatus();
}

absl::StatusOr<Tensor> CopyToNew(const Tensor& src, Context ctx, DType dtype) {
  SYMX_ASSIGN_OR_RETURN(Tensor dst, Tensor::Empty(src.shape(), dtype, ctx));
  SYMX_RETURN_IF_ERROR(CopyTensor(src, dst));
  return dst;
}

}  // namespace symx
