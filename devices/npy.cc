#include "devices/npy.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "devices/context.h"
#include "graph/error.h"
#include "graph/file_io.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy assumes a little-endian host: port it to byte swaps first"
#endif

namespace symx {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;

struct DescrInfo {
  const char* code;  // without the byte-order character
  DType dtype = DType::kFloat32;
};

constexpr DescrInfo kDescrs[] = {
    {"f4", DType::kFloat32}, {"f8", DType::kFloat64}, {"f2", DType::kFloat16},
    {"u1", DType::kUint8},   {"i1", DType::kInt8},    {"i2", DType::kInt16},
    {"u2", DType::kUint16},  {"i4", DType::kInt32},   {"u4", DType::kUint32},
    {"i8", DType::kInt64},   {"u8", DType::kUint64},  {"b1", DType::kBool},
};

// One value of the header dict.
struct PyValue {
  enum Kind { kString, kBool, kTuple } kind = kString;
  std::string str;
  bool b = false;
  std::vector<int64_t> ints;
};

// A parser for the small subset of Python literals that .npy headers use.
class HeaderParser {
 public:
  explicit HeaderParser(absl::string_view text) : text_(text) {}

  absl::Status Parse(std::map<std::string, PyValue>* out) {
    SkipSpace();
    if (!Eat('{')) return Error("expected '{'");
    while (true) {
      SkipSpace();
      if (Eat('}')) break;
      std::string key;
      SYMX_RETURN_IF_ERROR(ParseString(&key));
      SkipSpace();
      if (!Eat(':')) return Error(absl::StrCat("expected ':' after key '", key, "'"));
      SkipSpace();
      PyValue value;
      SYMX_RETURN_IF_ERROR(ParseValue(key, &value));
      if (!out->emplace(key, std::move(value)).second) {
        return Error(absl::StrCat("key '", key, "' appears twice"));
      }
      SkipSpace();
      if (Eat(',')) continue;
      if (Eat('}')) break;
      return Error("expected ',' or '}'");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the closing '}'");
    return absl::OkStatus();
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("header: ", what, " at column ", pos_));
  }
  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  bool Eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool EatWord(absl::string_view w) {
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

  absl::Status ParseString(std::string* out) {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return Error("expected a quoted string");
    }
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == absl::string_view::npos) return Error("unterminated string");
    absl::string_view s = text_.substr(pos_, end - pos_);
    if (s.find('\\') != absl::string_view::npos)
      return Error("escapes in strings are not supported");
    out->assign(s.data(), s.size());
    pos_ = end + 1;
    return absl::OkStatus();
  }

  absl::Status ParseInt(int64_t* out) {
    size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && absl::ascii_isdigit(static_cast<unsigned char>(text_[pos_]))) {
      int digit = text_[pos_] - '0';
      if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        return Error("dimension does not fit an int64");
      }
      v = v * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) return Error("expected a non-negative integer");
    Eat('L');  // Python 2 long
    *out = v;
    return absl::OkStatus();
  }

  absl::Status ParseValue(const std::string& key, PyValue* value) {
    if (pos_ >= text_.size()) return Error(absl::StrCat("missing value for '", key, "'"));
    char c = text_[pos_];
    if (c == '\'' || c == '"') {
      value->kind = PyValue::kString;
      return ParseString(&value->str);
    }
    if (EatWord("True")) {
      value->kind = PyValue::kBool;
      value->b = true;
      return absl::OkStatus();
    }
    if (EatWord("False")) {
      value->kind = PyValue::kBool;
      value->b = false;
      return absl::OkStatus();
    }
    if (Eat('(')) {
      value->kind = PyValue::kTuple;
      SkipSpace();
      if (Eat(')')) return absl::OkStatus();
      while (true) {
        int64_t v;
        SYMX_RETURN_IF_ERROR(ParseInt(&v));
        value->ints.push_back(v);
        SkipSpace();
        if (Eat(')')) {
          // "(3)" is not a tuple in Python; numpy always writes "(3,)".
          if (value->ints.size() == 1) return Error("a one-element shape must be written (n,)");
          return absl::OkStatus();
        }
        if (!Eat(',')) return Error("expected ',' or ')' in a tuple");
        SkipSpace();
        if (Eat(')')) return absl::OkStatus();
      }
    }
    if (c == '[') {
      return Error(absl::StrCat("'", key,
                                "' is a list: structured dtypes are not supported (only plain "
                                "numeric and bool arrays)"));
    }
    return Error(absl::StrCat("unsupported value for '", key, "'"));
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

absl::Status ParseDescr(absl::string_view descr, DType* dtype, bool* swap) {
  auto unsupported = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("unsupported descr '", descr, "': ", why));
  };
  if (descr.size() < 2) return unsupported("expected a byte order and a type code such as '<f4'");
  char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    return unsupported("expected a byte order '<', '>', '|' or '=' first");
  }
  absl::string_view code = descr.substr(1);
  for (const DescrInfo& d : kDescrs) {
    if (code != d.code) continue;
    size_t size = DTypeSize(d.dtype);
    if (order == '|' && size != 1) return unsupported("'|' (no byte order) on a multi-byte type");
    *dtype = d.dtype;
    *swap = order == '>' && size > 1;
    return absl::OkStatus();
  }
  return unsupported(
      "symx reads f2 f4 f8 u1 i1 i2 u2 i4 u4 i8 u8 b1 (no complex, string, object, datetime or "
      "structured dtypes)");
}

void ByteSwap(void* data, size_t elem, int64_t n) {
  unsigned char* p = static_cast<unsigned char*>(data);
  for (int64_t i = 0; i < n; ++i, p += elem) {
    for (size_t a = 0, b = elem - 1; a < b; ++a, --b) std::swap(p[a], p[b]);
  }
}

const char* DescrFor(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "<f4";
    case DType::kFloat64:
      return "<f8";
    case DType::kFloat16:
      return "<f2";
    case DType::kUint8:
      return "|u1";
    case DType::kInt8:
      return "|i1";
    case DType::kInt16:
      return "<i2";
    case DType::kUint16:
      return "<u2";
    case DType::kInt32:
      return "<i4";
    case DType::kUint32:
      return "<u4";
    case DType::kInt64:
      return "<i8";
    case DType::kUint64:
      return "<u8";
    case DType::kBool:
      return "|b1";
    default:
      return nullptr;
  }
}

absl::Status LoadFromBufferImpl(absl::string_view bytes, Tensor* out) {
  auto truncated = [&](absl::string_view field, uint64_t need, uint64_t left) {
    return absl::DataLossError(
        absl::StrCat("truncated in ", field, ": need ", need, " bytes, ", left, " left"));
  };
  if (bytes.size() < kMagicLen + 2)
    return truncated("the magic and version", kMagicLen + 2, bytes.size());
  if (bytes.substr(0, kMagicLen) != absl::string_view(kMagic, kMagicLen)) {
    return absl::DataLossError("not a .npy file (the magic \"\\x93NUMPY\" is missing)");
  }
  unsigned major = static_cast<unsigned char>(bytes[6]);
  unsigned minor = static_cast<unsigned char>(bytes[7]);
  size_t pos = 8;
  uint64_t header_len = 0;
  if (major == 1 && minor == 0) {
    if (bytes.size() - pos < 2) return truncated("the header length", 2, bytes.size() - pos);
    uint16_t len;
    std::memcpy(&len, bytes.data() + pos, 2);
    header_len = len;
    pos += 2;
  } else if ((major == 2 || major == 3) && minor == 0) {
    if (bytes.size() - pos < 4) return truncated("the header length", 4, bytes.size() - pos);
    uint32_t len;
    std::memcpy(&len, bytes.data() + pos, 4);
    header_len = len;
    pos += 4;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unsupported .npy format version ", major, ".",
                                                   minor, " (expected 1.0, 2.0 or 3.0)"));
  }
  if (header_len > bytes.size() - pos) {
    return truncated("the header", header_len, bytes.size() - pos);
  }
  absl::string_view header = bytes.substr(pos, static_cast<size_t>(header_len));
  pos += static_cast<size_t>(header_len);

  std::map<std::string, PyValue> dict;
  SYMX_RETURN_IF_ERROR(HeaderParser(header).Parse(&dict));
  for (const auto& [key, value] : dict) {
    if (key != "descr" && key != "fortran_order" && key != "shape") {
      return absl::InvalidArgumentError(absl::StrCat(
          "header: unknown key '", key, "' (expected 'descr', 'fortran_order' and 'shape')"));
    }
  }
  auto get = [&](const char* key, PyValue::Kind kind, const char* kind_name,
                 const PyValue** v) -> absl::Status {
    auto it = dict.find(key);
    if (it == dict.end()) {
      return absl::InvalidArgumentError(absl::StrCat("header: key '", key, "' is missing"));
    }
    if (it->second.kind != kind) {
      return absl::InvalidArgumentError(absl::StrCat("header: '", key, "' must be ", kind_name));
    }
    *v = &it->second;
    return absl::OkStatus();
  };
  const PyValue* descr;
  const PyValue* fortran;
  const PyValue* shape_value;
  SYMX_RETURN_IF_ERROR(get("descr", PyValue::kString, "a string", &descr));
  SYMX_RETURN_IF_ERROR(get("fortran_order", PyValue::kBool, "True or False", &fortran));
  SYMX_RETURN_IF_ERROR(get("shape", PyValue::kTuple, "a tuple", &shape_value));

  DType dtype = DType::kFloat32;
  bool swap = false;
  SYMX_RETURN_IF_ERROR(ParseDescr(descr->str, &dtype, &swap));
  const std::vector<int64_t>& dims = shape_value->ints;
  if (fortran->b && dims.size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("fortran_order is True for shape (", absl::StrJoin(dims, ", "),
                     "): symx reads C-order arrays only (save with np.ascontiguousarray)"));
  }
  // Element count and byte size, checked before allocating.
  int64_t nonzero = 1;
  bool zero = false;
  for (int64_t d : dims) {
    if (d == 0) {
      zero = true;
    } else if (nonzero > std::numeric_limits<int64_t>::max() / d) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape (", absl::StrJoin(dims, ", "), "): the element count overflows"));
    } else {
      nonzero *= d;
    }
  }
  int64_t count = zero ? 0 : nonzero;
  size_t elem = DTypeSize(dtype);
  if (static_cast<uint64_t>(count) > std::numeric_limits<uint64_t>::max() / elem) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape (", absl::StrJoin(dims, ", "), "): the byte size overflows"));
  }
  uint64_t data_bytes = static_cast<uint64_t>(count) * elem;
  size_t left = bytes.size() - pos;
  if (data_bytes > left) return truncated("data", data_bytes, left);
  if (data_bytes < left) {
    return absl::DataLossError(absl::StrCat(left - data_bytes, " trailing bytes after the data of ",
                                            descr->str, " (", absl::StrJoin(dims, ", "), ")"));
  }
  SYMX_ASSIGN_OR_RETURN(Tensor t, Tensor::Empty(Shape(dims), dtype, Context::CPU(0)));
  if (data_bytes > 0)
    std::memcpy(t.raw_data(), bytes.data() + pos, static_cast<size_t>(data_bytes));
  if (swap) ByteSwap(t.raw_data(), elem, count);
  if (dtype == DType::kBool) {
    unsigned char* p = static_cast<unsigned char*>(t.raw_data());
    for (int64_t i = 0; i < count; ++i) p[i] = p[i] != 0 ? 1 : 0;
  }
  *out = std::move(t);
  return absl::OkStatus();
}

absl::StatusOr<std::string> MakeHeader(const Tensor& tensor) {
  if (!tensor.defined()) return absl::InvalidArgumentError("cannot save an undefined tensor");
  const char* descr = DescrFor(tensor.dtype());
  if (descr == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("cannot save ", DTypeName(tensor.dtype()),
                                                   " as .npy: numpy has no such dtype (convert to "
                                                   "float32 first)"));
  }
  if (!tensor.shape().fully_known()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot save shape ", tensor.shape().ToString(), ": it is not fully known"));
  }
  const std::vector<int64_t>& dims = tensor.shape().dims();
  std::string shape = absl::StrCat("(", absl::StrJoin(dims, ", "), dims.size() == 1 ? ",)" : ")");
  std::string dict =
      absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': ", shape, ", }");
  // Like current numpy: spare room so the first dim can grow in place to 21
  // digits, then spaces and '\n' so that magic + version + length field +
  // header is a multiple of 64 (numpy pads 1..64 bytes, never 0).
  if (!dims.empty()) {
    size_t digits = absl::StrCat(dims[0]).size();
    if (digits < 21) dict.append(21 - digits, ' ');
  }
  size_t prefix = kMagicLen + 2 + 2;
  bool v2 = false;
  size_t header_len = dict.size() + 1 + (kAlign - (prefix + dict.size() + 1) % kAlign);
  if (header_len > 0xFFFF) {
    v2 = true;
    prefix = kMagicLen + 2 + 4;
    header_len = dict.size() + 1 + (kAlign - (prefix + dict.size() + 1) % kAlign);
  }
  std::string out(kMagic, kMagicLen);
  out.push_back(static_cast<char>(v2 ? 2 : 1));
  out.push_back(0);
  if (v2) {
    uint32_t len = static_cast<uint32_t>(header_len);
    out.append(reinterpret_cast<const char*>(&len), 4);
  } else {
    uint16_t len = static_cast<uint16_t>(header_len);
    out.append(reinterpret_cast<const char*>(&len), 2);
  }
  out += dict;
  out.append(header_len - dict.size() - 1, ' ');
  out.push_back('\n');
  return out;
}

absl::StatusOr<Tensor> ToHost(const Tensor& tensor) {
  if (tensor.ctx().type == DeviceType::kCPU && tensor.ctx().rank == -1) return tensor;
  return CopyToNew(tensor, Context::CPU(0), tensor.dtype());
}

}  // namespace

absl::StatusOr<Tensor> LoadNpyFromBuffer(absl::string_view bytes, absl::string_view source_name) {
  Tensor t;
  absl::Status s = LoadFromBufferImpl(bytes, &t);
  if (!s.ok()) return Annotate(s, source_name);
  return t;
}

absl::StatusOr<Tensor> LoadNpy(const std::string& path) {
  SYMX_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path));
  return LoadNpyFromBuffer(bytes, path);
}

absl::StatusOr<std::string> SaveNpyToString(const Tensor& tensor) {
  SYMX_ASSIGN_OR_RETURN(std::string out, MakeHeader(tensor));
  SYMX_ASSIGN_OR_RETURN(Tensor host, ToHost(tensor));
  out.append(static_cast<const char*>(host.raw_data()), host.nbytes());
  return out;
}

absl::Status SaveNpy(const std::string& path, const Tensor& tensor) {
  absl::StatusOr<std::string> header = MakeHeader(tensor);
  if (!header.ok()) return Annotate(header.status(), absl::StrCat("saving ", path));
  absl::StatusOr<Tensor> host = ToHost(tensor);
  if (!host.ok()) return Annotate(host.status(), absl::StrCat("saving ", path));
  return WriteFileBytes(path, [&](const ByteSink& sink) {
    sink(header->data(), header->size());
    sink(host->raw_data(), host->nbytes());
  });
}

}  // namespace symx
