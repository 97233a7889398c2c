// .npy files: round trips for every numpy dtype symx has, numpy's exact header
// bytes, hand-built headers (versions 1.0/2.0/3.0, big-endian, Python 2 ints),
// and malformed files, each error naming the file and what is wrong.
#include "devices/npy.h"

#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/device.h"
#include "gmock/gmock.h"
#include "graph/error.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

using ::testing::HasSubstr;

// A .npy file with `dict` as its header, padded as numpy pads it.
std::string Npy(const std::string& dict, const std::string& data, int major = 1) {
  size_t prefix = major == 1 ? 10 : 12;
  std::string h = dict;
  h.append(64 - (prefix + h.size() + 1) % 64, ' ');
  h += '\n';
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  uint32_t len = static_cast<uint32_t>(h.size());
  out.append(reinterpret_cast<const char*>(&len), major == 1 ? 2 : 4);
  return out + h + data;
}

std::string Dict(const std::string& descr, const std::string& shape, bool fortran = false) {
  return absl::StrCat("{'descr': '", descr, "', 'fortran_order': ", fortran ? "True" : "False",
                      ", 'shape': ", shape, ", }");
}

template <typename T>
std::string Raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

std::string Error(const std::string& bytes) {
  absl::StatusOr<Tensor> r = LoadNpyFromBuffer(bytes, "a.npy");
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : std::string(r.status().message());
}

TEST(NpyTest, RoundTripsEveryDtype) {
  const std::vector<Shape> shapes = {Shape(std::vector<int64_t>{}), Shape{5}, Shape{2, 3},
                                     Shape{0, 4}, Shape{1, 2, 1, 2}};
  for (int flag = 0; flag <= 11; ++flag) {
    DType dtype = static_cast<DType>(flag);
    for (const Shape& shape : shapes) {
      SCOPED_TRACE(absl::StrCat(DTypeName(dtype), " ", shape.ToString()));
      std::vector<double> values(static_cast<size_t>(shape.Size()));
      for (size_t i = 0; i < values.size(); ++i) values[i] = dtype == DType::kBool ? i % 2 : i;
      Tensor t = Tensor::FromVector(shape, values, dtype);
      std::string bytes = ValueOrThrow(SaveNpyToString(t));
      EXPECT_EQ(bytes.size() % 64, t.nbytes() % 64);  // the header is 64-aligned
      Tensor u = ValueOrThrow(LoadNpyFromBuffer(bytes, "rt.npy"));
      EXPECT_EQ(u.dtype(), dtype);
      EXPECT_EQ(u.shape(), shape);
      EXPECT_EQ(u.ToDoubles(), values);
    }
  }
}

TEST(NpyTest, WritesNumpysExactHeader) {
  // What np.save(f, np.arange(6, dtype='<f4').reshape(2, 3)) writes with
  // current numpy: the dict, 20 spaces of growth room for "2", padding to 128
  // bytes in all, then '\n'.
  Tensor t = Tensor::FromVector(Shape{2, 3}, {0, 1, 2, 3, 4, 5});
  std::string bytes = ValueOrThrow(SaveNpyToString(t));
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  ASSERT_EQ(bytes.size(), 128u + 24u);
  EXPECT_EQ(bytes.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  EXPECT_EQ(bytes.substr(10, dict.size()), dict);
  EXPECT_EQ(bytes.substr(10 + dict.size(), 127 - 10 - dict.size()),
            std::string(127 - 10 - dict.size(), ' '));
  EXPECT_EQ(bytes[127], '\n');
  std::string one =
      ValueOrThrow(SaveNpyToString(Tensor::FromVector(Shape{3}, {1, 2, 3}, DType::kUint8)));
  EXPECT_NE(one.find("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }"),
            std::string::npos);
  std::string scalar = ValueOrThrow(
      SaveNpyToString(Tensor::FromVector(Shape(std::vector<int64_t>{}), {1}, DType::kBool)));
  EXPECT_NE(scalar.find("{'descr': '|b1', 'fortran_order': False, 'shape': (), }"),
            std::string::npos);
}

TEST(NpyTest, ReadsOtherHeaderForms) {
  // Version 2.0 and 3.0, double quotes, no trailing comma, Python 2 longs.
  std::string d = "{\"descr\": \"<i8\", \"shape\": (2L, 1L), \"fortran_order\": False}";
  for (int major : {2, 3}) {
    Tensor t = ValueOrThrow(LoadNpyFromBuffer(Npy(d, Raw<int64_t>({-1, 7}), major), "v.npy"));
    EXPECT_EQ(t.shape(), Shape({2, 1}));
    EXPECT_EQ(t.ToDoubles(), (std::vector<double>{-1, 7}));
  }
  // Big-endian data is byte-swapped.
  std::string be = std::string("\x00\x00\x01\x02", 4) + std::string("\x3f\x80\x00\x00", 4);
  Tensor i = ValueOrThrow(LoadNpyFromBuffer(Npy(Dict(">i4", "(1,)"), be.substr(0, 4)), "b.npy"));
  EXPECT_EQ(i.ToDoubles(), (std::vector<double>{258}));
  Tensor f = ValueOrThrow(LoadNpyFromBuffer(Npy(Dict(">f4", "(1,)"), be.substr(4)), "b.npy"));
  EXPECT_EQ(f.ToDoubles(), (std::vector<double>{1.0}));
  // '|' and '=' on one-byte types; fortran order on 1-d is the same bytes.
  EXPECT_TRUE(LoadNpyFromBuffer(Npy(Dict("=u1", "(2,)"), "ab"), "x").ok());
  Tensor u =
      ValueOrThrow(LoadNpyFromBuffer(Npy(Dict("<u2", "(2,)", true), Raw<uint16_t>({1, 2})), "x"));
  EXPECT_EQ(u.ToDoubles(), (std::vector<double>{1, 2}));
  // float16 keeps its bits; bools are normalized.
  Tensor h =
      ValueOrThrow(LoadNpyFromBuffer(Npy(Dict("<f2", "(1,)"), Raw<uint16_t>({0x3C00})), "h"));
  EXPECT_EQ(h.dtype(), DType::kFloat16);
  EXPECT_EQ(h.ToDoubles(), (std::vector<double>{1.0}));
  Tensor b =
      ValueOrThrow(LoadNpyFromBuffer(Npy(Dict("|b1", "(2,)"), std::string("\x00\x05", 2)), "b"));
  EXPECT_EQ(static_cast<const unsigned char*>(b.raw_data())[1], 1);
}

TEST(NpyTest, MalformedFiles) {
  std::string ok = Npy(Dict("<f4", "(2,)"), Raw<float>({1, 2}));
  ASSERT_TRUE(LoadNpyFromBuffer(ok, "a.npy").ok());
  // Every truncation is an error naming the file.
  for (size_t n = 0; n < ok.size(); ++n) {
    absl::StatusOr<Tensor> r = LoadNpyFromBuffer(ok.substr(0, n), "cut.npy");
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_THAT(r.status().message(), HasSubstr("cut.npy: ")) << n;
  }
  EXPECT_EQ(Error(ok.substr(0, ok.size() - 1)), "a.npy: truncated in data: need 8 bytes, 7 left");
  EXPECT_EQ(Error(ok.substr(0, 30)), "a.npy: truncated in the header: need 118 bytes, 20 left");
  EXPECT_EQ(Error(ok + "xy"), "a.npy: 2 trailing bytes after the data of <f4 (2)");
  EXPECT_EQ(Error("PK\x03\x04 a zip"),
            "a.npy: not a .npy file (the magic \"\\x93NUMPY\" is missing)");
  std::string v4 = ok;
  v4[6] = 4;
  EXPECT_EQ(Error(v4), "a.npy: unsupported .npy format version 4.0 (expected 1.0, 2.0 or 3.0)");

  struct Case {
    std::string dict;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {Dict("<f4", "(2, 3)", true),
       "fortran_order is True for shape (2, 3): symx reads C-order arrays only"},
      {Dict("<c8", "(2,)"), "unsupported descr '<c8'"},
      {Dict("|O", "(2,)"), "unsupported descr '|O'"},
      {Dict("<U3", "(2,)"), "unsupported descr '<U3'"},
      {Dict("|f4", "(2,)"), "'|' (no byte order) on a multi-byte type"},
      {Dict("f4", "(2,)"), "expected a byte order '<', '>', '|' or '=' first"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }",
       "'descr' is a list: structured dtypes are not supported"},
      {"{'descr': '<f4', 'fortran_order': False, }", "header: key 'shape' is missing"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }",
       "unsupported value for 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': '2', }", "'shape' must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", "unsupported value"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': True}",
       "header: unknown key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
       "key 'descr' appears twice"},
      {Dict("<f4", "(-2,)"), "expected a non-negative integer"},
      {Dict("<f4", "(2)"), "a one-element shape must be written (n,)"},
      {Dict("<f4", "(99999999999999999999,)"), "dimension does not fit an int64"},
      {Dict("<f4", "(4294967296, 4294967296)"),
       "shape (4294967296, 4294967296): the element count overflows"},
      {Dict("<f8", "(2305843009213693952,)"), "the byte size overflows"},
      // Terabytes declared over 8 bytes of data: refused before allocating.
      {Dict("<f4", "(1048576, 1048576)"), "truncated in data: need 4398046511104 bytes, 8 left"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", "unexpected text after"},
      {"['descr']", "header: expected '{' at column 0"},
      {"{'descr: '<f4'}", "expected ':' after key"},
      {"{'descr': '<f\\x34', 'fortran_order': False, 'shape': (2,)}", "escapes in strings"},
  };
  for (const Case& c : cases) {
    std::string m = Error(Npy(c.dict, Raw<float>({1, 2})));
    EXPECT_THAT(m, HasSubstr("a.npy: ")) << c.dict;
    EXPECT_THAT(m, HasSubstr(c.expect)) << c.dict;
  }
}

TEST(NpyTest, SaveErrorsAndFiles) {
  Tensor bf = ValueOrThrow(Tensor::Zeros(Shape{2}, DType::kBFloat16));
  EXPECT_THAT(SaveNpyToString(bf).status().message(),
              HasSubstr("cannot save bfloat16 as .npy: numpy has no such dtype"));
  EXPECT_THAT(SaveNpyToString(Tensor()).status().message(),
              HasSubstr("cannot save an undefined tensor"));
  std::string path = ::testing::TempDir() + "/npy_test.npy";
  Tensor t = Tensor::FromVector(Shape{2, 2}, {1, 2, 3, 4}, DType::kInt16);
  ASSERT_TRUE(SaveNpy(path, t).ok());
  EXPECT_EQ(ValueOrThrow(LoadNpy(path)).ToDoubles(), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_THAT(SaveNpy(path, bf).message(), HasSubstr("saving " + path + ": cannot save bfloat16"));
  EXPECT_THAT(LoadNpy(path + ".missing").status().message(),
              HasSubstr("cannot open " + path + ".missing: No such file or directory"));
  std::ofstream(path, std::ios::binary) << "\x93NUMPY\x01";
  EXPECT_EQ(LoadNpy(path).status().message(),
            path + ": truncated in the magic and version: need 8 bytes, 7 left");
  EXPECT_THAT(SaveNpy("/nonexistent-dir/x.npy", t).message(),
              HasSubstr("cannot open /nonexistent-dir/x.npy for writing"));
}

TEST(NpyTest, LargeHeadersUseVersion2) {
  // A header over 65535 bytes (30000 dims of 1) needs the u32 length field.
  std::vector<int64_t> dims(30000, 1);
  Tensor t = Tensor::FromVector(Shape(dims), {3});
  std::string bytes = ValueOrThrow(SaveNpyToString(t));
  EXPECT_EQ(bytes[6], 2);
  EXPECT_EQ((bytes.size() - 4) % 64, 0u);
  Tensor u = ValueOrThrow(LoadNpyFromBuffer(bytes, "big.npy"));
  EXPECT_EQ(u.shape(), Shape(dims));
  EXPECT_EQ(u.ToDoubles(), (std::vector<double>{3}));
}

}  // namespace
}  // namespace symx
