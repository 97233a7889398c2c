// ImageRecordIter against MXNet 1.9.1's on the same files
// (tests/testdata/recordio/iter_cases.json, made by make_recordio_files.py):
// every deterministic configuration's first epoch, batch for batch. Then
// what cannot be compared with MXNet (its draws differ): determinism over
// thread counts, shuffling, random augmentation's properties, and errors.
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/npy.h"
#include "devices/params_io.h"
#include "graph/error.h"
#include "graph/file_io.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/expect_contains.h"
#include "train/image/record_iter.h"
#include "train/image/record_iter_params.h"
#include "train/image/transform.h"
#include "train/recordio/record_file.h"

namespace symx::image {
namespace {

const std::string kDir = "tests/testdata/recordio/";

std::string ReadFile(const std::string& path) { return ValueOrThrow(ReadFileBytes(path)); }

// MXNet's kwargs as the Python front passes them: str() of each value.
std::vector<std::pair<std::string, std::string>> Params(const nlohmann::json& config) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto it = config.begin(); it != config.end(); ++it) {
    std::string value;
    if (it.value().is_string()) {
      value = it.value().get<std::string>();
      if (it.key().rfind("path_", 0) == 0) value = kDir + value;
    } else if (it.value().is_array()) {
      value = "(";
      for (const auto& d : it.value()) value += std::to_string(d.get<int>()) + ", ";
      value += ")";
    } else if (it.value().is_boolean()) {
      value = it.value().get<bool>() ? "True" : "False";
    } else {
      value = it.value().dump();
    }
    out.emplace_back(it.key(), value);
  }
  return out;
}

struct Epoch {
  std::vector<ImageBatch> batches;
};

Epoch RunEpoch(ImageRecordIter& iter) {
  Epoch e;
  while (true) {
    ImageBatch b;
    auto more = iter.Next(&b);
    EXPECT_TRUE(more.ok()) << more.status();
    if (!more.ok() || !*more) break;
    e.batches.push_back(std::move(b));
  }
  return e;
}

std::unique_ptr<ImageRecordIter> Make(std::vector<std::pair<std::string, std::string>> params,
                                      bool det = false) {
  auto config = det ? ImageDetRecordIterConfigFrom(params) : ImageRecordIterConfigFrom(params);
  EXPECT_TRUE(config.ok()) << config.status();
  if (!config.ok()) return nullptr;
  auto iter = ImageRecordIter::Create(*config);
  EXPECT_TRUE(iter.ok()) << iter.status();
  return iter.ok() ? *std::move(iter) : nullptr;
}

std::vector<float> DataOf(const Epoch& e) {
  std::vector<float> out;
  for (const ImageBatch& b : e.batches) {
    const float* d = b.data.read_data<float>();
    out.insert(out.end(), d, d + b.data.size());
  }
  return out;
}

// Every case of `cases_file` (MXNet's outputs, first epoch) against symx's.
void ExpectEqualsMxnet(const std::string& cases_file, const std::string& prefix, bool det) {
  auto cases = nlohmann::json::parse(ReadFile(kDir + cases_file));
  for (auto it = cases.begin(); it != cases.end(); ++it) {
    SCOPED_TRACE(it.key());
    auto params = Params(it.value()["config"]);
    params.emplace_back("preprocess_threads", "3");
    auto iter = Make(params, det);
    ASSERT_NE(iter, nullptr);
    Epoch epoch = RunEpoch(*iter);
    auto want_data = LoadNpy(kDir + prefix + it.key() + "_data.npy");
    auto want_label = LoadNpy(kDir + prefix + it.key() + "_label.npy");
    ASSERT_TRUE(want_data.ok() && want_label.ok());
    std::vector<int> pads = it.value()["pads"].get<std::vector<int>>();
    ASSERT_EQ(epoch.batches.size(), pads.size());
    const int64_t per_batch = want_data->size() / static_cast<int64_t>(pads.size());
    const int64_t labels_per_batch = want_label->size() / static_cast<int64_t>(pads.size());
    for (size_t b = 0; b < pads.size(); ++b) {
      const ImageBatch& got = epoch.batches[b];
      EXPECT_EQ(got.pad, pads[b]) << "batch " << b;
      ASSERT_EQ(got.data.size(), per_batch);
      ASSERT_EQ(got.label.size(), labels_per_batch);
      int differ = 0;
      double worst = 0;
      for (int64_t k = 0; k < per_batch; ++k) {
        double w, g;
        if (got.data.dtype() == DType::kUint8) {
          w = want_data->read_data<uint8_t>()[b * per_batch + k];
          g = got.data.read_data<uint8_t>()[k];
        } else {
          w = want_data->read_data<float>()[b * per_batch + k];
          g = got.data.read_data<float>()[k];
        }
        const double err = std::fabs(w - g);
        worst = std::max(worst, err);
        differ += err > 1e-5 * (1 + std::fabs(w));
      }
      EXPECT_EQ(differ, 0) << "batch " << b << ": worst difference " << worst;
      for (int64_t k = 0; k < labels_per_batch; ++k) {
        EXPECT_EQ(got.label.read_data<float>()[k],
                  want_label->read_data<float>()[b * labels_per_batch + k])
            << "batch " << b << " label " << k;
      }
    }
  }
}

TEST(ImageRecordIterTest, EqualsMxnetOnDeterministicConfigurations) {
  ExpectEqualsMxnet("iter_cases.json", "iter_", /*det=*/false);
}

// ImageDetRecordIter: resize_mode force, fit (zeros around) and shrink, the
// label rows [C, H, W, L, labels..., pad value] with empty boxes dropped.
TEST(ImageDetRecordIterTest, EqualsMxnetOnDeterministicConfigurations) {
  ExpectEqualsMxnet("det_cases.json", "det_", /*det=*/true);
}

// A mean_img that does not exist is computed from the iterator's output over
// the whole file (here from part 1 of 2: every rank computes the same file)
// and saved; MXNet 1.9.1 computed mean_img.nd and mean_img_data.npy.
TEST(ImageRecordIterTest, MissingMeanImgIsComputedAndSavedAsMxnetDoes) {
  const std::string path = testing::TempDir() + "/computed_mean_img.nd";
  std::remove(path.c_str());
  const std::vector<std::pair<std::string, std::string>> base = {
      {"path_imgrec", kDir + "classes.rec"},
      {"data_shape", "(3, 16, 16)"},
      {"resize", "16"},
      {"batch_size", "5"},
      {"scale", "0.5"},
      {"mean_img", path}};
  auto params = base;
  params.insert(params.end(), {{"num_parts", "2"}, {"part_index", "1"}});
  ASSERT_NE(Make(params), nullptr);
  auto saved = LoadParams(path);
  auto want = LoadParams(kDir + "mean_img.nd");
  ASSERT_TRUE(saved.ok() && want.ok()) << saved.status() << want.status();
  ASSERT_EQ(saved->names, std::vector<std::string>{"mean_img"});
  ASSERT_EQ(saved->tensors[0].shape(), want->tensors[0].shape());
  for (int64_t k = 0; k < want->tensors[0].size(); ++k) {
    const float w = want->tensors[0].read_data<float>()[k];
    EXPECT_NEAR(saved->tensors[0].read_data<float>()[k], w, 1e-5 * (1 + std::fabs(w))) << k;
  }
  // Now present: read, and the output is normalized by it as in MXNet.
  auto iter = Make(base);
  ASSERT_NE(iter, nullptr);
  const std::vector<float> got = DataOf(RunEpoch(*iter));
  auto want_data = LoadNpy(kDir + "mean_img_data.npy");
  ASSERT_TRUE(want_data.ok());
  ASSERT_EQ(static_cast<int64_t>(got.size()), want_data->size());
  for (size_t k = 0; k < got.size(); ++k) {
    const float w = want_data->read_data<float>()[k];
    ASSERT_NEAR(got[k], w, 1e-4 * (1 + std::fabs(w))) << k;
  }
  // A mean image that cannot be saved is an error naming the path.
  auto bad = base;
  bad.back().second = testing::TempDir() + "/no/such/dir/mean.nd";
  auto config = ImageRecordIterConfigFrom(bad);
  ASSERT_TRUE(config.ok());
  auto failed = ImageRecordIter::Create(*config);
  ASSERT_FALSE(failed.ok());
  EXPECT_CONTAINS(std::string(failed.status().message()),
                  "mean_img " + bad.back().second +
                      " does not exist and the computed mean image could not be saved");
}

// path_imgrec naming several files: the same batches as the one file they
// were cut from; byte shards over the concatenation cover every record once.
TEST(ImageRecordIterTest, SeveralRecFilesReadAsOne) {
  const std::string a = testing::TempDir() + "/classes_a.rec",
                    b = testing::TempDir() + "/classes_b.rec";
  {
    auto reader = recordio::RecordReader::Open(kDir + "classes.rec");
    ASSERT_TRUE(reader.ok());
    auto wa = recordio::RecordWriter::Create(a), wb = recordio::RecordWriter::Create(b);
    ASSERT_TRUE(wa.ok() && wb.ok());
    std::string payload;
    for (int i = 0; (*reader)->Next(&payload).value(); ++i) {
      ASSERT_TRUE((i < 5 ? *wa : *wb)->Write(payload).ok());
    }
    ASSERT_TRUE((*wa)->Close().ok() && (*wb)->Close().ok());
  }
  auto params = [&](const std::string& rec, int part, int parts) {
    return std::vector<std::pair<std::string, std::string>>{{"path_imgrec", rec},
                                                            {"data_shape", "(3, 16, 16)"},
                                                            {"resize", "16"},
                                                            {"batch_size", "4"},
                                                            {"round_batch", "False"},
                                                            {"num_parts", std::to_string(parts)},
                                                            {"part_index", std::to_string(part)}};
  };
  auto whole = Make(params(kDir + "classes.rec", 0, 1));
  auto split = Make(params(a + ";" + b, 0, 1));
  ASSERT_TRUE(whole && split);
  EXPECT_EQ(DataOf(RunEpoch(*split)), DataOf(RunEpoch(*whole)));
  std::multiset<uint64_t> ids;
  for (int part = 0; part < 3; ++part) {
    auto shard = Make(params(a + ";" + b, part, 3));
    ASSERT_NE(shard, nullptr);
    for (const ImageBatch& batch : RunEpoch(*shard).batches) {
      ids.insert(batch.index.begin(), batch.index.end() - batch.pad);
    }
  }
  std::multiset<uint64_t> want;
  for (uint64_t id = 100; id < 112; ++id) want.insert(id);
  EXPECT_EQ(ids, want);
  auto with_index = params(a + ";" + b, 0, 1);
  with_index.emplace_back("path_imgidx", kDir + "classes.idx");
  auto config = ImageRecordIterConfigFrom(with_index);
  ASSERT_TRUE(config.ok());
  auto failed = ImageRecordIter::Create(*config);
  ASSERT_FALSE(failed.ok());
  EXPECT_CONTAINS(
      std::string(failed.status().message()),
      "path_imgidx indexes one .rec file, but path_imgrec '" + a + ";" + b + "' names 2");
}

TEST(ImageDetRecordIterTest, AugmentationMovesBoxesWithThePixels) {
  auto plain =
      Make({{"path_imgrec", kDir + "det.rec"}, {"data_shape", "(3, 24, 24)"}, {"batch_size", "9"}},
           true);
  auto mirrored = Make({{"path_imgrec", kDir + "det.rec"},
                        {"data_shape", "(3, 24, 24)"},
                        {"batch_size", "9"},
                        {"rand_mirror_prob", "1"}},
                       true);
  ASSERT_TRUE(plain && mirrored);
  ImageBatch a, b;
  ASSERT_TRUE(*plain->Next(&a));
  ASSERT_TRUE(*mirrored->Next(&b));
  const int width = static_cast<int>(a.label.shape()[1]);
  for (int r = 0; r < 9; ++r) {
    const float* la = a.label.read_data<float>() + r * width;
    const float* lb = b.label.read_data<float>() + r * width;
    ASSERT_EQ(la[3], lb[3]);
    // Objects start after [C, H, W, L] and the 2-value header.
    for (int o = 6; o + 5 <= 4 + la[3]; o += 5) {
      EXPECT_FLOAT_EQ(lb[o + 1], 1 - la[o + 3]) << "row " << r;  // xmin
      EXPECT_FLOAT_EQ(lb[o + 3], 1 - la[o + 1]) << "row " << r;  // xmax
      EXPECT_EQ(lb[o + 2], la[o + 2]);
    }
    const float* da = a.data.read_data<float>() + int64_t{r} * 3 * 24 * 24;
    const float* db = b.data.read_data<float>() + int64_t{r} * 3 * 24 * 24;
    EXPECT_EQ(da[5], db[18]);  // row 0: x = 5 and 24 - 1 - 5
  }
  // SSD's crop samplers and random pad keep every box inside [0, 1] and at
  // least one object per image.
  auto ssd = Make({{"path_imgrec", kDir + "det.rec"},
                   {"data_shape", "(3, 24, 24)"},
                   {"batch_size", "9"},
                   {"rand_crop_prob", "1"},
                   {"num_crop_sampler", "3"},
                   {"min_crop_scales", "(0.3, 0.5, 0.7)"},
                   {"max_crop_scales", "1"},
                   {"min_crop_aspect_ratios", "0.5"},
                   {"max_crop_aspect_ratios", "2"},
                   {"min_crop_overlaps", "(0.1, 0.3, 0.5)"},
                   {"max_crop_trials", "50"},
                   {"rand_pad_prob", "0.5"},
                   {"max_pad_scale", "2"},
                   {"max_random_contrast", "0.3"},
                   {"random_contrast_prob", "0.5"}},
                  true);
  ASSERT_NE(ssd, nullptr);
  for (int epoch = 0; epoch < 5; ++epoch) {
    ImageBatch c;
    ASSERT_TRUE(*ssd->Next(&c));
    for (int r = 0; r < 9; ++r) {
      const float* l = c.label.read_data<float>() + r * width;
      ASSERT_GE(l[3], 7) << "every image keeps an object";
      for (int o = 6; o + 5 <= 4 + l[3]; o += 5) {
        for (int k = 1; k <= 4; ++k) {
          EXPECT_GE(l[o + k], 0.f);
          EXPECT_LE(l[o + k], 1.f);
        }
        EXPECT_LT(l[o + 1], l[o + 3]);
      }
    }
    ssd->Reset();
  }
}

TEST(ImageDetRecordIterTest, ErrorsNameTheParameterOrRecord) {
  const std::string rec = kDir + "det.rec";
  struct Case {
    std::vector<std::pair<std::string, std::string>> params;
    std::string message;
  };
  std::vector<Case> cases = {
      {{{"path_imgrec", rec}, {"data_shape", "(3, 8, 8)"}, {"batch_size", "2"}, {"rand_crop", "1"}},
       "ImageDetRecordIter: unknown parameter 'rand_crop'"},
      {{{"path_imgrec", rec},
        {"data_shape", "(3, 8, 8)"},
        {"batch_size", "2"},
        {"label_pad_width", "5"}},
       "label_pad_width 5 is smaller than the longest label"},
      {{{"path_imgrec", rec},
        {"data_shape", "(3, 8, 8)"},
        {"batch_size", "2"},
        {"num_crop_sampler", "2"},
        {"min_crop_scales", "(0.1, 0.2, 0.3)"}},
       "min_crop_scales has 3 values for 2 crop samplers"},
      {{{"path_imgrec", rec},
        {"data_shape", "(3, 8, 8)"},
        {"batch_size", "2"},
        {"resize_mode", "stretch"}},
       "resize_mode=\"stretch\": expected force, shrink or fit"},
      {{{"path_imgrec", rec},
        {"data_shape", "(3, 8, 8)"},
        {"batch_size", "2"},
        {"crop_emit_mode", "middle"}},
       "crop_emit_mode=\"middle\": expected center or overlap"},
      {{{"path_imgrec", kDir + "classes.rec"}, {"data_shape", "(3, 8, 8)"}, {"batch_size", "2"}},
       "has a single label; detection records carry a label vector"},
  };
  for (const Case& c : cases) {
    auto config = ImageDetRecordIterConfigFrom(c.params);
    absl::Status status = config.status();
    if (config.ok()) status = ImageRecordIter::Create(*config).status();
    EXPECT_FALSE(status.ok()) << c.message;
    EXPECT_CONTAINS(std::string(status.message()), c.message);
  }
}

std::vector<std::pair<std::string, std::string>> RandomParams(int threads) {
  return {{"path_imgrec", kDir + "classes.rec"},
          {"data_shape", "(3, 24, 24)"},
          {"batch_size", "5"},
          {"shuffle", "True"},
          {"seed", "7"},
          {"rand_crop", "True"},
          {"rand_mirror", "True"},
          {"max_random_scale", "1.2"},
          {"min_random_scale", "0.8"},
          {"max_rotate_angle", "10"},
          {"brightness", "0.3"},
          {"contrast", "0.3"},
          {"saturation", "0.3"},
          {"pca_noise", "0.1"},
          {"inter_method", "10"},
          {"preprocess_threads", std::to_string(threads)}};
}

std::vector<float> Flatten(const Epoch& e) {
  std::vector<float> out;
  for (const ImageBatch& b : e.batches) {
    const float* d = b.data.read_data<float>();
    out.insert(out.end(), d, d + b.data.size());
    const float* l = b.label.read_data<float>();
    out.insert(out.end(), l, l + b.label.size());
  }
  return out;
}

TEST(ImageRecordIterTest, RandomAugmentationIsTheSameForAnyThreadCount) {
  auto one = Make(RandomParams(1));
  auto four = Make(RandomParams(4));
  ASSERT_TRUE(one && four);
  Epoch a = RunEpoch(*one), b = RunEpoch(*four);
  EXPECT_EQ(Flatten(a), Flatten(b));
  // The next epoch is shuffled and augmented differently.
  one->Reset();
  Epoch c = RunEpoch(*one);
  EXPECT_NE(Flatten(a), Flatten(c));
  // A fresh iterator repeats the first epoch exactly.
  auto again = Make(RandomParams(2));
  EXPECT_EQ(Flatten(RunEpoch(*again)), Flatten(a));
}

TEST(ImageRecordIterTest, ShuffleVisitsEveryRecordOncePerEpoch) {
  auto iter = Make({{"path_imgrec", kDir + "classes.rec"},
                    {"data_shape", "(3, 8, 8)"},
                    {"resize", "8"},
                    {"batch_size", "5"},
                    {"shuffle", "True"},
                    {"round_batch", "False"}});
  ASSERT_NE(iter, nullptr);
  std::vector<std::vector<uint64_t>> orders;
  for (int epoch = 0; epoch < 3; ++epoch) {
    Epoch e = RunEpoch(*iter);
    ASSERT_EQ(e.batches.size(), 3u);
    EXPECT_EQ(e.batches.back().pad, 3);  // 12 records: 5 + 5 + 2, three zero rows
    std::vector<uint64_t> ids;
    for (const ImageBatch& b : e.batches) {
      for (int r = 0; r < 5 - b.pad; ++r) ids.push_back(b.index[r]);
    }
    std::set<uint64_t> unique(ids.begin(), ids.end());
    EXPECT_EQ(unique.size(), 12u);
    EXPECT_EQ(*unique.begin(), 100u);
    orders.push_back(ids);
    // The padded rows are zeros.
    const ImageBatch& last = e.batches.back();
    const int64_t row = last.data.size() / 5;
    for (int64_t k = 2 * row; k < 5 * row; ++k) ASSERT_EQ(last.data.read_data<float>()[k], 0.f);
    iter->Reset();
  }
  EXPECT_NE(orders[0], orders[1]);
}

TEST(ImageRecordIterTest, RandomMirrorFlipsAboutHalf) {
  auto plain = Make({{"path_imgrec", kDir + "classes.rec"},
                     {"data_shape", "(3, 16, 16)"},
                     {"resize", "16"},
                     {"batch_size", "12"}});
  auto flipping = Make({{"path_imgrec", kDir + "classes.rec"},
                        {"data_shape", "(3, 16, 16)"},
                        {"resize", "16"},
                        {"batch_size", "12"},
                        {"rand_mirror", "True"}});
  ASSERT_TRUE(plain && flipping);
  int flipped = 0, total = 0;
  Epoch p = RunEpoch(*plain);
  for (int epoch = 0; epoch < 10; ++epoch) {
    Epoch f = RunEpoch(*flipping);
    flipping->Reset();
    const float* a = p.batches[0].data.read_data<float>();
    const float* b = f.batches[0].data.read_data<float>();
    for (int r = 0; r < 12; ++r) {
      bool same = true, mirror = true;
      for (int k = 0; k < 3; ++k) {
        for (int y = 0; y < 16; ++y) {
          for (int x = 0; x < 16; ++x) {
            const int64_t base = ((int64_t{r} * 3 + k) * 16 + y) * 16;
            same = same && a[base + x] == b[base + x];
            mirror = mirror && a[base + x] == b[base + 15 - x];
          }
        }
      }
      ASSERT_TRUE(same || mirror) << "row " << r;
      flipped += !same;
      ++total;
    }
  }
  EXPECT_GT(flipped, total * 3 / 10);
  EXPECT_LT(flipped, total * 7 / 10);
}

// rotate_list draws each image's angle from the list: every row is the
// image rotated by one of the listed angles (each seen), as `rotate` would.
TEST(ImageRecordIterTest, RotateListDrawsEachAngleFromTheList) {
  auto with = [](std::pair<std::string, std::string> extra) {
    return Make({{"path_imgrec", kDir + "classes.rec"},
                 {"data_shape", "(3, 16, 16)"},
                 {"resize", "16"},
                 {"batch_size", "12"},
                 extra});
  };
  auto r30 = with({"rotate", "30"}), r60 = with({"rotate", "60"});
  auto listed = with({"rotate_list", "30,60"}), single = with({"rotate_list", "[30]"});
  auto plain = with({"seed", "0"});
  ASSERT_TRUE(r30 && r60 && listed && single && plain);
  const std::vector<float> a = DataOf(RunEpoch(*r30)), b = DataOf(RunEpoch(*r60));
  EXPECT_EQ(DataOf(RunEpoch(*single)), a);
  EXPECT_NE(a, DataOf(RunEpoch(*plain)));
  const size_t row = 3 * 16 * 16;
  int seen30 = 0, seen60 = 0;
  for (int epoch = 0; epoch < 4; ++epoch) {
    const std::vector<float> l = DataOf(RunEpoch(*listed));
    listed->Reset();
    ASSERT_EQ(l.size(), a.size());
    for (size_t r = 0; r * row < l.size(); ++r) {
      const bool is30 =
          std::equal(l.begin() + r * row, l.begin() + (r + 1) * row, a.begin() + r * row);
      const bool is60 =
          std::equal(l.begin() + r * row, l.begin() + (r + 1) * row, b.begin() + r * row);
      ASSERT_TRUE(is30 || is60) << "epoch " << epoch << " row " << r;
      seen30 += is30;
      seen60 += is60;
    }
  }
  EXPECT_GT(seen30, 0);
  EXPECT_GT(seen60, 0);
}

TEST(ImageRecordIterTest, HlsJitterShiftsHueLightnessAndSaturation) {
  Image img;
  img.height = 1;
  img.width = 4;
  img.channels = 3;
  img.pixels = {255, 0, 0, 0, 0, 255, 40, 120, 200, 90, 90, 90};  // red, blue, a blue-ish, gray
  Image same = img;
  ShiftHls(&same, 0, 0, 0);
  for (size_t k = 0; k < img.pixels.size(); ++k) {
    EXPECT_NEAR(same.pixels[k], img.pixels[k], 2) << k;  // 8-bit HLS quantization only
  }
  Image yellow = img;
  ShiftHls(&yellow, 30, 0, 0);            // +60 degrees: red -> yellow
  EXPECT_NEAR(yellow.pixels[0], 255, 2);  // within 8-bit HLS quantization
  EXPECT_NEAR(yellow.pixels[1], 255, 2);
  EXPECT_NEAR(yellow.pixels[2], 0, 2);
  Image gray = img;
  ShiftHls(&gray, 0, 0, -255);  // no saturation: gray at the same lightness
  for (int x = 0; x < 4; ++x) {
    EXPECT_EQ(gray.pixels[x * 3], gray.pixels[x * 3 + 1]);
    EXPECT_EQ(gray.pixels[x * 3 + 1], gray.pixels[x * 3 + 2]);
  }
  EXPECT_EQ(gray.pixels[0], 128);  // red's lightness is 0.5
  Image white = img;
  ShiftHls(&white, 0, 255, 0);
  for (uint8_t v : white.pixels) EXPECT_EQ(v, 255);
  // In the iterator: some change, the same for any thread count.
  auto params = [](int threads) {
    return std::vector<std::pair<std::string, std::string>>{
        {"path_imgrec", kDir + "classes.rec"},
        {"data_shape", "(3, 16, 16)"},
        {"resize", "16"},
        {"batch_size", "12"},
        {"random_h", "20"},
        {"random_s", "40"},
        {"random_l", "30"},
        {"preprocess_threads", std::to_string(threads)}};
  };
  auto plain = Make({{"path_imgrec", kDir + "classes.rec"},
                     {"data_shape", "(3, 16, 16)"},
                     {"resize", "16"},
                     {"batch_size", "12"}});
  auto one = Make(params(1)), three = Make(params(3));
  ASSERT_TRUE(plain && one && three);
  Epoch a = RunEpoch(*one);
  EXPECT_EQ(Flatten(a), Flatten(RunEpoch(*three)));
  EXPECT_NE(Flatten(a), Flatten(RunEpoch(*plain)));
}

TEST(ImageRecordIterTest, ErrorsNameTheParameterFileOrRecord) {
  struct Case {
    std::vector<std::pair<std::string, std::string>> params;
    std::string message;
  };
  const std::string rec = kDir + "classes.rec";
  std::vector<Case> cases = {
      {{{"path_imgrec", rec},
        {"data_shape", "(3, 8, 8)"},
        {"batch_size", "2"},
        {"rand_mirorr", "1"}},
       "unknown parameter 'rand_mirorr'"},
      {{{"path_imgrec", rec}, {"data_shape", "(2, 8, 8)"}, {"batch_size", "2"}},
       "the channels must be 1, 3 or 4"},
      {{{"path_imgrec", rec}, {"data_shape", "(3, 8)"}, {"batch_size", "2"}},
       "data_shape=\"(3, 8)\": expected (channels, height, width)"},
      {{{"path_imgrec", rec}, {"data_shape", "(3, 8, 8)"}}, "batch_size 0 must be positive"},
      {{{"path_imgrec", kDir + "none.rec"}, {"data_shape", "(3, 8, 8)"}, {"batch_size", "2"}},
       "none.rec"},
      {{{"path_imgrec", rec},
        {"data_shape", "(3, 8, 8)"},
        {"batch_size", "2"},
        {"part_index", "3"},
        {"num_parts", "3"}},
       "part_index 3 must be in [0, num_parts 3)"},
      {{{"path_imgrec", rec},
        {"data_shape", "(3, 8, 8)"},
        {"batch_size", "2"},
        {"random_resized_crop", "True"},
        {"rand_crop", "True"}},
       "random_resized_crop cannot be combined"},
      {{{"path_imgrec", rec},
        {"data_shape", "(3, 8, 8)"},
        {"batch_size", "2"},
        {"inter_method", "7"}},
       "inter_method 7"},
      {{{"path_imgrec", rec},
        {"data_shape", "(3, 8, 8)"},
        {"batch_size", "2"},
        {"rotate_list", "5,x"}},
       "rotate_list=\"5,x\": expected a comma-separated list of integer angles"},
      {{{"path_imgrec", rec},
        {"data_shape", "(3, 8, 8)"},
        {"batch_size", "2"},
        {"dtype", "float16"}},
       "dtype=\"float16\": expected float32, uint8 or int8"},
      {{{"path_imgrec", rec},
        {"data_shape", "(3, 8, 8)"},
        {"batch_size", "2"},
        {"mean_img", kDir + "classes.lst"}},
       "mean_img: "},
      {{{"path_imgrec", rec},
        {"data_shape", "(3, 8, 8)"},
        {"batch_size", "2"},
        {"mean_img", kDir + "mean_img.nd"}},
       "must hold one array of shape [3,8,8] (data_shape); it holds one of shape [3,16,16]"},
  };
  for (const Case& c : cases) {
    auto config = ImageRecordIterConfigFrom(c.params);
    absl::Status status = config.status();
    if (config.ok()) status = ImageRecordIter::Create(*config).status();
    EXPECT_FALSE(status.ok()) << c.message;
    EXPECT_CONTAINS(std::string(status.message()), c.message);
  }
}

TEST(ImageRecordIterTest, BadRecordsFailTheBatchNamingFileOffsetAndId) {
  // Labels: the multi-label file read with label_width 1.
  auto iter = Make(
      {{"path_imgrec", kDir + "multilabel.rec"}, {"data_shape", "(3, 8, 8)"}, {"batch_size", "2"}});
  ASSERT_NE(iter, nullptr);
  ImageBatch b;
  auto more = iter->Next(&b);
  ASSERT_FALSE(more.ok());
  EXPECT_CONTAINS(std::string(more.status().message()), "multilabel.rec: record at byte 0");
  EXPECT_CONTAINS(std::string(more.status().message()),
                  "record id 100 has 2 label(s) but label_width is 1");
  // Not images: the framing test file's payloads.
  auto framing = Make({{"path_imgrec", kDir + "images.rec"},
                       {"data_shape", "(4, 8, 8)"},
                       {"label_width", "3"},
                       {"batch_size", "1"}});
  ASSERT_NE(framing, nullptr);
  more = framing->Next(&b);
  ASSERT_FALSE(more.ok());
  EXPECT_CONTAINS(std::string(more.status().message()), "record id 10");
}

}  // namespace
}  // namespace symx::image
