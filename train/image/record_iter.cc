#include "train/image/record_iter.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "devices/params_io.h"
#include "graph/error.h"
#include "train/image/codec.h"
#include "train/image/transform.h"
#include "train/recordio/image_record.h"
#include "train/recordio/record_file.h"
#include "train/recordio/record_index.h"
#include "train/recordio/record_set.h"

namespace symx::image {

// One worker's open file (each thread seeks on its own handle).
class WorkerState {
 public:
  std::unique_ptr<recordio::RecordSetReader> reader;
  std::string payload;
};

namespace {

// SplitMix64's finalizer: independent-looking seeds from small integers.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t Mix(uint64_t a, uint64_t b, uint64_t c) { return Mix(Mix(Mix(a) ^ b) ^ c); }

absl::Status Bad(const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat("ImageRecordIter: ", message));
}

// .lst lines: "id<TAB>label...<TAB>path"; the first label_width numbers after
// the id are the labels (MXNet reads them so; the rest of the line is ignored).
absl::StatusOr<std::unordered_map<uint64_t, std::vector<float>>> ReadImageList(
    const std::string& path, int label_width) {
  std::ifstream in(path);
  if (!in)
    return absl::NotFoundError(absl::StrCat("ImageRecordIter: cannot open path_imglist ", path));
  std::unordered_map<uint64_t, std::vector<float>> labels;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (fields.empty()) continue;
    uint64_t id;
    // label_width <= 0 (detection): every number between the id and the path.
    const int width = label_width > 0 ? label_width : static_cast<int>(fields.size()) - 2;
    std::vector<float> values(std::max(width, 0));
    bool ok = absl::SimpleAtoi(fields[0], &id) && width >= 0 && fields.size() >= size_t(width) + 1;
    for (int k = 0; ok && k < width; ++k) ok = absl::SimpleAtof(fields[k + 1], &values[k]);
    if (!ok) {
      return Bad(absl::StrCat(path, ": line ", number, ": expected an id and ", label_width,
                              " label(s), found \"", line, "\""));
    }
    labels[id] = std::move(values);
  }
  return labels;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ImageRecordIter>> ImageRecordIter::Create(
    ImageRecordIterConfig config) {
  std::unique_ptr<ImageRecordIter> iter(new ImageRecordIter(std::move(config)));
  SYMX_RETURN_IF_ERROR(iter->Open());
  {
    // The first epoch's order exists before any worker looks for work.
    std::lock_guard<std::mutex> lock(iter->mu_);
    iter->StartEpochLocked();
  }
  const int threads = std::max(1, iter->config_.preprocess_threads);
  for (int t = 0; t < threads; ++t) {
    iter->workers_.emplace_back([it = iter.get(), t] { it->WorkerLoop(t); });
  }
  return iter;
}

absl::Status ImageRecordIter::Open() {
  ImageRecordIterConfig& c = config_;
  if (c.path_imgrec.empty()) return Bad("path_imgrec is required");
  if (c.channels != 1 && c.channels != 3 && c.channels != 4) {
    return Bad(absl::StrCat("data_shape (", c.channels, ", ", c.height, ", ", c.width,
                            "): the channels must be 1, 3 or 4"));
  }
  if (c.height <= 0 || c.width <= 0) {
    return Bad(absl::StrCat("data_shape (", c.channels, ", ", c.height, ", ", c.width,
                            "): height and width must be positive"));
  }
  if (c.batch_size <= 0) return Bad(absl::StrCat("batch_size ", c.batch_size, " must be positive"));
  if (c.label_width <= 0 && !c.det)
    return Bad(absl::StrCat("label_width ", c.label_width, " must be positive"));
  if (c.num_parts <= 0 || c.part_index < 0 || c.part_index >= c.num_parts) {
    return Bad(
        absl::StrCat("part_index ", c.part_index, " must be in [0, num_parts ", c.num_parts, ")"));
  }
  if (c.preprocess_threads <= 0) {
    return Bad(absl::StrCat("preprocess_threads ", c.preprocess_threads, " must be positive"));
  }
  if (c.dtype != DType::kFloat32 && c.dtype != DType::kUint8 && c.dtype != DType::kInt8) {
    return Bad(absl::StrCat("dtype ", DTypeName(c.dtype), ": expected float32, uint8 or int8"));
  }
  for (int k = 0; k < 4 && !c.det; ++k) {
    if (c.std[k] == 0) return Bad("std_r, std_g, std_b and std_a must not be 0");
  }
  if (c.det) {
    c.det->out_h = c.height;
    c.det->out_w = c.width;
    if (absl::Status s = ValidateDetAugmentParams(&*c.det); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("ImageDetRecordIter: ", s.message()));
    }
  }
  c.aug.out_h = c.height;
  c.aug.out_w = c.width;
  if (absl::Status s = ValidateAugmentParams(c.aug); !s.ok()) return Bad(std::string(s.message()));

  SYMX_ASSIGN_OR_RETURN(records_, recordio::RecordSet::Open(c.path_imgrec));
  const uint64_t size = records_.size();
  if (!c.path_imgidx.empty()) {
    if (records_.files().size() != 1) {
      return Bad(absl::StrCat("path_imgidx indexes one .rec file, but path_imgrec '", c.path_imgrec,
                              "' names ", records_.files().size(),
                              " (as in MXNet, several files are read without an index)"));
    }
    SYMX_ASSIGN_OR_RETURN(auto index, recordio::ReadIndex(c.path_imgidx, size));
    std::vector<uint64_t> all;
    for (const auto& e : index) all.push_back(e.offset);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    // With an index MXNet splits by record count.
    const int64_t n = static_cast<int64_t>(all.size());
    const int64_t step = (n + c.num_parts - 1) / c.num_parts;
    const int64_t begin = std::min(n, step * c.part_index),
                  end = std::min(n, step * (c.part_index + 1));
    offsets_.assign(all.begin() + begin, all.begin() + end);
  } else {
    // Without one, by bytes of the files' concatenation: a record belongs to
    // the range its header starts in.
    uint64_t step = (size + c.num_parts - 1) / c.num_parts;
    step = (step + 3) / 4 * 4;
    const uint64_t begin = std::min(size, step * c.part_index);
    const uint64_t end = std::min(size, step * (c.part_index + 1));
    SYMX_ASSIGN_OR_RETURN(offsets_, records_.RecordsIn(begin, end));
  }
  if (offsets_.empty() && !c.allow_empty_shard) {
    return Bad(absl::StrCat(c.path_imgrec, " holds no records",
                            c.num_parts > 1
                                ? absl::StrCat(" in part ", c.part_index, " of ", c.num_parts)
                                : std::string()));
  }
  if (!c.path_imglist.empty()) {
    SYMX_ASSIGN_OR_RETURN(list_labels_, ReadImageList(c.path_imglist, c.label_width));
  }
  if (c.det) {
    SYMX_ASSIGN_OR_RETURN(int longest, LongestLabel());
    if (c.label_pad_width > 0 && c.label_pad_width < longest) {
      return Bad(absl::StrCat("label_pad_width ", c.label_pad_width,
                              " is smaller than the longest label of ", c.path_imgrec, " (",
                              longest, " values)"));
    }
    if (c.label_pad_width <= 0) c.label_pad_width = longest;
  }
  if (!c.mean_img.empty()) {
    std::error_code ec;
    if (!std::filesystem::exists(c.mean_img, ec)) SYMX_RETURN_IF_ERROR(CreateMeanImage());
    absl::StatusOr<NamedTensors> loaded = LoadParams(c.mean_img);
    if (!loaded.ok()) {
      return Bad(absl::StrCat("mean_img: ", loaded.status().message()));
    }
    const Shape want{c.channels, c.height, c.width};
    if (loaded->tensors.size() != 1 || !loaded->tensors[0].defined() ||
        loaded->tensors[0].shape() != want) {
      std::string held = absl::StrCat(loaded->tensors.size(), " arrays");
      if (loaded->tensors.size() == 1 && loaded->tensors[0].defined()) {
        held = "one of shape " + loaded->tensors[0].shape().ToString();
      }
      return Bad(absl::StrCat("mean_img ", c.mean_img, " must hold one array of shape ",
                              want.ToString(), " (data_shape); it holds ", held));
    }
    Tensor mean = ValueOrThrow(Tensor::Empty(want, DType::kFloat32));
    ConvertElements(loaded->tensors[0].read_raw_data(), loaded->tensors[0].dtype(), mean.raw_data(),
                    DType::kFloat32, mean.size());
    mean_image_ = mean;
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> ImageRecordIter::FreeBuffer(const Shape& shape, DType dtype) const {
  // A batch's data (19 MB for 32 ImageNet crops) taken fresh each time
  // costs more in page faults than its decoding; a buffer the consumer has
  // dropped (only the pool still refers to it) is reused instead.
  std::lock_guard<std::mutex> lock(pool_mu_);
  for (const Tensor& t : pool_) {
    if (t.storage().use_count() == 1) {
      // The last other holder dropped it on another thread: order its last
      // reads before our writes (use_count is a relaxed load).
      std::atomic_thread_fence(std::memory_order_acquire);
      return t;
    }
  }
  SYMX_ASSIGN_OR_RETURN(Tensor fresh, Tensor::Empty(shape, dtype));
  constexpr size_t kMaxPooled = 16;
  if (pool_.size() < kMaxPooled) pool_.push_back(fresh);
  return fresh;
}

ImageRecordIter::~ImageRecordIter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

int64_t ImageRecordIter::batches_per_epoch() const {
  return (num_records() + config_.batch_size - 1) / config_.batch_size;
}

Shape ImageRecordIter::data_shape() const {
  return Shape{config_.batch_size, config_.channels, config_.height, config_.width};
}

Shape ImageRecordIter::label_shape() const {
  if (config_.det) return Shape{config_.batch_size, config_.label_pad_width + 4};
  if (config_.label_width == 1) return Shape{config_.batch_size};
  return Shape{config_.batch_size, config_.label_width};
}

double ImageRecordIter::wait_seconds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return wait_seconds_;
}

void ImageRecordIter::StartEpochLocked() {
  ++epoch_;
  ++generation_;
  auto order = std::make_shared<std::vector<int64_t>>(offsets_.size());
  std::iota(order->begin(), order->end(), 0);
  if (config_.shuffle) {
    std::mt19937_64 rng(Mix(config_.seed, static_cast<uint64_t>(epoch_), 0x5eed));
    std::shuffle(order->begin(), order->end(), rng);
  }
  order_ = order;
  next_claim_ = next_deliver_ = 0;
  ready_.clear();
}

void ImageRecordIter::Reset() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    StartEpochLocked();
  }
  cv_.notify_all();
}

void ImageRecordIter::WorkerLoop(int worker) {
  WorkerState state;
  const int64_t ahead =
      std::max<int64_t>(config_.prefetch_buffer, std::max(1, config_.preprocess_threads));
  const int64_t batches = batches_per_epoch();
  while (true) {
    int64_t batch, gen, epoch;
    std::shared_ptr<const std::vector<int64_t>> order;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] {
        return stop_ || (next_claim_ < batches && next_claim_ < next_deliver_ + ahead);
      });
      if (stop_) return;
      batch = next_claim_++;
      gen = generation_;
      epoch = epoch_;
      order = order_;
    }
    absl::StatusOr<ImageBatch> built = absl::InternalError("not built");
    try {
      built = BuildBatch(batch, *order, epoch, state);
    } catch (const std::bad_alloc&) {
      built = absl::ResourceExhaustedError(absl::StrCat(
          "ImageRecordIter: out of memory building batch ", batch, " of ", config_.path_imgrec,
          " (fewer preprocess_threads or a smaller batch need less)"));
    } catch (const std::exception& e) {
      built = absl::InternalError(absl::StrCat("ImageRecordIter: batch ", batch, " of ",
                                               config_.path_imgrec, ": ", e.what()));
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (gen != generation_) continue;  // a Reset came in between: drop it
      ready_.emplace(batch, std::move(built));
    }
    cv_.notify_all();
  }
}

absl::StatusOr<bool> ImageRecordIter::Next(ImageBatch* batch) {
  std::unique_lock<std::mutex> lock(mu_);
  if (next_deliver_ >= batches_per_epoch()) return false;
  auto start = std::chrono::steady_clock::now();
  cv_.wait(lock, [&] { return ready_.count(next_deliver_) > 0; });
  wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto node = ready_.extract(next_deliver_);
  ++next_deliver_;
  lock.unlock();
  cv_.notify_all();
  if (!node.mapped().ok()) return node.mapped().status();
  *batch = *std::move(node.mapped());
  return true;
}

absl::StatusOr<ImageBatch> ImageRecordIter::BuildBatch(int64_t batch,
                                                       const std::vector<int64_t>& order,
                                                       int64_t epoch, WorkerState& state) const {
  const ImageRecordIterConfig& c = config_;
  if (state.reader == nullptr) {
    state.reader = std::make_unique<recordio::RecordSetReader>(&records_);
  }
  ImageBatch out;
  SYMX_ASSIGN_OR_RETURN(out.data, FreeBuffer(data_shape(), c.dtype));
  SYMX_ASSIGN_OR_RETURN(out.label, Tensor::Zeros(label_shape(), DType::kFloat32));
  const int64_t row_size = out.data.nbytes() / c.batch_size;
  out.index.assign(c.batch_size, 0);
  const int64_t n = static_cast<int64_t>(order.size());
  for (int row = 0; row < c.batch_size; ++row) {
    int64_t pos = batch * c.batch_size + row;
    if (pos >= n) {
      ++out.pad;
      if (!c.round_batch) {  // zeros
        std::memset(static_cast<char*>(out.data.raw_data()) + row * row_size, 0, row_size);
        continue;
      }
      pos %= n;
    }
    const int64_t record = order[pos];
    const uint64_t offset = offsets_[record];
    absl::StatusOr<bool> more = state.reader->ReadAt(offset, &state.payload);
    absl::Status status = more.ok()
                              ? (*more ? absl::OkStatus() : absl::DataLossError("no record there"))
                              : more.status();
    if (status.ok()) status = ProcessRecord(record, epoch, state.payload, &out, row);
    if (!status.ok()) {
      std::string where = records_.Where(offset);
      if (absl::StrContains(status.message(), where)) return status;
      return absl::Status(status.code(),
                          absl::StrCat("ImageRecordIter: ", where, ": ", status.message()));
    }
  }
  return out;
}

// MXNet computes a missing mean image from the iterator's own output (its
// augmentation and normalization, no mean image) and saves it as
// {"mean_img": (C, H, W) float32}. Here the pass covers every record of the
// file, whatever part_index/num_parts say, in file order with per-record
// seeds: every rank of a job computes the same bytes, and writing them
// (atomically, by rename) more than once is harmless. uint8/int8 output
// averages the raw pixels, which is what those dtypes subtract.
absl::Status ImageRecordIter::CreateMeanImage() const {
  ImageRecordIterConfig m = config_;
  m.mean_img.clear();
  m.part_index = 0;
  m.num_parts = 1;
  m.shuffle = false;
  m.round_batch = false;
  m.allow_empty_shard = false;
  if (m.dtype != DType::kFloat32) {
    m.dtype = DType::kFloat32;
    m.mean = {0, 0, 0, 0};
    m.std = {1, 1, 1, 1};
    m.scale = 1;
    m.max_random_contrast = m.max_random_illumination = 0;
  }
  SYMX_ASSIGN_OR_RETURN(std::unique_ptr<ImageRecordIter> pass, Create(std::move(m)));
  const int64_t image_size = int64_t{config_.channels} * config_.height * config_.width;
  std::vector<double> sum(image_size, 0.0);
  int64_t count = 0;
  ImageBatch batch;
  while (true) {
    absl::StatusOr<bool> more = pass->Next(&batch);
    if (!more.ok()) {
      return absl::Status(
          more.status().code(),
          absl::StrCat("computing mean_img ", config_.mean_img, ": ", more.status().message()));
    }
    if (!*more) break;
    const float* d = batch.data.read_data<float>();
    const int rows = config_.batch_size - batch.pad;
    for (int r = 0; r < rows; ++r) {
      const float* row = d + int64_t{r} * image_size;
      for (int64_t i = 0; i < image_size; ++i) sum[i] += row[i];
    }
    count += rows;
  }
  Tensor mean = ValueOrThrow(
      Tensor::Empty(Shape{config_.channels, config_.height, config_.width}, DType::kFloat32));
  float* out = mean.data<float>();
  for (int64_t i = 0; i < image_size; ++i) out[i] = static_cast<float>(sum[i] / count);
  NamedTensors saved;
  saved.names = {"mean_img"};
  saved.tensors = {mean};
  absl::Status s = SaveParams(config_.mean_img, saved);
  if (!s.ok()) {
    return Bad(absl::StrCat(
        "mean_img ", config_.mean_img,
        " does not exist and the computed mean image could not be saved: ", s.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> ImageRecordIter::LongestLabel() {
  const ImageRecordIterConfig& c = config_;
  int longest = 0;
  if (!list_labels_.empty()) {
    for (const auto& [id, labels] : list_labels_) {
      longest = std::max(longest, static_cast<int>(labels.size()));
    }
    return longest;
  }
  recordio::RecordSetReader reader(&records_);
  std::string payload;
  for (uint64_t offset : offsets_) {
    SYMX_ASSIGN_OR_RETURN(bool more, reader.ReadAt(offset, &payload));
    if (!more) break;
    const std::string where = records_.Where(offset);
    SYMX_ASSIGN_OR_RETURN(recordio::ImageRecord rec, recordio::UnpackImageRecord(payload, where));
    if (rec.flag == 0) {
      return Bad(absl::StrCat(where, " (id ", rec.id,
                              ") has a single label; detection records carry a label vector "
                              "[header width, object width, ..., objects] (im2rec --pack-label)"));
    }
    if (c.label_width > 0 && static_cast<int>(rec.flag) != c.label_width) {
      return Bad(absl::StrCat(where, " (id ", rec.id, ") has ", rec.flag,
                              " label values but label_width is ", c.label_width));
    }
    longest = std::max(longest, static_cast<int>(rec.flag));
  }
  return longest;
}

absl::StatusOr<const std::vector<float>*> ImageRecordIter::LabelsOf(
    const recordio::ImageRecord& rec) const {
  if (list_labels_.empty()) return &rec.labels;
  auto it = list_labels_.find(rec.id);
  if (it == list_labels_.end()) {
    return absl::NotFoundError(
        absl::StrCat("record id ", rec.id, " is not in path_imglist ", config_.path_imglist));
  }
  return &it->second;
}

absl::StatusOr<Image> ImageRecordIter::DecodeRecord(const recordio::ImageRecord& rec) const {
  const int channels = config_.channels;
  const int flag = channels == 1 ? 0 : (channels == 3 ? 1 : -1);
  absl::StatusOr<Image> decoded = Decode(rec.image, flag, /*to_rgb=*/true);
  if (!decoded.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("record id ", rec.id, ": ", decoded.status().message()));
  }
  if (decoded->channels != channels) {
    return absl::InvalidArgumentError(absl::StrCat("record id ", rec.id, ": the image has ",
                                                   decoded->channels,
                                                   " channels, data_shape asks for ", channels));
  }
  return decoded;
}

Rng ImageRecordIter::RngFor(int64_t record, int64_t epoch) const {
  const ImageRecordIterConfig& c = config_;
  return Rng(c.seed_aug
                 ? Mix(*c.seed_aug, 0, static_cast<uint64_t>(record))
                 : Mix(c.seed, static_cast<uint64_t>(epoch) + 1, static_cast<uint64_t>(record)));
}

absl::Status ImageRecordIter::ProcessDetRecord(int64_t record, int64_t epoch,
                                               const std::string& payload, ImageBatch* out,
                                               int row) const {
  const ImageRecordIterConfig& c = config_;
  SYMX_ASSIGN_OR_RETURN(recordio::ImageRecord rec, recordio::UnpackImageRecord(payload));
  out->index[row] = rec.id;
  SYMX_ASSIGN_OR_RETURN(const std::vector<float>* labels, LabelsOf(rec));
  std::vector<float> label = *labels;
  if (absl::Status s = CheckDetLabel(label); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("record id ", rec.id, ": ", s.message()));
  }
  SYMX_ASSIGN_OR_RETURN(Image decoded, DecodeRecord(rec));
  Rng rng = RngFor(record, epoch);
  absl::StatusOr<Image> img = DetAugment(std::move(decoded), &label, *c.det, rng);
  if (!img.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("record id ", rec.id, ": ", img.status().message()));
  }
  if (static_cast<int>(label.size()) > c.label_pad_width) {
    return absl::InvalidArgumentError(absl::StrCat("record id ", rec.id, ": its label has ",
                                                   label.size(), " values, label_pad_width is ",
                                                   c.label_pad_width));
  }
  float* lab = out->label.data<float>() + int64_t{row} * (c.label_pad_width + 4);
  lab[0] = static_cast<float>(img->channels);
  lab[1] = static_cast<float>(img->height);
  lab[2] = static_cast<float>(img->width);
  lab[3] = static_cast<float>(label.size());
  std::copy(label.begin(), label.end(), lab + 4);
  std::fill(lab + 4 + label.size(), lab + 4 + c.label_pad_width, c.label_pad_value);

  const int C = c.channels, H = c.height, W = c.width;
  const size_t plane = size_t(H) * W, base = size_t(row) * C * plane;
  const float* mean_img = mean_image_.defined() ? mean_image_.read_data<float>() : nullptr;
  // Shrink and fit leave the image smaller than (H, W): zeros around it.
  const int h = std::min(H, img->height), w = std::min(W, img->width);
  if (h < H || w < W) {
    const size_t bytes = C * plane * DTypeSize(c.dtype);
    std::memset(static_cast<char*>(out->data.raw_data()) + base * DTypeSize(c.dtype), 0, bytes);
  }
  float* out_f = c.dtype == DType::kFloat32 ? out->data.data<float>() + base : nullptr;
  uint8_t* out_u8 = c.dtype == DType::kUint8 ? out->data.data<uint8_t>() + base : nullptr;
  int8_t* out_i8 = c.dtype == DType::kInt8 ? out->data.data<int8_t>() + base : nullptr;
  for (int k = 0; k < C; ++k) {
    const float std_k = c.std[k] > 0 ? c.std[k] : 1.f;
    for (int y = 0; y < h; ++y) {
      const uint8_t* src = img->row(y) + k;
      const size_t line = k * plane + size_t(y) * W;
      for (int x = 0; x < w; ++x) {
        const float mean = mean_img ? mean_img[line + x] : c.mean[k];
        const uint8_t p = src[size_t(x) * C];
        if (out_f != nullptr) {
          out_f[line + x] = (static_cast<float>(p) - mean) / std_k * c.scale;
        } else if (out_u8 != nullptr) {
          out_u8[line + x] = p;
        } else {
          const long v =
              std::lrint(p - std::round(mean));  // MXNet rounds the mean half away from zero
          out_i8[line + x] = static_cast<int8_t>(std::clamp<long>(v, -128, 127));
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ImageRecordIter::ProcessRecord(int64_t record, int64_t epoch,
                                            const std::string& payload, ImageBatch* out,
                                            int row) const {
  const ImageRecordIterConfig& c = config_;
  if (c.det) return ProcessDetRecord(record, epoch, payload, out, row);
  SYMX_ASSIGN_OR_RETURN(recordio::ImageRecord rec, recordio::UnpackImageRecord(payload));
  out->index[row] = rec.id;
  // Labels: the image list's, else the record's, which must be label_width wide.
  if (list_labels_.empty() && static_cast<int>(rec.labels.size()) != c.label_width) {
    return absl::InvalidArgumentError(absl::StrCat(
        "record id ", rec.id, " has ", rec.labels.size(), " label(s) but label_width is ",
        c.label_width, rec.flag == 0 ? " (a single label is stored in the header)" : ""));
  }
  SYMX_ASSIGN_OR_RETURN(const std::vector<float>* labels, LabelsOf(rec));
  std::copy(labels->begin(), labels->end(),
            out->label.data<float>() + int64_t{row} * c.label_width);
  SYMX_ASSIGN_OR_RETURN(Image decoded, DecodeRecord(rec));
  Rng rng = RngFor(record, epoch);
  absl::StatusOr<Image> img = Augment(std::move(decoded), c.aug, rng);
  if (!img.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("record id ", rec.id, ": ", img.status().message()));
  }
  bool mirrored = c.mirror;
  if (c.rand_mirror) mirrored = std::bernoulli_distribution(0.5)(rng) || c.mirror;
  const float contrast = (1 + std::uniform_real_distribution<float>(-c.max_random_contrast,
                                                                    c.max_random_contrast)(rng)) *
                         c.scale;
  const float illumination = std::uniform_real_distribution<float>(-c.max_random_illumination,
                                                                   c.max_random_illumination)(rng) *
                             c.scale;

  const int C = c.channels, H = c.height, W = c.width;
  const size_t plane = size_t(H) * W;
  const float* mean_img = mean_image_.defined() ? mean_image_.read_data<float>() : nullptr;
  const size_t base = size_t(row) * C * plane;
  // Pointers taken once: each data() call counts a write to the storage.
  float* out_f = c.dtype == DType::kFloat32 ? out->data.data<float>() + base : nullptr;
  uint8_t* out_u8 = c.dtype == DType::kUint8 ? out->data.data<uint8_t>() + base : nullptr;
  int8_t* out_i8 = c.dtype == DType::kInt8 ? out->data.data<int8_t>() + base : nullptr;
  // Plane by plane, row by row: the inner loop has no branch and vectorizes.
  for (int k = 0; k < C; ++k) {
    const float std_k = c.std[k];
    for (int y = 0; y < H; ++y) {
      const uint8_t* src = img->row(y) + k;
      const size_t line = k * plane + size_t(y) * W;
      const float* mean_row = mean_img ? mean_img + line : nullptr;
      if (out_f != nullptr) {
        float* dst = out_f + line;
        for (int x = 0; x < W; ++x) {
          const float mean = mean_row ? mean_row[x] : c.mean[k];
          dst[mirrored ? W - 1 - x : x] =
              ((static_cast<float>(src[size_t(x) * C]) - mean) * contrast + illumination) / std_k;
        }
      } else if (out_u8 != nullptr) {
        uint8_t* dst = out_u8 + line;
        for (int x = 0; x < W; ++x) dst[mirrored ? W - 1 - x : x] = src[size_t(x) * C];
      } else {
        int8_t* dst = out_i8 + line;
        for (int x = 0; x < W; ++x) {
          const float mean = mean_row ? mean_row[x] : c.mean[k];
          const long v = std::lrint(src[size_t(x) * C] - std::round(mean));
          dst[mirrored ? W - 1 - x : x] = static_cast<int8_t>(std::clamp<long>(v, -128, 127));
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace symx::image
