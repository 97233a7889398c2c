// Training data: the synthetic set's determinism and shape, the MNIST idx
// reader on small files written here (well-formed and malformed), batches.
#include "train/data.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "graph/error.h"
#include "gtest/gtest.h"

namespace symx::train {
namespace {

std::string TempDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

std::string Be32(uint32_t v) {
  return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
}

std::string ImagesFile(uint32_t n, uint32_t rows, uint32_t cols, uint32_t magic = 0x803) {
  std::string s = Be32(magic) + Be32(n) + Be32(rows) + Be32(cols);
  for (uint32_t i = 0; i < n * rows * cols; ++i) s.push_back(static_cast<char>(i % 256));
  return s;
}

std::string LabelsFile(const std::vector<uint8_t>& labels, uint32_t magic = 0x801) {
  std::string s = Be32(magic) + Be32(static_cast<uint32_t>(labels.size()));
  for (uint8_t l : labels) s.push_back(static_cast<char>(l));
  return s;
}

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A directory with a tiny well-formed MNIST layout: 3 training and 2 test
// images of 2x2 pixels.
std::string MakeMnistDir(const std::string& name) {
  std::string dir = TempDir() + "/" + name;
  std::filesystem::create_directories(dir);
  Write(dir + "/train-images-idx3-ubyte", ImagesFile(3, 2, 2));
  Write(dir + "/train-labels-idx1-ubyte", LabelsFile({1, 2, 9}));
  Write(dir + "/t10k-images-idx3-ubyte", ImagesFile(2, 2, 2));
  Write(dir + "/t10k-labels-idx1-ubyte", LabelsFile({0, 5}));
  return dir;
}

std::string ErrorOf(const std::string& images, const std::string& labels) {
  absl::StatusOr<Dataset> d = LoadIdxPair(images, labels);
  EXPECT_FALSE(d.ok());
  return d.ok() ? "" : std::string(d.status().message());
}

TEST(Synthetic, DeterministicBySeedWithDistinctSplits) {
  DataSplits a = SyntheticDataset(50, 20, 7);
  DataSplits b = SyntheticDataset(50, 20, 7);
  DataSplits c = SyntheticDataset(50, 20, 8);
  EXPECT_EQ(a.train.images.shape(), (Shape{50, 1, 28, 28}));
  EXPECT_EQ(a.test.labels.shape(), (Shape{20}));
  EXPECT_EQ(a.train.images.ToDoubles(), b.train.images.ToDoubles());
  EXPECT_EQ(a.train.labels.ToDoubles(), b.train.labels.ToDoubles());
  EXPECT_EQ(a.test.images.ToDoubles(), b.test.images.ToDoubles());
  EXPECT_NE(a.train.images.ToDoubles(), c.train.images.ToDoubles());
  // Train and test come from different streams.
  std::vector<double> train = a.train.images.ToDoubles(), test = a.test.images.ToDoubles();
  EXPECT_FALSE(std::equal(test.begin(), test.end(), train.begin()));
}

TEST(Synthetic, ValuesInUnitRangeAndAllClassesPresent) {
  DataSplits s = SyntheticDataset(500, 0, 1);
  for (double v : s.train.images.ToDoubles()) {
    ASSERT_GE(v, 0.0);
    ASSERT_LE(v, 1.0);
  }
  std::set<double> classes;
  for (double l : s.train.labels.ToDoubles()) classes.insert(l);
  EXPECT_EQ(classes.size(), 10u);
  EXPECT_EQ(*classes.begin(), 0.0);
  EXPECT_EQ(*classes.rbegin(), 9.0);
}

// Nearest class mean on the raw pixels already separates the classes well:
// the task is learnable, not noise.
TEST(Synthetic, ClassesAreSeparable) {
  DataSplits s = SyntheticDataset(2000, 500, 3);
  const int64_t px = 784;
  std::vector<std::vector<double>> mean(10, std::vector<double>(px, 0.0));
  std::vector<int> count(10, 0);
  std::vector<double> img = s.train.images.ToDoubles(), lab = s.train.labels.ToDoubles();
  for (int64_t i = 0; i < 2000; ++i) {
    int c = static_cast<int>(lab[i]);
    ++count[c];
    for (int64_t p = 0; p < px; ++p) mean[c][p] += img[i * px + p];
  }
  for (int c = 0; c < 10; ++c) {
    for (double& v : mean[c]) v /= count[c];
  }
  std::vector<double> timg = s.test.images.ToDoubles(), tlab = s.test.labels.ToDoubles();
  int correct = 0;
  for (int64_t i = 0; i < 500; ++i) {
    int best = -1;
    double best_d = 1e300;
    for (int c = 0; c < 10; ++c) {
      double d = 0;
      for (int64_t p = 0; p < px; ++p) {
        double e = timg[i * px + p] - mean[c][p];
        d += e * e;
      }
      if (d < best_d) best_d = d, best = c;
    }
    correct += (best == static_cast<int>(tlab[i]));
  }
  EXPECT_GT(correct, 250) << "nearest-mean accuracy " << correct / 500.0;
}

TEST(Mnist, ReadsTheFourIdxFiles) {
  std::string dir = MakeMnistDir("mnist_ok");
  absl::StatusOr<DataSplits> d = LoadMnist(dir);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->train.images.shape(), (Shape{3, 1, 2, 2}));
  EXPECT_EQ(d->test.images.shape(), (Shape{2, 1, 2, 2}));
  EXPECT_EQ(d->train.labels.ToDoubles(), (std::vector<double>{1, 2, 9}));
  EXPECT_EQ(d->test.labels.ToDoubles(), (std::vector<double>{0, 5}));
  std::vector<double> px = d->train.images.ToDoubles();
  EXPECT_DOUBLE_EQ(px[0], 0.0);
  EXPECT_FLOAT_EQ(px[5], 5 / 255.0f);
}

TEST(Mnist, MissingFileNamesThePath) {
  std::string dir = MakeMnistDir("mnist_missing");
  std::remove((dir + "/t10k-labels-idx1-ubyte").c_str());
  absl::StatusOr<DataSplits> d = LoadMnist(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find(dir + "/t10k-labels-idx1-ubyte"), std::string::npos)
      << d.status();
  Write(dir + "/t10k-labels-idx1-ubyte.gz", "gz");
  d = LoadMnist(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("gunzip"), std::string::npos) << d.status();
}

TEST(Mnist, MalformedFiles) {
  std::string dir = TempDir();
  std::string img = dir + "/bad-images", lab = dir + "/bad-labels";
  Write(lab, LabelsFile({1, 2}));

  Write(img, ImagesFile(2, 2, 2, 0x801));
  EXPECT_NE(ErrorOf(img, lab).find("wrong magic number 0x00000801"), std::string::npos);

  std::string truncated = ImagesFile(2, 2, 2);
  truncated.pop_back();
  Write(img, truncated);
  EXPECT_NE(ErrorOf(img, lab).find("truncated"), std::string::npos);

  Write(img, Be32(0x803) + Be32(2));
  EXPECT_NE(ErrorOf(img, lab).find("truncated header"), std::string::npos);

  Write(img, ImagesFile(2, 2, 2) + "x");
  EXPECT_NE(ErrorOf(img, lab).find("trailing"), std::string::npos);

  Write(img, ImagesFile(3, 2, 2));
  std::string e = ErrorOf(img, lab);
  EXPECT_NE(e.find("3 images"), std::string::npos) << e;
  EXPECT_NE(e.find("2 labels"), std::string::npos) << e;

  Write(img, ImagesFile(2, 2, 2));
  Write(lab, LabelsFile({1, 12}));
  EXPECT_NE(ErrorOf(img, lab).find("label 12"), std::string::npos);

  // A header promising an absurd amount of data fails before allocating.
  Write(img, Be32(0x803) + Be32(0xFFFFFFFF) + Be32(0xFFFFFFFF) + Be32(0xFFFFFFFF));
  EXPECT_NE(ErrorOf(img, lab).find(img), std::string::npos);
}

TEST(BatchIterator, DiscardDropsThePartialBatchAndShufflesPerEpoch) {
  DataSplits s = SyntheticDataset(10, 0, 1);
  BatchIterator it(s.train, 4, /*shuffle=*/true, 9, BatchIterator::LastBatch::kDiscard);
  EXPECT_EQ(it.num_batches(), 2);
  auto epoch_labels = [&](int epoch) {
    it.Reset(epoch);
    std::vector<double> labels;
    int batches = 0;
    while (it.Next()) {
      ++batches;
      EXPECT_EQ(it.data().shape(), (Shape{4, 1, 28, 28}));
      EXPECT_EQ(it.pad(), 0);
      for (double l : it.label().ToDoubles()) labels.push_back(l);
    }
    EXPECT_EQ(batches, 2);
    return labels;
  };
  std::vector<double> e0 = epoch_labels(0), e0_again = epoch_labels(0);
  EXPECT_EQ(e0, e0_again);
  bool differs = false;
  for (int e = 1; e < 6; ++e) differs |= (epoch_labels(e) != e0);
  EXPECT_TRUE(differs);
}

TEST(BatchIterator, PadWrapsAroundAndReportsPadding) {
  DataSplits s = SyntheticDataset(5, 0, 2);
  BatchIterator it(s.train, 2, /*shuffle=*/false, 0, BatchIterator::LastBatch::kPad);
  EXPECT_EQ(it.num_batches(), 3);
  std::vector<double> all = s.train.labels.ToDoubles();
  std::vector<double> img = s.train.images.ToDoubles();
  int batches = 0;
  while (it.Next()) {
    std::vector<double> l = it.label().ToDoubles();
    std::vector<double> d = it.data().ToDoubles();
    if (batches < 2) {
      EXPECT_EQ(it.pad(), 0);
      EXPECT_EQ(l[0], all[2 * batches]);
      EXPECT_EQ(d[784], img[(2 * batches + 1) * 784]);
    } else {
      EXPECT_EQ(it.pad(), 1);
      EXPECT_EQ(l[0], all[4]);
      EXPECT_EQ(l[1], all[0]);  // the padding row is example 0
    }
    ++batches;
  }
  EXPECT_EQ(batches, 3);
}

TEST(BatchIterator, BadBatchSizes) {
  DataSplits s = SyntheticDataset(3, 0, 2);
  EXPECT_THROW(BatchIterator(s.train, 0, false, 0, BatchIterator::LastBatch::kPad), Error);
  EXPECT_THROW(BatchIterator(s.train, 4, false, 0, BatchIterator::LastBatch::kDiscard), Error);
  EXPECT_THROW(BatchIterator(s.test, 1, false, 0, BatchIterator::LastBatch::kPad), Error);
}

}  // namespace
}  // namespace symx::train
