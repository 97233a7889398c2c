#include "devices/params_io.h"

#include <cstring>
#include <functional>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "devices/context.h"
#include "graph/error.h"
#include "graph/file_io.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "params_io reads and writes little-endian data by memcpy: port it to byte swaps first"
#endif

namespace symx {
namespace {

constexpr int kStypeUndefined = -1;
constexpr int kStypeDense = 0;
constexpr int kStypeRowSparse = 1;
constexpr int kStypeCsr = 2;
// A pre-V1 record starts with ndim; anything larger is treated as a bad magic.
constexpr uint32_t kMaxLegacyNdim = 32;
// The smallest possible record: a pre-V1 none array (a single u32 0).
constexpr uint64_t kMinRecordBytes = 4;

// Product of the dims, or false when it does not fit an int64. Zero dims are
// skipped while checking so that no ordering of the multiplication overflows
// (Shape::Size multiplies left to right).
bool CheckedElementCount(const std::vector<int64_t>& dims, int64_t* count) {
  int64_t nonzero = 1;
  bool zero = false;
  for (int64_t d : dims) {
    if (d == 0) {
      zero = true;
      continue;
    }
    if (nonzero > std::numeric_limits<int64_t>::max() / d) return false;
    nonzero *= d;
  }
  *count = zero ? 0 : nonzero;
  return true;
}

bool CheckedBytes(int64_t count, size_t elem, uint64_t* bytes) {
  if (count < 0) return false;
  if (elem != 0 && static_cast<uint64_t>(count) > std::numeric_limits<uint64_t>::max() / elem) {
    return false;
  }
  *bytes = static_cast<uint64_t>(count) * elem;
  return true;
}

bool IsIntegerDType(DType t) {
  switch (t) {
    case DType::kUint8:
    case DType::kInt8:
    case DType::kInt16:
    case DType::kUint16:
    case DType::kInt32:
    case DType::kUint32:
    case DType::kInt64:
    case DType::kUint64:
      return true;
    default:
      return false;
  }
}

// Reads element `i` of an integer array of dtype `t` (unaligned) as int64;
// false for a uint64 beyond int64's range.
bool ReadIndex(const char* base, DType t, int64_t i, int64_t* out) {
  const char* p = base + static_cast<size_t>(i) * DTypeSize(t);
  switch (t) {
#define SYMX_READ_INDEX_(flag, ctype) \
  case DType::flag: {                 \
    ctype v;                          \
    std::memcpy(&v, p, sizeof(v));    \
    *out = static_cast<int64_t>(v);   \
    return true;                      \
  }
    SYMX_READ_INDEX_(kUint8, uint8_t)
    SYMX_READ_INDEX_(kInt8, int8_t)
    SYMX_READ_INDEX_(kInt16, int16_t)
    SYMX_READ_INDEX_(kUint16, uint16_t)
    SYMX_READ_INDEX_(kInt32, int32_t)
    SYMX_READ_INDEX_(kUint32, uint32_t)
    SYMX_READ_INDEX_(kInt64, int64_t)
#undef SYMX_READ_INDEX_
    case DType::kUint64: {
      uint64_t v;
      std::memcpy(&v, p, sizeof(v));
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
      *out = static_cast<int64_t>(v);
      return true;
    }
    default:
      return false;
  }
}

void NormalizeBools(const Tensor& t) {
  if (t.dtype() != DType::kBool) return;
  unsigned char* p = static_cast<unsigned char*>(t.raw_data());
  for (int64_t i = 0; i < t.size(); ++i) p[i] = p[i] != 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------
// Parsing, pass 1: the layout of every record (no tensor memory is allocated).

struct AuxLayout {
  const char* name;  // "idx", "indptr"
  DType dtype = DType::kInt64;
  Shape shape;
  size_t offset = 0;
  size_t bytes = 0;
};

struct RecordLayout {
  int version = 2;  // 0 = pre-V1
  bool none = false;
  int stype = kStypeDense;
  Shape shape;
  Shape storage_shape;  // sparse only
  DType dtype = DType::kFloat32;
  size_t data_offset = 0;
  size_t data_bytes = 0;
  std::vector<AuxLayout> aux;
};

class Parser {
 public:
  Parser(absl::string_view bytes, absl::string_view source, const LoadParamsOptions& options)
      : buf_(bytes), source_(source), options_(options) {}

  absl::StatusOr<NamedTensors> Parse();

 private:
  size_t left() const { return buf_.size() - pos_; }

  std::string Where() const {
    if (record_ < 0) return absl::StrCat(source_, ": ");
    if (record_ < static_cast<int64_t>(keys_.size())) {
      return absl::StrCat(source_, ": record ", record_, " (", keys_[record_], "): ");
    }
    return absl::StrCat(source_, ": record ", record_, ": ");
  }
  absl::Status Corrupt(absl::string_view what) const {
    return absl::DataLossError(absl::StrCat(Where(), what));
  }
  absl::Status Need(uint64_t n, absl::string_view field) const {
    if (n <= left()) return absl::OkStatus();
    return Corrupt(absl::StrCat("truncated in ", field, ": need ", n, " bytes, ", left(), " left"));
  }
  template <typename T>
  absl::StatusOr<T> Read(absl::string_view field) {
    SYMX_RETURN_IF_ERROR(Need(sizeof(T), field));
    T v;
    std::memcpy(&v, buf_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  absl::Status ParseRecord(RecordLayout* rec);
  // A TShape: i32 ndim, then ndim i64 dims. `*unknown` is set for ndim -1 and
  // (np-shape only) for a dim of -1; other negative values are errors.
  absl::Status ReadTShape(absl::string_view field, bool np_shape, Shape* shape, bool* unknown);
  absl::Status CheckShapeSize(absl::string_view field, const Shape& shape) const;
  absl::Status ReadContext();
  absl::Status TakeBytes(uint64_t n, absl::string_view field, size_t* offset);
  absl::Status ParseKeys(uint64_t n);

  // Pass 2.
  absl::StatusOr<Tensor> Materialize(const RecordLayout& rec) const;
  // The densified size fits the byte range and the caller's cap.
  absl::Status CheckDensifiedSize(const RecordLayout& rec, const std::string& what) const;
  absl::StatusOr<Tensor> DensifyRowSparse(const RecordLayout& rec) const;
  absl::StatusOr<Tensor> DensifyCsr(const RecordLayout& rec) const;
  absl::StatusOr<Tensor> AllocateDense(const RecordLayout& rec) const;

  absl::string_view buf_;
  size_t pos_ = 0;
  std::string source_;
  LoadParamsOptions options_;
  int64_t record_ = -1;
  std::vector<std::string> keys_;
};

absl::Status Parser::CheckShapeSize(absl::string_view field, const Shape& shape) const {
  int64_t count;
  if (!CheckedElementCount(shape.dims(), &count)) {
    return Corrupt(absl::StrCat(field, " ", shape.ToString(), ": the element count overflows"));
  }
  return absl::OkStatus();
}

absl::Status Parser::ReadTShape(absl::string_view field, bool np_shape, Shape* shape,
                                bool* unknown) {
  *unknown = false;
  SYMX_ASSIGN_OR_RETURN(int32_t ndim, Read<int32_t>(absl::StrCat(field, " ndim")));
  if (ndim == -1) {
    *unknown = true;
    *shape = Shape();
    return absl::OkStatus();
  }
  if (ndim < 0) return Corrupt(absl::StrCat(field, ": invalid ndim ", ndim));
  SYMX_RETURN_IF_ERROR(
      Need(uint64_t{8} * static_cast<uint64_t>(ndim), absl::StrCat(field, " (", ndim, " dims)")));
  std::vector<int64_t> dims(static_cast<size_t>(ndim));
  if (ndim > 0) std::memcpy(dims.data(), buf_.data() + pos_, dims.size() * 8);
  pos_ += dims.size() * 8;
  for (int i = 0; i < ndim; ++i) {
    if (dims[i] == -1 && np_shape) {
      *unknown = true;
    } else if (dims[i] < 0) {
      return Corrupt(absl::StrCat(field, ": negative dim ", dims[i], " at axis ", i, " of [",
                                  absl::StrJoin(dims, ","), "]"));
    }
  }
  *shape = Shape(std::move(dims));
  if (*unknown) return absl::OkStatus();
  return CheckShapeSize(field, *shape);
}

absl::Status Parser::ReadContext() {
  SYMX_ASSIGN_OR_RETURN(int32_t dev_type, Read<int32_t>("context dev_type"));
  SYMX_ASSIGN_OR_RETURN(int32_t dev_id, Read<int32_t>("context dev_id"));
  (void)dev_id;  // Everything loads onto cpu(0).
  switch (static_cast<DeviceType>(dev_type)) {
    case DeviceType::kCPU:
    case DeviceType::kGPU:
    case DeviceType::kCPUPinned:
    case DeviceType::kCPUShared:
      return absl::OkStatus();
  }
  return Corrupt(absl::StrCat("context: unknown dev_type ", dev_type,
                              " (expected 1 cpu, 2 gpu, 3 cpu_pinned or 5 cpu_shared)"));
}

absl::Status Parser::TakeBytes(uint64_t n, absl::string_view field, size_t* offset) {
  SYMX_RETURN_IF_ERROR(Need(n, field));
  *offset = pos_;
  pos_ += static_cast<size_t>(n);
  return absl::OkStatus();
}

absl::Status Parser::ParseRecord(RecordLayout* rec) {
  SYMX_ASSIGN_OR_RETURN(uint32_t magic, Read<uint32_t>("record magic"));
  int nad = 0;
  bool unknown = false;
  if (magic == kNDArrayV2Magic || magic == kNDArrayV3Magic) {
    rec->version = magic == kNDArrayV2Magic ? 2 : 3;
    bool np_shape = rec->version == 3;
    SYMX_ASSIGN_OR_RETURN(rec->stype, Read<int32_t>("stype"));
    switch (rec->stype) {
      case kStypeUndefined:
      case kStypeDense:
        break;
      case kStypeRowSparse:
        nad = 1;
        break;
      case kStypeCsr:
        nad = 2;
        break;
      default:
        return Corrupt(absl::StrCat("unknown stype ", rec->stype,
                                    " (expected -1 undefined, 0 dense, 1 row_sparse, 2 csr)"));
    }
    if (np_shape && nad > 0) {
      return Corrupt(absl::StrCat("V3 (np-shape) record with sparse stype ", rec->stype,
                                  ": MXNet writes V3 records dense only"));
    }
    if (nad > 0) {
      SYMX_RETURN_IF_ERROR(ReadTShape("storage shape", false, &rec->storage_shape, &unknown));
      if (unknown) return Corrupt("storage shape: ndim -1 (unknown) in a sparse record");
    }
    SYMX_RETURN_IF_ERROR(ReadTShape("shape", np_shape, &rec->shape, &unknown));
    // np-shape: an unknown shape is a none array. Legacy shape semantics:
    // ndim 0 means unknown, so none (and MXNet >= 1.5 writes none as ndim -1).
    if (unknown || (!np_shape && rec->shape.ndim() == 0)) {
      rec->none = true;
      return absl::OkStatus();
    }
  } else if (magic == kNDArrayV1Magic) {
    rec->version = 1;
    SYMX_RETURN_IF_ERROR(ReadTShape("shape", false, &rec->shape, &unknown));
    if (unknown || rec->shape.ndim() == 0) {
      rec->none = true;
      return absl::OkStatus();
    }
  } else {
    // No magic: the u32 just read is the ndim of a pre-V1 TShape (u32 dims).
    rec->version = 0;
    if (magic > kMaxLegacyNdim) {
      return Corrupt(absl::StrFormat(
          "bad record magic 0x%08X (expected V2 0xF993FAC9, V1 0xF993FAC8 or V3 0xF993FACA; "
          "a pre-V1 record would start with ndim <= %d)",
          magic, kMaxLegacyNdim));
    }
    if (magic == 0) {
      rec->none = true;
      return absl::OkStatus();
    }
    SYMX_RETURN_IF_ERROR(
        Need(uint64_t{4} * magic, absl::StrCat("pre-V1 shape (", magic, " dims)")));
    std::vector<int64_t> dims(magic);
    for (uint32_t i = 0; i < magic; ++i) {
      uint32_t d;
      std::memcpy(&d, buf_.data() + pos_, 4);
      pos_ += 4;
      dims[i] = d;
    }
    rec->shape = Shape(std::move(dims));
    SYMX_RETURN_IF_ERROR(CheckShapeSize("pre-V1 shape", rec->shape));
  }

  SYMX_RETURN_IF_ERROR(ReadContext());
  SYMX_ASSIGN_OR_RETURN(int32_t flag, Read<int32_t>("type flag"));
  if (!IsValidTypeFlag(flag)) {
    return Corrupt(absl::StrCat("unknown type flag ", flag, " (expected 0..12)"));
  }
  rec->dtype = static_cast<DType>(flag);

  static const char* const kRowSparseAux[] = {"idx"};
  static const char* const kCsrAux[] = {"indptr", "idx"};
  for (int i = 0; i < nad; ++i) {
    AuxLayout aux;
    aux.name = rec->stype == kStypeRowSparse ? kRowSparseAux[i] : kCsrAux[i];
    std::string field = absl::StrCat("aux ", i, " (", aux.name, ")");
    SYMX_ASSIGN_OR_RETURN(int32_t aux_flag, Read<int32_t>(absl::StrCat(field, " type flag")));
    if (!IsValidTypeFlag(aux_flag) || !IsIntegerDType(static_cast<DType>(aux_flag))) {
      return Corrupt(absl::StrCat(field, ": type flag ", aux_flag, " is not an integer type"));
    }
    aux.dtype = static_cast<DType>(aux_flag);
    SYMX_RETURN_IF_ERROR(ReadTShape(absl::StrCat(field, " shape"), false, &aux.shape, &unknown));
    if (unknown) return Corrupt(absl::StrCat(field, " shape: ndim -1 (unknown)"));
    rec->aux.push_back(std::move(aux));
  }

  const Shape& data_shape = nad > 0 ? rec->storage_shape : rec->shape;
  uint64_t bytes = 0;
  if (!CheckedBytes(data_shape.Size(), DTypeSize(rec->dtype), &bytes)) {
    return Corrupt(absl::StrCat("data of ", DTypeName(rec->dtype), " ", data_shape.ToString(),
                                ": the byte size overflows"));
  }
  SYMX_RETURN_IF_ERROR(TakeBytes(bytes, "data", &rec->data_offset));
  rec->data_bytes = static_cast<size_t>(bytes);
  for (int i = 0; i < nad; ++i) {
    AuxLayout& aux = rec->aux[i];
    std::string field = absl::StrCat("aux ", i, " (", aux.name, ") data");
    uint64_t aux_bytes = 0;
    if (!CheckedBytes(aux.shape.Size(), DTypeSize(aux.dtype), &aux_bytes)) {
      return Corrupt(absl::StrCat(field, ": the byte size overflows"));
    }
    SYMX_RETURN_IF_ERROR(TakeBytes(aux_bytes, field, &aux.offset));
    aux.bytes = static_cast<size_t>(aux_bytes);
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseKeys(uint64_t n) {
  SYMX_ASSIGN_OR_RETURN(uint64_t k, Read<uint64_t>("key count"));
  if (k != 0 && k != n) {
    return Corrupt(absl::StrCat("Invalid NDArray file format: ", k, " keys for ", n,
                                " arrays (a file holds no keys or one per array)"));
  }
  std::vector<std::string> keys;
  keys.reserve(static_cast<size_t>(k));
  for (uint64_t i = 0; i < k; ++i) {
    std::string field = absl::StrCat("key ", i);
    SYMX_ASSIGN_OR_RETURN(uint64_t len, Read<uint64_t>(absl::StrCat(field, " length")));
    if (len > left()) {
      return Corrupt(absl::StrCat("truncated in ", field, ": length ", len,
                                  " goes beyond the end of the file (", left(), " bytes left)"));
    }
    keys.emplace_back(buf_.data() + pos_, static_cast<size_t>(len));
    pos_ += static_cast<size_t>(len);
  }
  keys_ = std::move(keys);
  return absl::OkStatus();
}

absl::StatusOr<NamedTensors> Parser::Parse() {
  SYMX_ASSIGN_OR_RETURN(uint64_t magic, Read<uint64_t>("header"));
  if (magic != kParamsFileMagic) {
    return Corrupt(absl::StrFormat(
        "Invalid NDArray file format: bad magic 0x%X in the header (expected 0x112); not an "
        "MXNet .params / NDArray list file",
        magic));
  }
  SYMX_ASSIGN_OR_RETURN(uint64_t reserved, Read<uint64_t>("header"));
  (void)reserved;
  SYMX_ASSIGN_OR_RETURN(uint64_t n, Read<uint64_t>("array count"));
  // Checked before anything is reserved: each record takes at least 4 bytes.
  if (n > left() / kMinRecordBytes) {
    return Corrupt(absl::StrCat("Invalid NDArray file format: the header claims ", n,
                                " arrays but only ", left(), " bytes follow"));
  }
  std::vector<RecordLayout> records(static_cast<size_t>(n));
  for (record_ = 0; record_ < static_cast<int64_t>(n); ++record_) {
    SYMX_RETURN_IF_ERROR(ParseRecord(&records[record_]));
  }
  record_ = -1;
  SYMX_RETURN_IF_ERROR(ParseKeys(n));
  if (left() != 0) {
    return Corrupt(
        absl::StrCat(left(), " trailing bytes after the key table (at offset ", pos_, ")"));
  }

  NamedTensors out;
  out.tensors.reserve(records.size());
  for (record_ = 0; record_ < static_cast<int64_t>(n); ++record_) {
    SYMX_ASSIGN_OR_RETURN(Tensor t, Materialize(records[record_]));
    out.tensors.push_back(std::move(t));
  }
  record_ = -1;
  out.names = std::move(keys_);
  return out;
}

// ---------------------------------------------------------------------------
// Pass 2: tensors.

absl::StatusOr<Tensor> Parser::AllocateDense(const RecordLayout& rec) const {
  absl::StatusOr<Tensor> t = Tensor::Zeros(rec.shape, rec.dtype, Context::CPU(0));
  if (!t.ok()) return Annotate(t.status(), absl::StrCat(Where(), "allocating"));
  return t;
}

absl::StatusOr<Tensor> Parser::Materialize(const RecordLayout& rec) const {
  if (rec.none) return Tensor();
  if (rec.stype == kStypeRowSparse) return DensifyRowSparse(rec);
  if (rec.stype == kStypeCsr) return DensifyCsr(rec);
  absl::StatusOr<Tensor> t = Tensor::Empty(rec.shape, rec.dtype, Context::CPU(0));
  if (!t.ok()) return Annotate(t.status(), absl::StrCat(Where(), "allocating"));
  if (rec.data_bytes > 0) std::memcpy(t->raw_data(), buf_.data() + rec.data_offset, rec.data_bytes);
  NormalizeBools(*t);
  return t;
}

absl::Status Parser::CheckDensifiedSize(const RecordLayout& rec, const std::string& what) const {
  uint64_t dense_bytes = 0;
  if (!CheckedBytes(rec.shape.Size(), DTypeSize(rec.dtype), &dense_bytes)) {
    return Corrupt(absl::StrCat(what, ": the dense byte size overflows"));
  }
  if (options_.max_densified_bytes != 0 && dense_bytes > options_.max_densified_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(Where(), what, ": densified it would take ",
                                                     dense_bytes, " bytes, more than the limit of ",
                                                     options_.max_densified_bytes));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> Parser::DensifyRowSparse(const RecordLayout& rec) const {
  const Shape& shape = rec.shape;
  const Shape& sshape = rec.storage_shape;
  const AuxLayout& idx = rec.aux[0];
  std::string what = absl::StrCat("row_sparse ", shape.ToString(), " with storage shape ",
                                  sshape.ToString(), " and idx shape ", idx.shape.ToString());
  if (sshape.ndim() != shape.ndim() || shape.ndim() < 1 || idx.shape.ndim() != 1 ||
      idx.shape[0] != sshape[0]) {
    return Corrupt(absl::StrCat(what, ": inconsistent shapes"));
  }
  for (int i = 1; i < shape.ndim(); ++i) {
    if (sshape[i] != shape[i]) return Corrupt(absl::StrCat(what, ": inconsistent shapes"));
  }
  SYMX_RETURN_IF_ERROR(CheckDensifiedSize(rec, what));
  const int64_t nnz = sshape[0];
  const int64_t rows = shape[0];
  const size_t row_bytes = nnz == 0 ? 0 : rec.data_bytes / static_cast<size_t>(nnz);
  const char* idx_data = buf_.data() + idx.offset;
  // Indices are checked before the dense array is allocated.
  for (int64_t i = 0; i < nnz; ++i) {
    int64_t r;
    if (!ReadIndex(idx_data, idx.dtype, i, &r) || r < 0 || r >= rows) {
      return Corrupt(absl::StrCat(what, ": idx[", i, "] is out of range for ", rows, " rows"));
    }
  }
  SYMX_ASSIGN_OR_RETURN(Tensor t, AllocateDense(rec));
  char* dst = static_cast<char*>(t.raw_data());
  const char* src = buf_.data() + rec.data_offset;
  for (int64_t i = 0; i < nnz && row_bytes > 0; ++i) {
    int64_t r;
    ReadIndex(idx_data, idx.dtype, i, &r);
    std::memcpy(dst + static_cast<size_t>(r) * row_bytes, src + static_cast<size_t>(i) * row_bytes,
                row_bytes);
  }
  NormalizeBools(t);
  return t;
}

absl::StatusOr<Tensor> Parser::DensifyCsr(const RecordLayout& rec) const {
  const Shape& shape = rec.shape;
  const Shape& sshape = rec.storage_shape;
  const AuxLayout& indptr = rec.aux[0];
  const AuxLayout& idx = rec.aux[1];
  std::string what = absl::StrCat("csr ", shape.ToString(), " with storage shape ",
                                  sshape.ToString(), ", indptr shape ", indptr.shape.ToString(),
                                  " and idx shape ", idx.shape.ToString());
  if (shape.ndim() != 2 || sshape.ndim() != 1 || indptr.shape.ndim() != 1 ||
      idx.shape.ndim() != 1 || idx.shape[0] != sshape[0]) {
    return Corrupt(absl::StrCat(what, ": inconsistent shapes"));
  }
  const int64_t rows = shape[0];
  const int64_t cols = shape[1];
  const int64_t nnz = sshape[0];
  // An all-zero csr that was never filled may carry an empty indptr.
  const bool empty_indptr = indptr.shape[0] == 0 && nnz == 0;
  // (Compared as indptr - 1 == rows: rows + 1 could overflow.)
  if (!empty_indptr && indptr.shape[0] - 1 != rows) {
    return Corrupt(
        absl::StrCat(what, ": indptr must have one entry more than the ", rows, " rows"));
  }
  SYMX_RETURN_IF_ERROR(CheckDensifiedSize(rec, what));
  const char* indptr_data = buf_.data() + indptr.offset;
  const char* idx_data = buf_.data() + idx.offset;
  if (!empty_indptr) {
    int64_t prev = 0;
    for (int64_t r = 0; r <= rows; ++r) {
      int64_t v;
      if (!ReadIndex(indptr_data, indptr.dtype, r, &v) || (r == 0 && v != 0) || v < prev ||
          v > nnz || (r == rows && v != nnz)) {
        return Corrupt(absl::StrCat(what, ": indptr[", r,
                                    "] breaks indptr[0] = 0 <= ... <= indptr[rows] = nnz = ", nnz));
      }
      prev = v;
    }
  }
  for (int64_t j = 0; j < nnz; ++j) {
    int64_t c;
    if (!ReadIndex(idx_data, idx.dtype, j, &c) || c < 0 || c >= cols) {
      return Corrupt(absl::StrCat(what, ": idx[", j, "] is out of range for ", cols, " columns"));
    }
  }
  SYMX_ASSIGN_OR_RETURN(Tensor t, AllocateDense(rec));
  const size_t elem = DTypeSize(rec.dtype);
  char* dst = static_cast<char*>(t.raw_data());
  const char* src = buf_.data() + rec.data_offset;
  if (!empty_indptr) {
    for (int64_t r = 0; r < rows; ++r) {
      int64_t begin, end;
      ReadIndex(indptr_data, indptr.dtype, r, &begin);
      ReadIndex(indptr_data, indptr.dtype, r + 1, &end);
      for (int64_t j = begin; j < end; ++j) {
        int64_t c;
        ReadIndex(idx_data, idx.dtype, j, &c);
        std::memcpy(dst + static_cast<size_t>(r * cols + c) * elem,
                    src + static_cast<size_t>(j) * elem, elem);
      }
    }
  }
  NormalizeBools(t);
  return t;
}

// ---------------------------------------------------------------------------
// Writing.

using Sink = ByteSink;

template <typename T>
void Put(const Sink& sink, T v) {
  sink(&v, sizeof(v));
}

void PutTShape(const Sink& sink, const Shape& shape) {
  Put<int32_t>(sink, shape.ndim());
  if (shape.ndim() > 0) sink(shape.dims().data(), shape.dims().size() * sizeof(int64_t));
}

// Validates everything before the first byte goes out, and brings tensors that
// are not in host memory to the CPU.
absl::StatusOr<std::vector<Tensor>> PrepareForSave(const NamedTensors& params,
                                                   const SaveParamsOptions& options) {
  if (!params.names.empty() && params.names.size() != params.tensors.size()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot save ", params.tensors.size(),
                                                   " tensors with ", params.names.size(),
                                                   " names: give one name per tensor or none"));
  }
  std::vector<Tensor> host;
  host.reserve(params.tensors.size());
  for (size_t i = 0; i < params.tensors.size(); ++i) {
    const Tensor& t = params.tensors[i];
    std::string which =
        params.names.empty() ? absl::StrCat("tensor ", i) : absl::StrCat("'", params.names[i], "'");
    if (!t.defined()) {
      host.push_back(t);
      continue;
    }
    if (!IsValidTypeFlag(static_cast<int>(t.dtype()))) {
      return absl::InvalidArgumentError(absl::StrCat("cannot save ", which, ": dtype ",
                                                     DTypeName(t.dtype()), " has no type flag"));
    }
    if (!t.shape().fully_known()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot save ", which, ": shape ", t.shape().ToString(), " is not known"));
    }
    if (t.shape().ndim() == 0 && !options.np_shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot save ", which,
          ": a 0-d tensor has no V2 form (ndim 0 means a none array there); reshape it to (1,) "
          "or save with np_shape (V3 records, which MXNet reads only under np-shape)"));
    }
    if (t.ctx().type == DeviceType::kCPU && t.ctx().rank == -1) {
      host.push_back(t);
    } else {
      absl::StatusOr<Tensor> copy = CopyToNew(t, Context::CPU(0), t.dtype());
      if (!copy.ok()) {
        return Annotate(copy.status(), absl::StrCat("saving ", which, ": copying to cpu(0)"));
      }
      host.push_back(*std::move(copy));
    }
  }
  return host;
}

void WriteParams(const NamedTensors& params, const std::vector<Tensor>& host,
                 const SaveParamsOptions& options, const Sink& sink) {
  Put<uint64_t>(sink, kParamsFileMagic);
  Put<uint64_t>(sink, 0);
  Put<uint64_t>(sink, host.size());
  for (const Tensor& t : host) {
    Put<uint32_t>(sink, options.np_shape ? kNDArrayV3Magic : kNDArrayV2Magic);
    if (!t.defined()) {
      // V2: legacy none (stype undefined, ndim 0). V3: MXNet only accepts a
      // dense stype there and reads an unknown shape (ndim -1) as none.
      Put<int32_t>(sink, options.np_shape ? kStypeDense : kStypeUndefined);
      Put<int32_t>(sink, options.np_shape ? -1 : 0);
      continue;
    }
    Put<int32_t>(sink, kStypeDense);
    PutTShape(sink, t.shape());
    Put<int32_t>(sink, static_cast<int32_t>(DeviceType::kCPU));
    Put<int32_t>(sink, 0);
    Put<int32_t>(sink, static_cast<int32_t>(t.dtype()));
    if (t.nbytes() > 0) sink(t.raw_data(), t.nbytes());
  }
  Put<uint64_t>(sink, params.names.size());
  for (const std::string& name : params.names) {
    Put<uint64_t>(sink, name.size());
    sink(name.data(), name.size());
  }
}

}  // namespace

absl::StatusOr<NamedTensors> LoadParamsFromBuffer(absl::string_view bytes,
                                                  absl::string_view source_name,
                                                  const LoadParamsOptions& options) {
  return Parser(bytes, source_name, options).Parse();
}

absl::StatusOr<NamedTensors> LoadParams(const std::string& path, const LoadParamsOptions& options) {
  SYMX_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path));
  return LoadParamsFromBuffer(bytes, path, options);
}

absl::StatusOr<std::string> SaveParamsToString(const NamedTensors& params,
                                               const SaveParamsOptions& options) {
  SYMX_ASSIGN_OR_RETURN(std::vector<Tensor> host, PrepareForSave(params, options));
  std::string out;
  WriteParams(params, host, options,
              [&out](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); });
  return out;
}

absl::Status SaveParams(const std::string& path, const NamedTensors& params,
                        const SaveParamsOptions& options) {
  SYMX_ASSIGN_OR_RETURN(std::vector<Tensor> host, PrepareForSave(params, options));
  return WriteFileBytes(path,
                        [&](const ByteSink& sink) { WriteParams(params, host, options, sink); });
}

absl::StatusOr<ArgAuxParams> SplitArgAux(const NamedTensors& params) {
  ArgAuxParams out;
  if (params.names.empty()) {
    if (params.tensors.empty()) return out;
    return absl::InvalidArgumentError(
        absl::StrCat("a checkpoint's parameters must be a dict with arg:/aux: keys, but this is a "
                     "list of ",
                     params.tensors.size(), " arrays"));
  }
  if (params.names.size() != params.tensors.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(params.names.size(), " names for ", params.tensors.size(), " tensors"));
  }
  for (size_t i = 0; i < params.names.size(); ++i) {
    const std::string& key = params.names[i];
    size_t colon = key.find(':');
    if (colon == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter key '", key, "' has no 'arg:' or 'aux:' prefix"));
    }
    absl::string_view prefix = absl::string_view(key).substr(0, colon);
    std::string name = key.substr(colon + 1);
    std::map<std::string, Tensor>* dst = nullptr;
    if (prefix == "arg") {
      dst = &out.arg;
    } else if (prefix == "aux") {
      dst = &out.aux;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("parameter key '", key, "': unknown prefix '",
                                                     prefix, "' (expected 'arg' or 'aux')"));
    }
    if (!dst->emplace(name, params.tensors[i]).second) {
      return absl::InvalidArgumentError(absl::StrCat("parameter key '", key, "' appears twice"));
    }
  }
  return out;
}

NamedTensors MakeCheckpointParams(const std::map<std::string, Tensor>& arg,
                                  const std::map<std::string, Tensor>& aux) {
  NamedTensors out;
  for (const auto& [name, t] : arg) {
    out.names.push_back("arg:" + name);
    out.tensors.push_back(t);
  }
  for (const auto& [name, t] : aux) {
    out.names.push_back("aux:" + name);
    out.tensors.push_back(t);
  }
  return out;
}

}  // namespace symx
