#include "tools/symx/train.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "devices/cpu/cpu_device.h"
#include "graph/dtype.h"
#include "graph/error.h"
#include "tools/symx/command.h"
#include "tools/symx/flags.h"
#include "train/image/record_iter_params.h"
#include "train/record_feed.h"
#include "train/trainer.h"

namespace symx::cli {
namespace {

constexpr char kUsage[] =
    "usage: symx train [--model mlp|lenet] [--data-dir MNIST_DIR] [--epochs N] [--batch-size N]\n"
    "       symx train MODEL-symbol.json --train-rec FILE.rec --data-shape C,H,W [--val-rec FILE]\n"
    "                  [--params FILE.params] [--num-classes N] [--fixed-params REGEX]\n"
    "                  [--resize N] [--rand-crop] [--rand-mirror] [--mean-rgb R,G,B]\n"
    "                  [--std-rgb R,G,B] [--threads N] [--iter KEY=VALUE]... [and the flags "
    "below]\n"
    "                  [--lr X] [--ctx CTX[,CTX...]] [--group2ctx GROUP=CTX]... [--prefix PATH]\n"
    "                  [--optimizer NAME[:KEY=VALUE,...]] [--lr-schedule NAME:KEY=VALUE,...]\n"
    "                  [--momentum X] [--wd X] [--clip-gradient X] [--seed N]\n"
    "                  [--save-every-epoch] [--comm-timeout SECONDS] [--bucket-mb MB]\n"
    "                  [--dtype float32|float16|bfloat16]\n"
    "                  [--microbatches M] [--schedule gpipe|1f1b] [--replicas N] [--auto-stages "
    "N]\n"
    "  --optimizer: sgd (default), nag, signum, lars, dcasgd, adam, adamw, rmsprop, adagrad,\n"
    "          adadelta, adamax, nadam, ftrl, ftml, lamb, sgld, groupadagrad, with MXNet's\n"
    "          settings: 'adam:beta1=0.8,epsilon=1e-6', 'rmsprop:centered=true'\n"
    "  --lr: default 0.05 for sgd, MXNet's default for the others\n"
    "  --microbatches M (a divisor of --batch-size) pipelines a model split across ranks with\n"
    "          --group2ctx: each batch flows through the stages as M micro-batches, in GPipe's\n"
    "          order (all forwards, then all backwards; the default) or 1F1B's (--schedule 1f1b:\n"
    "          at most one micro-batch per stage in flight, less activation memory); gradients\n"
    "          are summed over the micro-batches; BatchNorm sees each micro-batch alone\n"
    "  --replicas N runs N copies of that split over the job's ranks (stages x replicas):\n"
    "          --group2ctx places one copy on ranks 0..S-1, copy j runs on ranks j*S..j*S+S-1\n"
    "          on its share of the batch, and each stage's copies sum their gradients\n"
    "  --auto-stages N cuts the model into N stages balanced by estimated cost (its own\n"
    "          ctx_groups replaced; the checkpoint's symbol keeps the new ones); without\n"
    "          --group2ctx, stage k runs on rank k-1\n"
    "  --momentum (default 0.9) applies to sgd, nag, signum, lars, dcasgd\n"
    "  --lr-schedule: factor:step=N[,factor=F], multifactor:step=[N1,N2,...][,factor=F],\n"
    "          poly:max_update=N[,pwr=P], cosine:max_update=N[,final_lr=X]; all take\n"
    "          warmup_steps, warmup_begin_lr, warmup_mode=linear|constant; steps count\n"
    "          updates (batches), the schedule starts from --lr\n"
    "  --dtype float16|bfloat16 trains in mixed precision: the model computes in that dtype,\n"
    "          the optimizer keeps float32 master weights, checkpoints are float32; float16\n"
    "          scales the loss dynamically (updates with a non-finite gradient are skipped)\n"
    "  MODEL: trains any symbol with inputs data and softmax_label on a RecordIO image set\n"
    "          (ImageRecordIter; FILE.idx beside FILE.rec is used when present); --params\n"
    "          starts from a checkpoint, --num-classes gives the output layer a new label set,\n"
    "          --fixed-params leaves matching parameters unchanged; --iter passes any of\n"
    "          ImageRecordIter's parameters (e.g. --iter max_random_scale=1.2); mpirun ranks\n"
    "          each read their shard; a checkpoint is saved every epoch (--prefix, default\n"
    "          MODEL's prefix + '-tuned')\n";

// The ImageRecordIter configurations of `symx train MODEL`.
struct RecordFlags {
  image::ImageRecordIterConfig train, val;
  bool has_val = false;
  Shape example_shape;
};

void SetIterParam(image::ImageRecordIterConfig* c, const std::string& name,
                  const std::string& value, const char* flag) {
  absl::Status s = image::SetImageRecordIterParam(c, name, value);
  if (!s.ok()) throw UsageError(absl::StrCat(flag, ": ", s.message()));
}

// ImageRecordIter parameters that make training's random augmentation or
// belong to the training file: --iter gives them to the training set only;
// every other --iter parameter (inter_method, mean_img, dtype, ...) sets
// both sets alike, so validation sees images prepared the same way.
bool TrainingOnly(const std::string& name) {
  static const auto* names = new std::set<std::string>{"path_imgrec",
                                                       "path_imgidx",
                                                       "path_imglist",
                                                       "shuffle",
                                                       "seed",
                                                       "seed_aug",
                                                       "rand_crop",
                                                       "rand_mirror",
                                                       "random_resized_crop",
                                                       "max_random_scale",
                                                       "min_random_scale",
                                                       "max_aspect_ratio",
                                                       "min_aspect_ratio",
                                                       "max_random_area",
                                                       "min_random_area",
                                                       "max_rotate_angle",
                                                       "rotate",
                                                       "rotate_list",
                                                       "max_shear_ratio",
                                                       "max_crop_size",
                                                       "min_crop_size",
                                                       "max_img_size",
                                                       "min_img_size",
                                                       "brightness",
                                                       "contrast",
                                                       "saturation",
                                                       "pca_noise",
                                                       "max_random_contrast",
                                                       "max_random_illumination",
                                                       "pad",
                                                       "fill_value",
                                                       "round_batch"};
  return names->count(name) > 0;
}

RecordFlags ParseRecordFlags(const ParsedArgs& parsed, uint64_t seed) {
  RecordFlags r;
  auto single = [&](const char* flag) { return SingleValue(parsed, flag); };
  auto train_rec = single("--train-rec");
  auto shape = single("--data-shape");
  if (!train_rec || !shape) throw UsageError("MODEL needs --train-rec and --data-shape", kUsage);
  // Settings both sets share, each with the flag that gave it (for errors).
  struct Setting {
    std::string name, value, flag;
  };
  std::vector<Setting> common = {{"data_shape", *shape, "--data-shape"}};
  for (const auto& [flag, name] : {std::pair{"--resize", "resize"},
                                   {"--scale", "scale"},
                                   {"--threads", "preprocess_threads"}}) {
    if (auto v = single(flag)) common.push_back({name, *v, flag});
  }
  for (const auto& [flag, prefix] : {std::pair{"--mean-rgb", "mean_"}, {"--std-rgb", "std_"}}) {
    if (auto v = single(flag)) {
      std::vector<std::string> rgb = absl::StrSplit(*v, ',');
      if (rgb.size() != 3) throw UsageError(absl::StrCat(flag, " takes R,G,B, got '", *v, "'"));
      const char* channels[] = {"r", "g", "b"};
      for (int k = 0; k < 3; ++k)
        common.push_back({absl::StrCat(prefix, channels[k]), rgb[k], flag});
    }
  }
  std::vector<Setting> train_only;
  for (auto [it, end] = parsed.values.equal_range("--iter"); it != end; ++it) {
    const size_t eq = it->second.find('=');
    if (eq == std::string::npos) {
      throw UsageError(absl::StrCat("--iter takes KEY=VALUE, got '", it->second, "'"));
    }
    Setting s{it->second.substr(0, eq), it->second.substr(eq + 1), "--iter"};
    (TrainingOnly(s.name) ? train_only : common).push_back(s);
  }
  auto configure = [&](image::ImageRecordIterConfig* c, const std::string& rec, const char* flag) {
    SetIterParam(c, "path_imgrec", rec, flag);
    std::string idx = rec.size() > 4 && absl::EndsWith(rec, ".rec")
                          ? rec.substr(0, rec.size() - 4) + ".idx"
                          : rec + ".idx";
    if (std::ifstream(idx).good()) SetIterParam(c, "path_imgidx", idx, flag);
    for (const Setting& s : common) SetIterParam(c, s.name, s.value, s.flag.c_str());
  };
  configure(&r.train, *train_rec, "--train-rec");
  SetIterParam(&r.train, "shuffle", "True", "--train-rec");
  SetIterParam(&r.train, "seed", std::to_string(seed), "--seed");
  if (HasSwitch(parsed, "--rand-crop")) SetIterParam(&r.train, "rand_crop", "True", "--rand-crop");
  if (HasSwitch(parsed, "--rand-mirror")) {
    SetIterParam(&r.train, "rand_mirror", "True", "--rand-mirror");
  }
  for (const Setting& s : train_only) SetIterParam(&r.train, s.name, s.value, s.flag.c_str());
  if (auto v = single("--val-rec")) {
    configure(&r.val, *v, "--val-rec");
    r.has_val = true;
  }
  r.example_shape = Shape{r.train.channels, r.train.height, r.train.width};
  return r;
}

train::TrainOptions ParseTrainFlags(const std::vector<std::string>& args, RecordFlags* records) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(
      args, {"--model",       "--data-dir",      "--epochs",       "--batch-size", "--lr",
             "--ctx",         "--group2ctx",     "--prefix",       "--optimizer",  "--momentum",
             "--wd",          "--seed",          "--comm-timeout", "--bucket-mb",  "--dtype",
             "--lr-schedule", "--clip-gradient", "--train-rec",    "--val-rec",    "--data-shape",
             "--params",      "--num-classes",   "--fixed-params", "--resize",     "--mean-rgb",
             "--std-rgb",     "--scale",         "--threads",      "--iter",       "--microbatches",
             "--schedule",    "--replicas",      "--auto-stages"},
      {"--save-every-epoch", "--rand-crop", "--rand-mirror"});
  if (!parsed.ok()) throw UsageError(std::string(parsed.status().message()));
  if (parsed->positional.size() > 1) {
    throw UsageError(absl::StrCat("unexpected argument '", parsed->positional[1], "'"), kUsage);
  }
  train::TrainOptions o;
  if (!parsed->positional.empty()) {
    o.symbol_file = parsed->positional[0];
    for (const char* flag : {"--model", "--data-dir"}) {
      if (SingleValue(*parsed, flag)) {
        throw UsageError(absl::StrCat(flag, " is for the built-in examples, not MODEL"), kUsage);
      }
    }
  } else {
    for (const char* flag : {"--train-rec", "--val-rec", "--data-shape", "--params",
                             "--num-classes", "--fixed-params", "--iter"}) {
      if (SingleValue(*parsed, flag) || parsed->values.count(flag)) {
        throw UsageError(absl::StrCat(flag, " needs a MODEL-symbol.json to train"), kUsage);
      }
    }
  }
  auto single = [&](const char* flag) { return SingleValue(*parsed, flag); };
  if (auto v = single("--model")) {
    if (*v != "mlp" && *v != "lenet") {
      throw UsageError(absl::StrCat("--model must be mlp or lenet, got '", *v, "'"));
    }
    o.model = *v;
  }
  if (auto v = single("--optimizer")) o.optimizer = *v;
  if (auto v = single("--lr-schedule")) {
    if (v->empty()) throw UsageError("--lr-schedule must not be empty");
    o.lr_schedule = *v;
  }
  if (auto v = single("--clip-gradient")) {
    o.clip_gradient = ParseDoubleFlag("--clip-gradient", *v);
    if (!(o.clip_gradient > 0)) throw UsageError("--clip-gradient must be positive");
  }
  if (auto v = single("--data-dir")) o.data_dir = *v;
  if (auto v = single("--epochs")) o.epochs = static_cast<int>(ParseIntFlag("--epochs", *v, 1));
  if (auto v = single("--batch-size")) o.batch_size = ParseIntFlag("--batch-size", *v, 1);
  if (auto v = single("--lr")) {
    o.lr = ParseDoubleFlag("--lr", *v);
    if (!(*o.lr > 0)) throw UsageError("--lr must be positive");
  }
  if (auto v = single("--momentum")) {
    o.momentum = ParseDoubleFlag("--momentum", *v);
    if (o.momentum < 0 || o.momentum >= 1) throw UsageError("--momentum must be in [0, 1)");
  }
  if (auto v = single("--wd")) {
    o.wd = ParseDoubleFlag("--wd", *v);
    if (o.wd < 0) throw UsageError("--wd must not be negative");
  }
  if (auto v = single("--seed")) o.seed = static_cast<uint64_t>(ParseIntFlag("--seed", *v, 0));
  if (auto v = single("--ctx")) {
    // One device, or several for data parallelism: "cpu(0),cpu(1)".
    for (absl::string_view text : absl::StrSplit(*v, ',')) {
      absl::StatusOr<Context> ctx = ParseContext(text);
      if (!ctx.ok()) throw UsageError(std::string(ctx.status().message()));
      if (std::find(o.contexts.begin(), o.contexts.end(), *ctx) != o.contexts.end()) {
        throw UsageError(absl::StrCat("--ctx lists ", ctx->ToString(), " twice"));
      }
      o.contexts.push_back(*ctx);
    }
    o.ctx = o.contexts[0];
    if (o.contexts.size() == 1) o.contexts.clear();
  }
  if (auto v = single("--comm-timeout")) o.comm_timeout = ParseSecondsFlag("--comm-timeout", *v);
  if (auto v = single("--bucket-mb")) {
    const double mb = ParseDoubleFlag("--bucket-mb", *v);
    if (!(mb > 0)) throw UsageError("--bucket-mb must be positive");
    o.bucket_bytes = static_cast<size_t>(mb * (1 << 20));
  }
  if (auto v = single("--microbatches")) {
    o.microbatches = static_cast<int>(ParseIntFlag("--microbatches", *v, 1));
  }
  if (auto v = single("--auto-stages")) {
    o.auto_stages = static_cast<int>(ParseIntFlag("--auto-stages", *v, 1));
  }
  if (auto v = single("--replicas")) {
    o.replicas = static_cast<int>(ParseIntFlag("--replicas", *v, 1));
  }
  if (auto v = single("--schedule")) {
    auto schedule = train::ParsePipelineSchedule(*v);
    if (!schedule.ok()) throw UsageError(absl::StrCat("--schedule: ", schedule.status().message()));
    o.schedule = *schedule;
  }
  for (auto [it, end] = parsed->values.equal_range("--group2ctx"); it != end; ++it) {
    auto kv = ParseGroup2CtxFlag(it->second);
    if (!kv.ok()) throw UsageError(std::string(kv.status().message()));
    if (!o.group2ctx.emplace(kv->first, kv->second).second) {
      throw UsageError(absl::StrCat("--group2ctx given twice for group '", kv->first, "'"));
    }
  }
  o.prefix = o.model;
  if (!o.symbol_file.empty()) {
    std::string base = o.symbol_file;
    if (absl::EndsWith(base, "-symbol.json")) base.resize(base.size() - 12);
    if (absl::EndsWith(base, ".json")) base.resize(base.size() - 5);
    o.prefix = base + "-tuned";
    o.save_every_epoch = true;
    if (auto v = single("--params")) o.params_file = *v;
    if (auto v = single("--fixed-params")) o.fixed_params = *v;
    if (auto v = single("--num-classes")) {
      o.num_classes = static_cast<int>(ParseIntFlag("--num-classes", *v, 1));
    }
  }
  if (auto v = single("--prefix")) {
    if (v->empty()) throw UsageError("--prefix must not be empty");
    o.prefix = *v;
  }
  o.save_every_epoch = o.save_every_epoch || HasSwitch(*parsed, "--save-every-epoch");
  if (auto v = single("--dtype")) {
    o.dtype =
        ParseDTypeChoiceFlag("--dtype", *v, {DType::kFloat32, DType::kFloat16, DType::kBFloat16});
  }
  // MXNet's variable, as its Updater reads it (how many weights one
  // aggregated update takes).
  if (const char* env = std::getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE")) {
    int64_t n;
    if (!absl::SimpleAtoi(env, &n) || n < 0) {
      throw UsageError(
          absl::StrCat("MXNET_OPTIMIZER_AGGREGATION_SIZE must be a count, got '", env, "'"));
    }
    o.aggregate_num = n;
  }
  if (!o.symbol_file.empty()) *records = ParseRecordFlags(*parsed, o.seed);
  // The optimizer and schedule spellings are checked now, before any data
  // is read (an unknown name or setting is a usage error naming it).
  try {
    train::MakeOptimizer(o, o.batch_size);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  return o;
}

std::string Fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

// "\r[=========>          ] epoch 2/5  45/100  loss 0.1234  acc 0.9650"
std::string ProgressLine(const train::BatchProgress& p, int epochs) {
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * p.batch / std::max<int64_t>(1, p.num_batches));
  std::string bar(kWidth, ' ');
  for (int i = 0; i < filled; ++i) bar[i] = '=';
  if (filled < kWidth) bar[filled] = '>';
  return absl::StrCat("\r[", bar, "] epoch ", p.epoch, "/", epochs, "  ", p.batch, "/",
                      p.num_batches, "  loss ", Fixed(p.loss, 4), "  acc ", Fixed(p.accuracy, 4));
}

std::string Duration(double seconds) {
  const int64_t s = static_cast<int64_t>(seconds + 0.5);
  if (s >= 3600) return absl::StrFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  return absl::StrFormat("%d:%02d", s / 60, s % 60);
}

// `symx train MODEL-symbol.json --train-rec ...`: any model on a RecordIO set.
void TrainModelFile(const train::TrainOptions& o, const RecordFlags& records, std::ostream& report,
                    std::ostream& err, bool progress_tty) {
  train::FeedFactory make_train = [&](const train::FeedShare& share) {
    return std::make_unique<train::RecordFeed>(records.train, share, /*training=*/true);
  };
  train::FeedFactory make_val;
  if (records.has_val) {
    make_val = [&](const train::FeedShare& share) {
      return std::make_unique<train::RecordFeed>(records.val, share, /*training=*/false);
    };
  }
  report << "model " << o.symbol_file;
  if (o.num_classes > 0) report << " (output layer: " << o.num_classes << " classes)";
  report << ", data " << records.train.path_imgrec;
  if (records.has_val) report << " (validation " << records.val.path_imgrec << ")";
  report << ", images " << records.example_shape.ToString() << "; batch " << o.batch_size << ", "
         << train::MakeOptimizer(o, o.batch_size)->Describe() << "\n"
         << std::flush;
  train::TrainCallbacks cb;
  auto last_draw = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  if (progress_tty) {
    cb.on_batch = [&](const train::BatchProgress& p) {
      auto now = std::chrono::steady_clock::now();
      if (p.batch != p.num_batches && now - last_draw < std::chrono::milliseconds(200)) return;
      last_draw = now;
      const double rate = p.seconds > 0 ? p.batch * o.batch_size / p.seconds : 0;
      const double eta = p.batch > 0 ? p.seconds * (p.num_batches - p.batch) / p.batch : 0;
      err << ProgressLine(p, o.epochs) << "  " << Fixed(rate, 1) << " img/s  ETA " << Duration(eta)
          << "   " << std::flush;
    };
  }
  cb.on_epoch = [&](const train::EpochResult& e) {
    if (progress_tty) err << "\r\033[K" << std::flush;
    report << "epoch " << e.epoch << "/" << o.epochs << ": loss " << Fixed(e.train_loss, 4)
           << "  train top-1 " << Fixed(e.train_accuracy, 4) << " top-5 " << Fixed(e.train_top5, 4);
    if (e.has_test) {
      report << "  val top-1 " << Fixed(e.test_accuracy, 4) << " top-5 " << Fixed(e.test_top5, 4);
    }
    const double rate = e.train_seconds > 0 ? e.train_examples / e.train_seconds : 0;
    report << "  " << Fixed(rate, 1) << " img/s  time " << Fixed(e.train_seconds, 2)
           << "s, waiting for data " << Fixed(e.data_wait_seconds, 2) << "s ("
           << Fixed(e.train_seconds > 0 ? 100 * e.data_wait_seconds / e.train_seconds : 0, 1)
           << "%)\n"
           << std::flush;
  };
  train::TrainResult r = train::Train(o, records.example_shape, make_train, make_val, cb);
  if (!o.params_file.empty()) {
    report << o.params_file << ": " << r.loaded_params << " arrays loaded, "
           << r.initialized_params.size() << " initialized";
    if (!r.initialized_params.empty()) {
      report << " (" << absl::StrJoin(r.initialized_params, ", ") << ")";
    }
    report << "\n";
  }
  if (!o.fixed_params.empty()) report << r.fixed_params << " parameters kept fixed\n";
  if (!r.stages.empty()) report << "auto stages: " << r.stages << "\n";
  report << "trained on " << r.layout << "\n";
  report << "checkpoint:";
  for (const std::string& f : r.saved_files) report << " " << f;
  report << "\n";
}

}  // namespace

int TrainMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
              bool progress_tty, const Job& job) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << kUsage;
      return 0;
    }
  }
  // Under mpirun rank 0 alone reports; the others speak only of errors.
  std::ostringstream discard;
  std::ostream& report = job.root() ? out : discard;
  progress_tty = progress_tty && job.root();
  return RunCommand(
      "train", err,
      [&] {
        RecordFlags records;
        train::TrainOptions o = ParseTrainFlags(args, &records);
        o.comm = job.comm;
        o.engine = job.engine;
        // Devices share this process's cores instead of each taking them all.
        if (o.contexts.size() > 1 && job.cpu_threads > 0) {
          SetCpuThreadsForNewDevices(
              std::max(1, job.cpu_threads / static_cast<int>(o.contexts.size())));
        }
        if (!o.symbol_file.empty()) {
          TrainModelFile(o, records, report, err, progress_tty);
          return;
        }
        train::DataSplits data = train::LoadData(o);
        if (data.train.size() < o.batch_size) {
          throw Error(absl::InvalidArgumentError(absl::StrCat("--batch-size ", o.batch_size,
                                                              " is larger than the training set (",
                                                              data.train.size(), " examples)")));
        }
        report << "model " << o.model << ", data " << data.description << ": " << data.train.size()
               << " training / " << data.test.size() << " test examples; batch " << o.batch_size
               << ", " << train::MakeOptimizer(o, o.batch_size)->Describe() << ", ";
        if (o.dtype != DType::kFloat32) {
          report << DTypeName(o.dtype) << " mixed precision (float32 master weights";
          if (o.dtype == DType::kFloat16)
            report << ", loss scale from " << o.loss_scaler.initial_scale;
          report << "), ";
        }
        if (o.contexts.empty()) {
          report << o.ctx.ToString();
        } else {
          std::vector<std::string> devices;
          for (const Context& c : o.contexts) devices.push_back(c.ToString());
          report << absl::StrJoin(devices, ",");
        }
        if (job.size() > 1) report << " x " << job.size() << " ranks";
        if (!o.group2ctx.empty()) {
          std::vector<std::string> groups;
          for (const auto& [group, ctx] : o.group2ctx)
            groups.push_back(group + "=" + ctx.ToString());
          report << " (group2ctx " << absl::StrJoin(groups, " ") << ")";
        }
        report << "\n" << std::flush;

        train::TrainCallbacks cb;
        auto last_draw = std::chrono::steady_clock::now() - std::chrono::seconds(1);
        if (progress_tty) {
          cb.on_batch = [&](const train::BatchProgress& p) {
            auto now = std::chrono::steady_clock::now();
            if (p.batch != p.num_batches && now - last_draw < std::chrono::milliseconds(100))
              return;
            last_draw = now;
            err << ProgressLine(p, o.epochs) << std::flush;
          };
        }
        cb.on_epoch = [&](const train::EpochResult& e) {
          if (progress_tty) err << "\r\033[K" << std::flush;
          report << "epoch " << e.epoch << "/" << o.epochs << ": loss " << Fixed(e.train_loss, 4)
                 << "  train accuracy " << Fixed(e.train_accuracy, 4) << "  test accuracy "
                 << Fixed(e.test_accuracy, 4) << "  time " << Fixed(e.train_seconds, 2)
                 << "s (eval " << Fixed(e.eval_seconds, 2) << "s)";
          if (e.loss_scale > 0) {
            report << "  loss scale " << e.loss_scale << " (" << e.skipped_steps
                   << " steps skipped)";
          }
          report << "\n" << std::flush;
        };
        train::TrainResult r = train::Train(o, data, cb);
        if (!r.stages.empty()) report << "auto stages: " << r.stages << "\n";
        report << "trained on " << r.layout << "\n";
        report << "checkpoint:";
        for (const std::string& f : r.saved_files) report << " " << f;
        report << "\n";
      },
      job);
}

}  // namespace symx::cli
