// Tensor: the NDArray. A shape (int64 dims), a dtype, a context, and a
// reference-counted Storage plus a byte offset; views and slices share storage.
//
// Tensors are cheap handles (copying one copies the reference, not the data).
// Creation allocates through the device's Allocator so memory is accounted.
//
// Thread safety: a Tensor handle is a value: one handle must not be assigned
// on one thread while another reads it, but copies of a handle may be used
// on different threads (the shared Storage's reference count is atomic, and
// so is its write counter). The data is not guarded: threads that write one
// tensor's elements, or write while another reads, must order that
// themselves (the executor does, with its step dependencies and devices'
// streams).
#ifndef SYMX_DEVICES_TENSOR_H_
#define SYMX_DEVICES_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "devices/allocator.h"
#include "devices/context.h"
#include "graph/dtype.h"
#include "graph/shape.h"

namespace symx {

class Tensor {
 public:
  // An undefined tensor ("none").
  Tensor() = default;
  Tensor(std::shared_ptr<Storage> storage, size_t offset, Shape shape, DType dtype);

  // Uninitialized memory on `ctx` (errors: unknown device, out of memory,
  // shape not fully known).
  static absl::StatusOr<Tensor> Empty(const Shape& shape, DType dtype, Context ctx = Context());
  static absl::StatusOr<Tensor> Zeros(const Shape& shape, DType dtype, Context ctx = Context());
  // A host tensor holding `values` converted to `dtype` (tests, tools); the
  // count must match the shape. Throws symx::Error on bad input.
  static Tensor FromVector(const Shape& shape, const std::vector<double>& values,
                           DType dtype = DType::kFloat32, Context ctx = Context());

  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  const Context& ctx() const { return storage_->ctx(); }
  int64_t size() const { return size_; }
  size_t nbytes() const { return static_cast<size_t>(size_) * DTypeSize(dtype_); }
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  size_t offset() const { return offset_; }

  // A writable pointer. Taking one counts as a write to the storage
  // (Storage::writes), so what was derived from the old contents is rebuilt:
  // write through a pointer taken after the last Forward, not one kept from
  // before it.
  void* raw_data() const {
    storage_->NoteWrite();
    return static_cast<char*>(storage_->data()) + offset_;
  }
  template <typename T>
  T* data() const {
    return static_cast<T*>(raw_data());
  }
  // A pointer for reading only (no write is counted).
  const void* read_raw_data() const { return static_cast<char*>(storage_->data()) + offset_; }
  template <typename T>
  const T* read_data() const {
    return static_cast<const T*>(read_raw_data());
  }

  // The same storage seen with another shape (and optionally dtype) whose
  // byte size fits in what this tensor's storage holds from its offset.
  absl::StatusOr<Tensor> View(const Shape& shape) const;
  absl::StatusOr<Tensor> View(const Shape& shape, DType dtype) const;
  // Rows [begin, end) along the first axis, sharing storage.
  absl::StatusOr<Tensor> Slice(int64_t begin, int64_t end) const;
  bool SharesStorageWith(const Tensor& other) const {
    return storage_ != nullptr && storage_ == other.storage_;
  }

  // Sets every element to `value` (converted to the dtype).
  void Fill(double value) const;
  // Every element converted to double (tests, tools, small tensors).
  std::vector<double> ToDoubles() const;
  // "float32 [2,3] on cpu(0)".
  std::string DebugString() const;

 private:
  std::shared_ptr<Storage> storage_;
  size_t offset_ = 0;
  Shape shape_;
  DType dtype_ = DType::kFloat32;
  int64_t size_ = 0;
};

// Copies `src` into `dst`: equal element counts, converting dtypes; works
// across any two contexts this build supports. Errors name both tensors.
absl::Status CopyTensor(const Tensor& src, const Tensor& dst);

// A new tensor on `ctx` with src's data converted to `dtype`.
absl::StatusOr<Tensor> CopyToNew(const Tensor& src, Context ctx, DType dtype);

// Bytes of a tensor of `shape` and `dtype`, or an error when the shape is not
// fully known, has a negative dim, or its size overflows (a malformed file or
// flag must not turn into a tiny allocation that kernels then overrun).
absl::StatusOr<size_t> CheckedBytes(const Shape& shape, DType dtype);

// Every element of `t`, wherever it lives, converted to double on the host
// (labels, lengths, indices a kernel must read on the host); a device copy
// waits for the work that writes `t`. Errors name the device.
absl::StatusOr<std::vector<double>> HostDoubles(const Tensor& t);

// Converts `n` elements between any two storage dtypes (host memory).
void ConvertElements(const void* src, DType src_dtype, void* dst, DType dst_dtype, int64_t n);

}  // namespace symx

#endif  // SYMX_DEVICES_TENSOR_H_
