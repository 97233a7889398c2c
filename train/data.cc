#include "train/data.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "graph/error.h"
#include "graph/file_io.h"

namespace symx::train {
namespace {

using Rng = std::mt19937_64;

constexpr int kSide = 28;
constexpr int kPixels = kSide * kSide;

Tensor NewHostFloat(const Shape& shape) {
  absl::StatusOr<Tensor> t = Tensor::Empty(shape, DType::kFloat32, Context::CPU());
  if (!t.ok()) throw Error(t.status());
  return *t;
}

// ------------------------------------------------------------------ synthetic

struct Segment {
  double x0, y0, x1, y1;
};

double DistanceToSegment(double px, double py, const Segment& s) {
  const double dx = s.x1 - s.x0, dy = s.y1 - s.y0;
  const double len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((px - s.x0) * dx + (py - s.y0) * dy) / len2 : 0.0;
  t = std::min(1.0, std::max(0.0, t));
  const double ex = s.x0 + t * dx - px, ey = s.y0 + t * dy - py;
  return std::sqrt(ex * ex + ey * ey);
}

// Draws an anti-aliased stroke about 2 pixels wide (max-blended).
void DrawSegment(const Segment& s, double intensity, std::vector<float>* canvas) {
  for (int y = 0; y < kSide; ++y) {
    for (int x = 0; x < kSide; ++x) {
      double v = intensity * std::min(1.0, std::max(0.0, 1.6 - DistanceToSegment(x, y, s)));
      float& p = (*canvas)[y * kSide + x];
      p = std::max(p, static_cast<float>(v));
    }
  }
}

Segment RandomSegment(Rng& rng, double lo, double hi) {
  std::uniform_real_distribution<double> coord(lo, hi);
  Segment s;
  do {
    s = {coord(rng), coord(rng), coord(rng), coord(rng)};
  } while (std::hypot(s.x1 - s.x0, s.y1 - s.y0) < 6.0);
  return s;
}

std::vector<std::vector<float>> MakePrototypes(uint64_t seed) {
  Rng rng(seed * 0x9E3779B97F4A7C15ULL + 0x5EED);
  std::vector<std::vector<float>> protos(kNumClasses, std::vector<float>(kPixels, 0.0f));
  for (auto& p : protos) {
    for (int k = 0; k < 3; ++k) DrawSegment(RandomSegment(rng, 6.0, 21.0), 1.0, &p);
  }
  return protos;
}

Dataset MakeSplit(const std::vector<std::vector<float>>& protos, int64_t n, Rng rng) {
  Dataset d;
  d.images = NewHostFloat(Shape{n, 1, kSide, kSide});
  d.labels = NewHostFloat(Shape{n});
  float* img = d.images.data<float>();
  float* lab = d.labels.data<float>();
  std::uniform_int_distribution<int> cls(0, kNumClasses - 1), shift(-2, 2);
  std::uniform_real_distribution<double> contrast(0.6, 1.0), clutter(0.2, 0.6);
  std::normal_distribution<double> noise(0.0, 0.15);
  std::vector<float> canvas(kPixels);
  for (int64_t i = 0; i < n; ++i) {
    const int c = cls(rng);
    const int dx = shift(rng), dy = shift(rng);
    const double gain = contrast(rng);
    std::fill(canvas.begin(), canvas.end(), 0.0f);
    for (int y = 0; y < kSide; ++y) {
      for (int x = 0; x < kSide; ++x) {
        const int sx = x - dx, sy = y - dy;
        if (sx < 0 || sy < 0 || sx >= kSide || sy >= kSide) continue;
        canvas[y * kSide + x] = static_cast<float>(gain * protos[c][sy * kSide + sx]);
      }
    }
    DrawSegment(RandomSegment(rng, 0.0, 27.0), clutter(rng), &canvas);
    float* out = img + i * kPixels;
    for (int p = 0; p < kPixels; ++p) {
      out[p] = static_cast<float>(std::min(1.0, std::max(0.0, canvas[p] + noise(rng))));
    }
    lab[i] = static_cast<float>(c);
  }
  return d;
}

// ------------------------------------------------------------------ idx files

bool FileExists(const std::string& path) { return std::ifstream(path).good(); }

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok() && bytes.status().code() == absl::StatusCode::kNotFound &&
      FileExists(path + ".gz")) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": only ", path,
                                            ".gz exists; gzipped files are not read, gunzip "
                                            "it first"));
  }
  return bytes;
}

uint32_t BigEndian32(const std::string& bytes, size_t offset) {
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data() + offset);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
}

// Checks the header (magic, dims) and the exact file size; returns the dims.
absl::StatusOr<std::vector<uint32_t>> ReadIdxHeader(const std::string& bytes,
                                                    const std::string& path, uint32_t magic,
                                                    int ndim) {
  const size_t header = 4 + 4 * static_cast<size_t>(ndim);
  if (bytes.size() < header) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": truncated header (", bytes.size(), " bytes, need ", header, ")"));
  }
  const uint32_t got = BigEndian32(bytes, 0);
  if (got != magic) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": wrong magic number 0x", absl::Hex(got, absl::kZeroPad8), ", expected 0x",
        absl::Hex(magic, absl::kZeroPad8), " (an idx", ndim, "-ubyte file)"));
  }
  std::vector<uint32_t> dims;
  uint64_t total = 1;
  for (int i = 0; i < ndim; ++i) {
    dims.push_back(BigEndian32(bytes, 4 + 4 * i));
    total *= dims.back();  // at most 2^96 in theory; compared below before any use
    if (total > (uint64_t{1} << 40)) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": dimensions too large"));
    }
  }
  const uint64_t want = header + total;
  if (bytes.size() < want) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": truncated: ", bytes.size(), " bytes, the header promises ", want));
  }
  if (bytes.size() > want) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": ", bytes.size() - want, " trailing bytes after the ", total, " data bytes"));
  }
  return dims;
}

// The first of `names` that exists in dir (or the first name, for the error).
std::string FindFile(const std::string& dir, const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    std::string p = dir + "/" + n;
    if (FileExists(p)) return p;
  }
  return dir + "/" + names[0];
}

}  // namespace

Shape Dataset::example_shape() const {
  const Shape& s = images.shape();
  return Shape(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end()));
}

DataSplits SyntheticDataset(int64_t num_train, int64_t num_test, uint64_t seed) {
  if (num_train < 0 || num_test < 0) {
    throw Error(absl::InvalidArgumentError("SyntheticDataset: negative size"));
  }
  std::vector<std::vector<float>> protos = MakePrototypes(seed);
  DataSplits out;
  out.train = MakeSplit(protos, num_train, Rng(seed ^ 0x7261696E00000001ULL));
  out.test = MakeSplit(protos, num_test, Rng(seed ^ 0x7465737400000002ULL));
  out.description = absl::StrCat("synthetic (seed ", seed, ")");
  return out;
}

absl::StatusOr<Dataset> LoadIdxPair(const std::string& images_path,
                                    const std::string& labels_path) {
  absl::StatusOr<std::string> img_bytes = ReadFile(images_path);
  if (!img_bytes.ok()) return img_bytes.status();
  absl::StatusOr<std::vector<uint32_t>> img_dims =
      ReadIdxHeader(*img_bytes, images_path, 0x00000803, 3);
  if (!img_dims.ok()) return img_dims.status();
  absl::StatusOr<std::string> lab_bytes = ReadFile(labels_path);
  if (!lab_bytes.ok()) return lab_bytes.status();
  absl::StatusOr<std::vector<uint32_t>> lab_dims =
      ReadIdxHeader(*lab_bytes, labels_path, 0x00000801, 1);
  if (!lab_dims.ok()) return lab_dims.status();
  const int64_t n = (*img_dims)[0], rows = (*img_dims)[1], cols = (*img_dims)[2];
  if ((*lab_dims)[0] != n) {
    return absl::InvalidArgumentError(absl::StrCat(images_path, " holds ", n, " images but ",
                                                   labels_path, " holds ", (*lab_dims)[0],
                                                   " labels"));
  }
  if (rows == 0 || cols == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(images_path, ": images of ", rows, "x", cols, " pixels"));
  }
  Dataset d;
  d.images = NewHostFloat(Shape{n, 1, rows, cols});
  d.labels = NewHostFloat(Shape{n});
  const auto* px = reinterpret_cast<const unsigned char*>(img_bytes->data() + 16);
  float* img = d.images.data<float>();
  for (int64_t i = 0; i < n * rows * cols; ++i) img[i] = px[i] / 255.0f;
  const auto* lb = reinterpret_cast<const unsigned char*>(lab_bytes->data() + 8);
  float* lab = d.labels.data<float>();
  for (int64_t i = 0; i < n; ++i) {
    if (lb[i] >= kNumClasses) {
      return absl::InvalidArgumentError(
          absl::StrCat(labels_path, ": label ", int{lb[i]}, " of example ", i, " is not in 0..9"));
    }
    lab[i] = lb[i];
  }
  return d;
}

absl::StatusOr<DataSplits> LoadMnist(const std::string& dir) {
  DataSplits out;
  for (const char* split : {"train", "t10k"}) {
    const std::string s(split);
    std::string images = FindFile(dir, {s + "-images-idx3-ubyte", s + "-images.idx3-ubyte"});
    std::string labels = FindFile(dir, {s + "-labels-idx1-ubyte", s + "-labels.idx1-ubyte"});
    absl::StatusOr<Dataset> d = LoadIdxPair(images, labels);
    if (!d.ok()) return d.status();
    (s == "train" ? out.train : out.test) = *std::move(d);
  }
  if (out.train.example_shape() != out.test.example_shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir, ": training images are ", out.train.example_shape().ToString(),
                     " but test images are ", out.test.example_shape().ToString()));
  }
  out.description = absl::StrCat("MNIST in ", dir);
  return out;
}

// ------------------------------------------------------------------ batches

BatchIterator::BatchIterator(const Dataset& data, int64_t batch_size, bool shuffle, uint64_t seed,
                             LastBatch last_batch)
    : dataset_(data),
      batch_size_(batch_size),
      shuffle_(shuffle),
      seed_(seed),
      last_batch_(last_batch) {
  if (batch_size <= 0) {
    throw Error(
        absl::InvalidArgumentError(absl::StrCat("batch size must be positive, got ", batch_size)));
  }
  if (data.size() == 0) throw Error(absl::InvalidArgumentError("the dataset is empty"));
  if (last_batch == LastBatch::kDiscard && data.size() < batch_size) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("batch size ", batch_size, " is larger than the ", data.size(), " examples")));
  }
  std::vector<int64_t> shape = {batch_size};
  const Shape example = data.example_shape();
  for (int64_t d : example.dims()) shape.push_back(d);
  data_ = NewHostFloat(Shape(shape));
  label_ = NewHostFloat(Shape{batch_size});
  Reset(0);
}

int64_t BatchIterator::num_batches() const {
  const int64_t n = dataset_.size();
  return last_batch_ == LastBatch::kDiscard ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

void BatchIterator::Reset(int epoch) {
  order_.resize(static_cast<size_t>(dataset_.size()));
  std::iota(order_.begin(), order_.end(), int64_t{0});
  if (shuffle_) {
    // Fisher-Yates with our own index draws, so the order is the same with any
    // standard library.
    Rng rng(seed_ * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(epoch) + 1);
    for (size_t i = order_.size(); i > 1; --i) {
      size_t j = static_cast<size_t>(rng() % i);
      std::swap(order_[i - 1], order_[j]);
    }
  }
  cursor_ = 0;
  pad_ = 0;
}

bool BatchIterator::Next() {
  const int64_t n = dataset_.size();
  if (cursor_ >= n) return false;
  const int64_t remaining = n - cursor_;
  if (remaining < batch_size_ && last_batch_ == LastBatch::kDiscard) {
    cursor_ = n;
    return false;
  }
  const int64_t row = dataset_.example_shape().fully_known() ? dataset_.images.size() / n : 0;
  const float* src = dataset_.images.data<float>();
  const float* labels = dataset_.labels.data<float>();
  float* dst = data_.data<float>();
  float* lab = label_.data<float>();
  pad_ = std::max<int64_t>(0, batch_size_ - remaining);
  for (int64_t b = 0; b < batch_size_; ++b) {
    // Padding rows wrap around to the start of this epoch's order.
    const int64_t k = order_[static_cast<size_t>((cursor_ + b) % n)];
    std::memcpy(dst + b * row, src + k * row, sizeof(float) * static_cast<size_t>(row));
    lab[b] = labels[k];
  }
  cursor_ += batch_size_;
  return true;
}

}  // namespace symx::train
