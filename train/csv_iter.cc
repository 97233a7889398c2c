#include "train/csv_iter.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "graph/error.h"

namespace symx::train {
namespace {

absl::Status Bad(const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat("CSVIter: ", message));
}

// Appends one field to `out` as `dtype`; false when it is not a number.
bool AppendField(absl::string_view field, DType dtype, std::vector<char>* out) {
  std::string text(absl::StripAsciiWhitespace(field));
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  if (dtype == DType::kFloat32) {
    float v = std::strtof(text.c_str(), &end);
    if (*end != '\0') return false;
    out->insert(out->end(), reinterpret_cast<char*>(&v), reinterpret_cast<char*>(&v) + 4);
  } else {
    long long v = std::strtoll(text.c_str(), &end, 10);  // decimal, as dmlc reads it
    if (*end != '\0' || errno == ERANGE) return false;
    if (dtype == DType::kInt32) {
      if (v < INT32_MIN || v > INT32_MAX) return false;
      int32_t w = static_cast<int32_t>(v);
      out->insert(out->end(), reinterpret_cast<char*>(&w), reinterpret_cast<char*>(&w) + 4);
    } else {
      int64_t w = v;
      out->insert(out->end(), reinterpret_cast<char*>(&w), reinterpret_cast<char*>(&w) + 8);
    }
  }
  return true;
}

// Reads every non-blank line of `path` as `width` numbers.
absl::StatusOr<int64_t> ReadCsv(const std::string& path, int64_t width, DType dtype,
                                const char* what, std::vector<char>* out) {
  std::ifstream in(path);
  if (!in) return Bad(absl::StrCat("cannot open ", what, " ", path, ": ", std::strerror(errno)));
  std::string line;
  int64_t rows = 0;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    absl::string_view text = absl::StripTrailingAsciiWhitespace(line);
    if (absl::StripAsciiWhitespace(text).empty()) continue;
    std::vector<absl::string_view> fields = absl::StrSplit(text, ',');
    if (static_cast<int64_t>(fields.size()) != width) {
      return Bad(absl::StrCat(path, ": line ", number, " has ", fields.size(),
                              " values; its shape asks for ", width));
    }
    for (size_t k = 0; k < fields.size(); ++k) {
      if (!AppendField(fields[k], dtype, out)) {
        return Bad(absl::StrCat(path, ": line ", number, ", column ", k + 1, ": \"", fields[k],
                                "\" is not a number of type ", DTypeName(dtype)));
      }
    }
    ++rows;
  }
  return rows;
}

absl::StatusOr<Shape> ParseShape(absl::string_view v) {
  absl::string_view s = absl::StripAsciiWhitespace(v);
  absl::ConsumePrefix(&s, "(");
  absl::ConsumePrefix(&s, "[");
  absl::ConsumeSuffix(&s, ")");
  absl::ConsumeSuffix(&s, "]");
  std::vector<int64_t> dims;
  for (absl::string_view d : absl::StrSplit(s, ',', absl::SkipWhitespace())) {
    int64_t x;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(d), &x) || x <= 0) {
      return absl::InvalidArgumentError("a tuple of positive integers");
    }
    dims.push_back(x);
  }
  if (dims.empty()) return absl::InvalidArgumentError("a tuple of positive integers");
  return Shape(dims);
}

}  // namespace

absl::StatusOr<CsvIterConfig> CsvIter::ConfigFrom(
    const std::vector<std::pair<std::string, std::string>>& params) {
  CsvIterConfig c;
  for (const auto& [name, value] : params) {
    auto bad = [&, name = name, value = value](absl::string_view want) {
      return Bad(absl::StrCat("parameter ", name, "=\"", value, "\": expected ", want));
    };
    if (name == "data_csv") {
      c.data_csv = value;
    } else if (name == "label_csv") {
      c.label_csv = value;
    } else if (name == "data_shape" || name == "label_shape") {
      absl::StatusOr<Shape> s = ParseShape(value);
      if (!s.ok()) return bad(s.status().message());
      (name == "data_shape" ? c.data_shape : c.label_shape) = *s;
    } else if (name == "batch_size") {
      if (!absl::SimpleAtoi(value, &c.batch_size)) return bad("an integer");
    } else if (name == "round_batch") {
      std::string v = absl::AsciiStrToLower(value);
      if (v != "true" && v != "false" && v != "1" && v != "0") return bad("True or False");
      c.round_batch = v == "true" || v == "1";
    } else if (name == "dtype") {
      if (value == "float32" || value == "None") {
        c.dtype = DType::kFloat32;
      } else if (value == "int32") {
        c.dtype = DType::kInt32;
      } else if (value == "int64") {
        c.dtype = DType::kInt64;
      } else {
        return bad("float32, int32 or int64");
      }
    } else if (name == "prefetch_buffer" || name == "ctx") {
      // Reading is in memory: nothing to prefetch or place.
    } else {
      return Bad(absl::StrCat("unknown parameter '", name,
                              "'; known: data_csv, data_shape, label_csv, label_shape, "
                              "batch_size, round_batch, dtype, prefetch_buffer, ctx"));
    }
  }
  return c;
}

absl::StatusOr<std::unique_ptr<CsvIter>> CsvIter::Create(CsvIterConfig config) {
  if (config.data_csv.empty()) return Bad("data_csv is required");
  if (config.data_shape.ndim() <= 0) return Bad("data_shape is required");
  if (config.batch_size <= 0) {
    return Bad(absl::StrCat("batch_size ", config.batch_size, " must be positive"));
  }
  std::unique_ptr<CsvIter> it(new CsvIter(std::move(config)));
  const CsvIterConfig& c = it->config_;
  SYMX_ASSIGN_OR_RETURN(it->rows_,
                        ReadCsv(c.data_csv, c.data_shape.Size(), c.dtype, "data_csv", &it->data_));
  if (it->rows_ == 0) return Bad(absl::StrCat(c.data_csv, " holds no rows"));
  const int64_t label_width = c.label_shape.Size();
  if (c.label_csv.empty() || c.label_csv == "NULL") {
    it->label_.assign(size_t(it->rows_) * label_width * DTypeSize(c.dtype), 0);
  } else {
    SYMX_ASSIGN_OR_RETURN(int64_t labels,
                          ReadCsv(c.label_csv, label_width, c.dtype, "label_csv", &it->label_));
    if (labels < it->rows_) {
      return Bad(absl::StrCat(c.label_csv, " has ", labels, " rows, fewer than the ", it->rows_,
                              " of ", c.data_csv));
    }
    it->label_.resize(size_t(it->rows_) * label_width * DTypeSize(c.dtype));
  }
  return it;
}

Shape CsvIter::data_shape() const {
  std::vector<int64_t> dims = {config_.batch_size};
  for (int k = 0; k < config_.data_shape.ndim(); ++k) dims.push_back(config_.data_shape[k]);
  return Shape(dims);
}

Shape CsvIter::label_shape() const {
  if (config_.label_shape == Shape{1}) return Shape{config_.batch_size};
  std::vector<int64_t> dims = {config_.batch_size};
  for (int k = 0; k < config_.label_shape.ndim(); ++k) dims.push_back(config_.label_shape[k]);
  return Shape(dims);
}

absl::StatusOr<bool> CsvIter::Next(CsvBatch* batch) {
  if (next_ >= rows_) return false;
  const CsvIterConfig& c = config_;
  SYMX_ASSIGN_OR_RETURN(batch->data, Tensor::Zeros(data_shape(), c.dtype));
  SYMX_ASSIGN_OR_RETURN(batch->label, Tensor::Zeros(label_shape(), c.dtype));
  const size_t data_row = size_t(c.data_shape.Size()) * DTypeSize(c.dtype);
  const size_t label_row = size_t(c.label_shape.Size()) * DTypeSize(c.dtype);
  char* data = static_cast<char*>(batch->data.raw_data());
  char* label = static_cast<char*>(batch->label.raw_data());
  batch->pad = 0;
  for (int r = 0; r < c.batch_size; ++r) {
    int64_t row = next_ + r;
    if (row >= rows_) {
      ++batch->pad;
      if (!c.round_batch) continue;
      row %= rows_;
    }
    std::memcpy(data + r * data_row, data_.data() + row * data_row, data_row);
    std::memcpy(label + r * label_row, label_.data() + row * label_row, label_row);
  }
  next_ += c.batch_size;
  return true;
}

}  // namespace symx::train
