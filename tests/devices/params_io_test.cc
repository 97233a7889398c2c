// .params files: round trips for every dtype, hand-built records of every
// version (pre-V1, V1, V2, V3, sparse, none), and malformed files, each error
// naming the file, the record and the field. The corpus in
// tests/testdata/bad_params (expectations in EXPECTED) is checked at the end.
#include "devices/params_io.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "devices/device.h"
#include "gmock/gmock.h"
#include "graph/error.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

using ::testing::HasSubstr;

// Builds file bytes field by field (little-endian, as the format is).
class Bytes {
 public:
  template <typename T>
  Bytes& put(T v) {
    s_.append(reinterpret_cast<const char*>(&v), sizeof(v));
    return *this;
  }
  Bytes& u32(uint32_t v) { return put(v); }
  Bytes& i32(int32_t v) { return put(v); }
  Bytes& u64(uint64_t v) { return put(v); }
  Bytes& i64(int64_t v) { return put(v); }
  Bytes& raw(const std::string& b) {
    s_ += b;
    return *this;
  }
  Bytes& floats(const std::vector<float>& v) {
    for (float f : v) put(f);
    return *this;
  }
  Bytes& header(uint64_t n) { return u64(0x112).u64(0).u64(n); }
  Bytes& tshape(const std::vector<int64_t>& dims) {
    i32(static_cast<int32_t>(dims.size()));
    for (int64_t d : dims) i64(d);
    return *this;
  }
  Bytes& cpu() { return i32(1).i32(0); }
  // A V2 dense float32 record.
  Bytes& dense(const std::vector<int64_t>& dims, const std::vector<float>& values) {
    return u32(kNDArrayV2Magic).i32(0).tshape(dims).cpu().i32(0).floats(values);
  }
  Bytes& keys(const std::vector<std::string>& names) {
    u64(names.size());
    for (const std::string& k : names) u64(k.size()).raw(k);
    return *this;
  }
  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

std::vector<double> Values(const Tensor& t) { return t.ToDoubles(); }

std::string Message(const absl::StatusOr<NamedTensors>& r) {
  EXPECT_FALSE(r.ok()) << "loaded";
  return r.ok() ? "" : std::string(r.status().message());
}

absl::StatusOr<NamedTensors> Load(const Bytes& b) {
  return LoadParamsFromBuffer(b.str(), "t.params");
}

TEST(ParamsIoTest, RoundTripsEveryDtype) {
  for (int flag = 0; flag <= 12; ++flag) {
    DType dtype = static_cast<DType>(flag);
    SCOPED_TRACE(DTypeName(dtype));
    std::vector<double> values = {0, 1, 2, 3, 4, 5};
    if (dtype == DType::kBool) values = {0, 1, 1, 0, 1, 0};
    Tensor t = Tensor::FromVector(Shape{2, 3}, values, dtype);
    NamedTensors params{{"arg:w"}, {t}};
    absl::StatusOr<std::string> bytes = SaveParamsToString(params);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    absl::StatusOr<NamedTensors> back = LoadParamsFromBuffer(*bytes, "rt.params");
    ASSERT_TRUE(back.ok()) << back.status();
    ASSERT_EQ(back->tensors.size(), 1u);
    EXPECT_EQ(back->names, std::vector<std::string>{"arg:w"});
    const Tensor& u = back->tensors[0];
    EXPECT_EQ(u.dtype(), dtype);
    EXPECT_EQ(u.shape(), Shape({2, 3}));
    EXPECT_EQ(u.ctx(), Context::CPU(0));
    ASSERT_EQ(u.nbytes(), t.nbytes());
    EXPECT_EQ(std::memcmp(u.raw_data(), t.raw_data(), t.nbytes()), 0);
    // The record is exactly what MXNet writes: V2, dense, cpu(0), the flag.
    Bytes expect;
    expect.header(1).u32(kNDArrayV2Magic).i32(0).tshape({2, 3}).cpu().i32(flag);
    expect.raw(std::string(static_cast<const char*>(t.raw_data()), t.nbytes())).keys({"arg:w"});
    EXPECT_EQ(*bytes, expect.str());
  }
}

TEST(ParamsIoTest, HalfTypesKeepTheirBits) {
  Tensor h = ValueOrThrow(Tensor::Empty(Shape{3}, DType::kFloat16));
  Tensor b = ValueOrThrow(Tensor::Empty(Shape{3}, DType::kBFloat16));
  const uint16_t bits[3] = {0x7E01, 0x3C00, 0xFC00};  // a NaN payload, 1, -inf
  std::memcpy(h.raw_data(), bits, 6);
  std::memcpy(b.raw_data(), bits, 6);
  NamedTensors back =
      ValueOrThrow(LoadParamsFromBuffer(ValueOrThrow(SaveParamsToString({{}, {h, b}})), "h"));
  EXPECT_EQ(std::memcmp(back.tensors[0].raw_data(), bits, 6), 0);
  EXPECT_EQ(std::memcmp(back.tensors[1].raw_data(), bits, 6), 0);
  EXPECT_EQ(back.tensors[1].dtype(), DType::kBFloat16);
}

TEST(ParamsIoTest, ListAndDictFiles) {
  Tensor a = Tensor::FromVector(Shape{2}, {1, 2});
  Tensor b = Tensor::FromVector(Shape{1, 1, 1}, {7}, DType::kInt64);
  std::string list = ValueOrThrow(SaveParamsToString({{}, {a, b}}));
  NamedTensors l = ValueOrThrow(LoadParamsFromBuffer(list, "list.params"));
  EXPECT_FALSE(l.is_dict());
  ASSERT_EQ(l.tensors.size(), 2u);
  EXPECT_EQ(Values(l.tensors[0]), (std::vector<double>{1, 2}));
  EXPECT_EQ(Values(l.tensors[1]), (std::vector<double>{7}));
  EXPECT_EQ(list.substr(list.size() - 8), std::string(8, '\0'));  // K = 0

  // Keys as given, in order, duplicates and odd bytes included.
  std::vector<std::string> names = {"z", std::string("a\0b", 3)};
  NamedTensors d = ValueOrThrow(
      LoadParamsFromBuffer(ValueOrThrow(SaveParamsToString({names, {a, b}})), "dict.params"));
  EXPECT_TRUE(d.is_dict());
  EXPECT_EQ(d.names, names);

  NamedTensors empty =
      ValueOrThrow(LoadParamsFromBuffer(ValueOrThrow(SaveParamsToString({})), "empty.params"));
  EXPECT_TRUE(empty.tensors.empty());
  EXPECT_EQ(ValueOrThrow(SaveParamsToString({})).size(), 32u);
}

TEST(ParamsIoTest, ZeroSizeAndNoneArrays) {
  Tensor z = ValueOrThrow(Tensor::Empty(Shape{0, 3}, DType::kFloat32));
  NamedTensors back = ValueOrThrow(LoadParamsFromBuffer(
      ValueOrThrow(SaveParamsToString({{"z", "none"}, {z, Tensor()}})), "z.params"));
  EXPECT_EQ(back.tensors[0].shape(), Shape({0, 3}));
  EXPECT_TRUE(back.tensors[0].defined());
  EXPECT_FALSE(back.tensors[1].defined());
  // An undefined tensor is written as MXNet writes a none array in V2.
  std::string bytes = ValueOrThrow(SaveParamsToString({{}, {Tensor()}}));
  EXPECT_EQ(bytes, Bytes().header(1).u32(kNDArrayV2Magic).i32(-1).i32(0).u64(0).str());
}

TEST(ParamsIoTest, ZeroDimTensorsNeedNpShape) {
  Tensor s = Tensor::FromVector(Shape(std::vector<int64_t>{}), {3.5});
  absl::StatusOr<std::string> v2 = SaveParamsToString({{"arg:s"}, {s}});
  ASSERT_FALSE(v2.ok());
  EXPECT_THAT(v2.status().message(), HasSubstr("'arg:s': a 0-d tensor has no V2 form"));
  SaveParamsOptions np;
  np.np_shape = true;
  std::string v3 = ValueOrThrow(SaveParamsToString({{"arg:s", "arg:n"}, {s, Tensor()}}, np));
  EXPECT_EQ(v3, Bytes()
                    .header(2)
                    .u32(kNDArrayV3Magic)
                    .i32(0)
                    .i32(0)
                    .cpu()
                    .i32(0)
                    .floats({3.5f})
                    .u32(kNDArrayV3Magic)
                    .i32(0)
                    .i32(-1)
                    .keys({"arg:s", "arg:n"})
                    .str());
  NamedTensors back = ValueOrThrow(LoadParamsFromBuffer(v3, "v3.params"));
  EXPECT_EQ(back.tensors[0].shape().ndim(), 0);
  EXPECT_EQ(Values(back.tensors[0]), (std::vector<double>{3.5}));
  EXPECT_FALSE(back.tensors[1].defined());
}

TEST(ParamsIoTest, SaveErrors) {
  Tensor a = Tensor::FromVector(Shape{1}, {1});
  absl::StatusOr<std::string> r = SaveParamsToString({{"a", "b"}, {a}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("1 tensors with 2 names"));
  absl::Status s = SaveParams("/nonexistent-dir/x.params", {{}, {a}});
  EXPECT_THAT(s.message(), HasSubstr("cannot open /nonexistent-dir/x.params for writing"));
}

TEST(ParamsIoTest, FilesOnDisk) {
  std::string path = ::testing::TempDir() + "/params_io_test.params";
  Tensor a = Tensor::FromVector(Shape{2, 2}, {1, 2, 3, 4}, DType::kFloat64);
  ASSERT_TRUE(SaveParams(path, {{"arg:a"}, {a}}).ok());
  NamedTensors back = ValueOrThrow(LoadParams(path));
  EXPECT_EQ(Values(back.tensors[0]), (std::vector<double>{1, 2, 3, 4}));

  absl::StatusOr<NamedTensors> missing = LoadParams(path + ".missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(),
              HasSubstr("cannot open " + path + ".missing: No such file or directory"));

  // Errors from a file name it.
  std::ofstream(path, std::ios::binary) << "garbage that is not a params file";
  absl::StatusOr<NamedTensors> bad = LoadParams(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr(path + ": Invalid NDArray file format: bad magic"));
}

// --- Older and other record versions --------------------------------------

TEST(ParamsIoTest, ReadsV1Records) {
  Bytes b;
  b.header(2);
  b.u32(kNDArrayV1Magic).tshape({2}).cpu().i32(4).i32(-3).i32(9);
  b.u32(kNDArrayV1Magic).tshape({});  // none
  b.keys({"arg:a", "arg:none"});
  NamedTensors r = ValueOrThrow(Load(b));
  EXPECT_EQ(r.tensors[0].dtype(), DType::kInt32);
  EXPECT_EQ(Values(r.tensors[0]), (std::vector<double>{-3, 9}));
  EXPECT_FALSE(r.tensors[1].defined());
}

TEST(ParamsIoTest, ReadsPreV1Records) {
  // No magic: u32 ndim, u32 dims, then context, type flag and data as in V1.
  Bytes b;
  b.header(3);
  b.u32(2).u32(1).u32(3).i32(2).i32(1).i32(0).floats({1, 2, 3});  // saved on gpu(1)
  b.u32(0);                                                       // ndim 0: none
  b.u32(1).u32(2).cpu().i32(1).put(1.5).put(-2.0);
  b.keys({});
  NamedTensors r = ValueOrThrow(Load(b));
  ASSERT_EQ(r.tensors.size(), 3u);
  EXPECT_EQ(r.tensors[0].shape(), Shape({1, 3}));
  EXPECT_EQ(r.tensors[0].ctx(), Context::CPU(0));
  EXPECT_EQ(Values(r.tensors[0]), (std::vector<double>{1, 2, 3}));
  EXPECT_FALSE(r.tensors[1].defined());
  EXPECT_EQ(Values(r.tensors[2]), (std::vector<double>{1.5, -2}));
}

TEST(ParamsIoTest, ReadsV3Records) {
  Bytes b;
  b.header(5);
  b.u32(kNDArrayV3Magic).i32(0).tshape({}).cpu().i32(6).i64(42);  // 0-d
  b.u32(kNDArrayV3Magic).i32(0).tshape({2, 0}).cpu().i32(0);      // zero-size
  b.u32(kNDArrayV3Magic).i32(0).i32(-1);                          // unknown: none
  b.u32(kNDArrayV3Magic).i32(0).tshape({2, -1});                  // unknown dim: none
  b.u32(kNDArrayV3Magic).i32(0).tshape({2}).cpu().i32(0).floats({1, 2});
  b.keys({});
  NamedTensors r = ValueOrThrow(Load(b));
  EXPECT_EQ(r.tensors[0].shape().ndim(), 0);
  EXPECT_EQ(Values(r.tensors[0]), (std::vector<double>{42}));
  EXPECT_EQ(r.tensors[1].shape(), Shape({2, 0}));
  EXPECT_FALSE(r.tensors[2].defined());
  EXPECT_FALSE(r.tensors[3].defined());
  EXPECT_EQ(Values(r.tensors[4]), (std::vector<double>{1, 2}));
}

TEST(ParamsIoTest, ReadsV2NoneArrays) {
  Bytes b;
  b.header(3);
  b.u32(kNDArrayV2Magic).i32(-1).i32(0);                                // MXNet < 1.5: ndim 0
  b.u32(kNDArrayV2Magic).i32(-1).i32(-1);                               // MXNet >= 1.5: ndim -1
  b.u32(kNDArrayV2Magic).i32(-1).tshape({1}).cpu().i32(0).floats({5});  // undefined stype, data
  b.keys({});
  NamedTensors r = ValueOrThrow(Load(b));
  EXPECT_FALSE(r.tensors[0].defined());
  EXPECT_FALSE(r.tensors[1].defined());
  EXPECT_EQ(Values(r.tensors[2]), (std::vector<double>{5}));
}

TEST(ParamsIoTest, NormalizesBools) {
  Bytes b;
  b.header(1)
      .u32(kNDArrayV2Magic)
      .i32(0)
      .tshape({3})
      .cpu()
      .i32(7)
      .raw(std::string("\0\x02\xff", 3));
  b.keys({});
  NamedTensors r = ValueOrThrow(Load(b));
  const unsigned char* p = static_cast<const unsigned char*>(r.tensors[0].raw_data());
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[1], 1);
  EXPECT_EQ(p[2], 1);
}

// row_sparse: storage shape (nnz, ...), aux idx.
Bytes& RowSparse(Bytes& b, std::vector<int64_t> shape, std::vector<int64_t> idx,
                 const std::vector<float>& rows, int idx_flag = 6) {
  std::vector<int64_t> sshape = shape;
  sshape[0] = static_cast<int64_t>(idx.size());
  b.u32(kNDArrayV2Magic).i32(1).tshape(sshape).tshape(shape).cpu().i32(0);
  b.i32(idx_flag).tshape({static_cast<int64_t>(idx.size())});
  b.floats(rows);
  for (int64_t i : idx) {
    if (idx_flag == 6) {
      b.i64(i);
    } else {
      b.i32(static_cast<int32_t>(i));
    }
  }
  return b;
}

// csr: storage shape (nnz,), aux indptr then idx.
Bytes& Csr(Bytes& b, std::vector<int64_t> shape, const std::vector<int64_t>& indptr,
           const std::vector<int64_t>& idx, const std::vector<float>& data) {
  b.u32(kNDArrayV2Magic).i32(2).tshape({static_cast<int64_t>(data.size())}).tshape(shape);
  b.cpu().i32(0);
  b.i32(6).tshape({static_cast<int64_t>(indptr.size())});
  b.i32(6).tshape({static_cast<int64_t>(idx.size())});
  b.floats(data);
  for (int64_t v : indptr) b.i64(v);
  for (int64_t v : idx) b.i64(v);
  return b;
}

TEST(ParamsIoTest, DensifiesSparseRecords) {
  Bytes b;
  b.header(4);
  RowSparse(b, {4, 2}, {1, 3}, {1, 2, 3, 4});
  RowSparse(b, {3, 1}, {2}, {9}, /*idx_flag=*/4);
  Csr(b, {2, 3}, {0, 2, 3}, {0, 2, 1}, {1, 2, 3});
  Csr(b, {2, 2}, {}, {}, {});  // never filled: empty indptr
  b.keys({"arg:emb", "arg:emb32", "arg:csr", "arg:csr0"});
  NamedTensors r = ValueOrThrow(Load(b));
  EXPECT_EQ(r.tensors[0].shape(), Shape({4, 2}));
  EXPECT_EQ(Values(r.tensors[0]), (std::vector<double>{0, 0, 1, 2, 0, 0, 3, 4}));
  EXPECT_EQ(Values(r.tensors[1]), (std::vector<double>{0, 0, 9}));
  EXPECT_EQ(Values(r.tensors[2]), (std::vector<double>{1, 0, 2, 0, 3, 0}));
  EXPECT_EQ(Values(r.tensors[3]), (std::vector<double>{0, 0, 0, 0}));
}

TEST(ParamsIoTest, SparseErrorsNameTheKey) {
  {
    Bytes b;
    RowSparse(b.header(1), {4, 2}, {1, 4}, {1, 2, 3, 4}).keys({"arg:emb"});
    EXPECT_THAT(Message(Load(b)),
                HasSubstr("t.params: record 0 (arg:emb): row_sparse [4,2] with storage shape "
                          "[2,2] and idx shape [2]: idx[1] is out of range for 4 rows"));
  }
  {
    Bytes b;
    Csr(b.header(1), {2, 3}, {0, 2, 1}, {0, 2, 1}, {1, 2, 3}).keys({"m"});
    EXPECT_THAT(Message(Load(b)), HasSubstr("record 0 (m): csr [2,3]"));
    EXPECT_THAT(Message(Load(b)), HasSubstr("indptr[2] breaks"));
  }
  {
    Bytes b;
    Csr(b.header(1), {2, 3}, {0, 2, 3}, {0, 3, 1}, {1, 2, 3}).keys({"m"});
    EXPECT_THAT(Message(Load(b)), HasSubstr("idx[1] is out of range for 3 columns"));
  }
  {
    Bytes b;
    Csr(b.header(1), {2, 3, 1}, {0, 2, 3}, {0, 2, 1}, {1, 2, 3}).keys({"m"});
    EXPECT_THAT(Message(Load(b)), HasSubstr("inconsistent shapes"));
  }
  {
    // A few bytes describing an enormous dense array hit the cap, not malloc.
    Bytes b;
    RowSparse(b.header(1), {int64_t{1} << 40, 1 << 20}, {}, {}).keys({"arg:huge"});
    absl::StatusOr<NamedTensors> r = Load(b);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(Message(r), HasSubstr("record 0 (arg:huge): row_sparse"));
    EXPECT_THAT(Message(r), HasSubstr("more than the limit of"));
  }
  {
    Bytes b;
    b.header(1).u32(kNDArrayV3Magic).i32(1).keys({});
    EXPECT_THAT(Message(Load(b)), HasSubstr("record 0: V3 (np-shape) record with sparse stype 1"));
  }
}

// --- Malformed files --------------------------------------------------------

Bytes ValidFile() {
  Bytes b;
  b.header(2).dense({2, 2}, {1, 2, 3, 4}).dense({3}, {5, 6, 7});
  return b.keys({"arg:fc1_weight", "aux:bn_mean"});
}

TEST(ParamsIoTest, EveryTruncationIsAnErrorNamingTheFile) {
  std::string full = ValidFile().str();
  ASSERT_TRUE(LoadParamsFromBuffer(full, "t.params").ok());
  for (size_t n = 0; n < full.size(); ++n) {
    absl::StatusOr<NamedTensors> r = LoadParamsFromBuffer(full.substr(0, n), "cut.params");
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_THAT(r.status().message(), HasSubstr("cut.params: ")) << n;
    EXPECT_THAT(r.status().message(),
                ::testing::AnyOf(HasSubstr("truncated in "), HasSubstr("arrays but only")))
        << n;
  }
  // Some specific fields.
  auto at = [&](size_t n) {
    return std::string(LoadParamsFromBuffer(full.substr(0, n), "cut.params").status().message());
  };
  EXPECT_EQ(at(10), "cut.params: truncated in header: need 8 bytes, 2 left");
  // Header 24 bytes; record 0: magic 24, stype 28, ndim 32, dims 36, dev_type 52,
  // dev_id 56, type flag 60, data 64..80.
  EXPECT_EQ(at(20), "cut.params: truncated in array count: need 8 bytes, 4 left");
  EXPECT_EQ(at(34), "cut.params: record 0: truncated in shape ndim: need 4 bytes, 2 left");
  EXPECT_EQ(at(44), "cut.params: record 0: truncated in shape (2 dims): need 16 bytes, 8 left");
  EXPECT_EQ(at(57), "cut.params: record 0: truncated in context dev_id: need 4 bytes, 1 left");
  EXPECT_EQ(at(76), "cut.params: record 0: truncated in data: need 16 bytes, 12 left");
  EXPECT_EQ(at(80 + 34), "cut.params: record 1: truncated in data: need 12 bytes, 2 left");
}

TEST(ParamsIoTest, HeaderErrors) {
  Bytes b;
  b.u64(0x113).u64(0).u64(0).keys({});
  EXPECT_EQ(Message(Load(b)),
            "t.params: Invalid NDArray file format: bad magic 0x113 in the header (expected "
            "0x112); not an MXNet .params / NDArray list file");
  // A count that cannot fit in the bytes left is refused before any record.
  Bytes huge;
  huge.header(std::numeric_limits<uint64_t>::max()).dense({1}, {1}).keys({});
  EXPECT_THAT(Message(Load(huge)),
              HasSubstr("t.params: Invalid NDArray file format: the header claims "
                        "18446744073709551615 arrays but only 44 bytes follow"));
}

TEST(ParamsIoTest, RecordErrors) {
  struct Case {
    Bytes bytes;
    std::string expect;
  };
  std::vector<Case> cases;
  auto add = [&](Bytes b, std::string expect) {
    cases.push_back({std::move(b), std::move(expect)});
  };
  Bytes b;

  b = Bytes();
  b.header(2).dense({1}, {1}).u32(0xDEADBEEF).keys({});
  add(b, "t.params: record 1: bad record magic 0xDEADBEEF (expected V2 0xF993FAC9");

  b = Bytes();
  b.header(1).u32(kNDArrayV2Magic).i32(0).tshape({2}).cpu().i32(13).floats({1, 2}).keys({});
  add(b, "t.params: record 0: unknown type flag 13 (expected 0..12)");

  b = Bytes();
  b.header(1).u32(kNDArrayV2Magic).i32(0).tshape({2}).cpu().i32(-1).floats({1, 2}).keys({});
  add(b, "t.params: record 0: unknown type flag -1");

  b = Bytes();
  b.header(1).u32(kNDArrayV2Magic).i32(3).keys({});
  add(b, "t.params: record 0: unknown stype 3");

  b = Bytes();
  b.header(1).u32(kNDArrayV2Magic).i32(0).tshape({2, -3}).cpu().i32(0).keys({});
  add(b, "t.params: record 0: shape: negative dim -3 at axis 1 of [2,-3]");

  b = Bytes();
  b.header(1).u32(kNDArrayV2Magic).i32(0).tshape({2, -1}).cpu().i32(0).keys({});
  add(b, "t.params: record 0: shape: negative dim -1 at axis 1");

  b = Bytes();
  b.header(1).u32(kNDArrayV2Magic).i32(0).i32(-2).keys({});
  add(b, "t.params: record 0: shape: invalid ndim -2");

  b = Bytes();
  b.header(1).u32(kNDArrayV2Magic).i32(0).i32(1 << 30).keys({});
  add(b, "t.params: record 0: truncated in shape (1073741824 dims)");

  b = Bytes();
  b.header(1).u32(kNDArrayV2Magic).i32(0).tshape({int64_t{1} << 32, int64_t{1} << 32, 0});
  b.cpu().i32(0).keys({});
  add(b, "t.params: record 0: shape [4294967296,4294967296,0]: the element count overflows");

  b = Bytes();
  b.header(1).u32(kNDArrayV2Magic).i32(0).tshape({int64_t{1} << 61}).cpu().i32(1).keys({});
  add(b, "the byte size overflows");

  // A header describing terabytes is refused without allocating them.
  b = Bytes();
  b.header(1).u32(kNDArrayV2Magic).i32(0).tshape({1 << 20, 1 << 20}).cpu().i32(0).floats({1});
  b.keys({});
  add(b, "t.params: record 0: truncated in data: need 4398046511104 bytes, 12 left");

  b = Bytes();
  b.header(1).u32(kNDArrayV2Magic).i32(0).tshape({1}).i32(4).i32(0).i32(0).floats({1}).keys({});
  add(b, "t.params: record 0: context: unknown dev_type 4");

  b = Bytes();
  b.header(1).u32(33).keys({});
  add(b, "a pre-V1 record would start with ndim <= 32");

  b = Bytes();
  b.header(1).u32(2).u32(0xFFFFFFFF).u32(0xFFFFFFFF).cpu().i32(0).keys({});
  add(b, "t.params: record 0: pre-V1 shape [4294967295,4294967295]: the element count overflows");

  b = Bytes();
  RowSparse(b.header(1), {4, 2}, {1}, {1, 2}, /*idx_flag=*/0).keys({});
  add(b, "t.params: record 0: aux 0 (idx): type flag 0 is not an integer type");

  b = Bytes();
  b.header(2).dense({1}, {1}).dense({1}, {2}).keys({"only_one"});
  add(b, "t.params: Invalid NDArray file format: 1 keys for 2 arrays");

  b = Bytes();
  b.header(1).dense({1}, {1}).u64(1).u64(100).raw("abc");
  add(b, "t.params: truncated in key 0: length 100 goes beyond the end of the file (3 bytes left)");

  b = Bytes();
  b.header(1).dense({1}, {1}).keys({"k"}).raw("xyz");
  add(b, "t.params: 3 trailing bytes after the key table (at offset 77)");

  for (Case& c : cases) {
    absl::StatusOr<NamedTensors> r = Load(c.bytes);
    ASSERT_FALSE(r.ok()) << c.expect;
    EXPECT_THAT(r.status().message(), HasSubstr(c.expect));
  }
}

TEST(ParamsIoTest, NothingIsHalfLoaded) {
  // Record 0 is fine; record 1 fails: only the error comes back and the first
  // record's tensor is not kept alive anywhere.
  Device* cpu = ValueOrThrow(GetDevice(Context::CPU(0)));
  size_t before = cpu->allocator().bytes_in_use();
  Bytes b;
  b.header(2).dense({1000}, std::vector<float>(1000, 1.f)).u32(7).keys({});
  absl::StatusOr<NamedTensors> r = Load(b);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(cpu->allocator().bytes_in_use(), before);
  // Pass 2 failures (after record 0 was materialized) free it too.
  Bytes c;
  c.header(2).dense({1000}, std::vector<float>(1000, 1.f));
  RowSparse(c, {2, 1}, {5}, {1}).keys({"a", "b"});
  EXPECT_THAT(Message(Load(c)), HasSubstr("record 1 (b): row_sparse"));
  EXPECT_EQ(cpu->allocator().bytes_in_use(), before);
}

// --- Checkpoint helpers -----------------------------------------------------

TEST(ParamsIoTest, SplitsArgAndAux) {
  Tensor w = Tensor::FromVector(Shape{1}, {1});
  Tensor m = Tensor::FromVector(Shape{1}, {2});
  NamedTensors p = MakeCheckpointParams({{"fc_weight", w}, {"a:b", w}}, {{"bn_mean", m}});
  EXPECT_EQ(p.names, (std::vector<std::string>{"arg:a:b", "arg:fc_weight", "aux:bn_mean"}));
  NamedTensors back =
      ValueOrThrow(LoadParamsFromBuffer(ValueOrThrow(SaveParamsToString(p)), "ck-0001.params"));
  ArgAuxParams s = ValueOrThrow(SplitArgAux(back));
  ASSERT_EQ(s.arg.size(), 2u);
  ASSERT_EQ(s.aux.size(), 1u);
  EXPECT_EQ(Values(s.arg.at("a:b")), (std::vector<double>{1}));  // split at the first ':'
  EXPECT_EQ(Values(s.aux.at("bn_mean")), (std::vector<double>{2}));
  EXPECT_TRUE(SplitArgAux(NamedTensors{}).ok());

  auto err = [](NamedTensors p) { return std::string(SplitArgAux(p).status().message()); };
  EXPECT_EQ(err({{"fc_weight"}, {w}}), "parameter key 'fc_weight' has no 'arg:' or 'aux:' prefix");
  EXPECT_EQ(err({{"opt:x"}, {w}}),
            "parameter key 'opt:x': unknown prefix 'opt' (expected 'arg' or 'aux')");
  EXPECT_EQ(err({{"arg:x", "arg:x"}, {w, m}}), "parameter key 'arg:x' appears twice");
  EXPECT_THAT(err({{}, {w}}), HasSubstr("this is a list of 1 arrays"));
}

// --- The committed corpus of malformed files ---------------------------------

TEST(ParamsIoTest, MalformedCorpusGivesErrorsNamingFileAndField) {
  const std::string dir = "tests/testdata/bad_params/";
  std::ifstream manifest(dir + "EXPECTED");
  ASSERT_TRUE(manifest) << "missing manifest";
  std::string line;
  int cases = 0;
  while (std::getline(manifest, line)) {
    if (line.empty()) continue;
    std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits('\t', 1));
    ASSERT_EQ(parts.size(), 2u) << line;
    absl::StatusOr<NamedTensors> r = LoadParams(dir + parts[0]);
    ++cases;
    ASSERT_FALSE(r.ok()) << parts[0] << " loaded";
    std::string message(r.status().message());
    EXPECT_NE(message.find(dir + parts[0] + ": "), std::string::npos) << message;
    EXPECT_NE(message.find(parts[1]), std::string::npos)
        << parts[0] << ": expected \"" << parts[1] << "\" in: " << message;
  }
  EXPECT_GE(cases, 15);
}

// The fuzzer's seeds (written by tests/testdata/make_params_files.py) are valid
// files of every record version and storage type.
TEST(ParamsIoTest, FuzzSeedsLoad) {
  int seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator("tests/fuzz/params_corpus")) {
    std::string name = entry.path().filename().string();
    if (name.rfind("seed-", 0) != 0 || entry.path().extension() != ".params") continue;
    ++seeds;
    absl::StatusOr<NamedTensors> r = LoadParams(entry.path().string());
    EXPECT_TRUE(r.ok()) << r.status();
  }
  EXPECT_GE(seeds, 10);
}

}  // namespace
}  // namespace symx
