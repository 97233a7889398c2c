#include "tools/symx/bench.h"

#include <algorithm>
#include <chrono>
#include <iomanip>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "devices/cpu/cpu_device.h"
#include "devices/device.h"
#include "distributed/agreement.h"
#include "graph/dtype.h"
#include "graph/error.h"
#include "nlohmann/json.hpp"
#include "tools/symx/command.h"
#include "tools/symx/flags.h"

namespace symx::cli {
namespace {

constexpr char kUsage[] =
    "usage: symx bench MODEL-symbol.json --shape NAME=D0,D1,... [--shape ...]... [--ctx CTX]\n"
    "                  [--group2ctx GROUP=CTX]... [--train] [--iters N] [--json]\n"
    "                  [--comm-timeout SECONDS] [--threads N] [--warmup N] [--dtype DTYPE]\n"
    "                  [--mixed-precision float16|bfloat16]\n"
    "  --train       time Forward(is_train) + Backward, with the gradients of\n"
    "                every parameter (none of the inputs and labels, as in training)\n"
    "  --threads N   threads of each CPU device (the OpenMP team with oneDNN, else Eigen's pool;\n"
    "                default SYMX_CPU_THREADS, else every core)\n"
    "  --warmup N    untimed iterations first (default min(5, max(1, iters/5)))\n"
    "  --dtype DTYPE dtype of the --shape inputs (float32, float16, bfloat16, ...); the\n"
    "                network's parameters follow by type inference\n"
    "  --mixed-precision float16|bfloat16  time the model as `train --dtype` runs it:\n"
    "                computing in that dtype, float32 parameters and BatchNorm/softmax\n";

// Every rank's memory statistics, contexts with their rank, in rank order.
std::vector<MemoryStats> GatherMemory(Communicator& comm, const std::vector<MemoryStats>& mine,
                                      absl::Duration timeout) {
  std::vector<std::string> lines;
  for (const MemoryStats& m : mine) {
    Context c = m.ctx;
    c.rank = comm.rank();
    lines.push_back(absl::StrCat(c.ToString(), " ", m.planned_bytes, " ", m.no_reuse_bytes, " ",
                                 m.allocated_bytes, " ", m.array_bytes));
  }
  std::vector<std::string> all = ValueOrThrow(AllGather(comm, absl::StrJoin(lines, "\n"), timeout));
  std::vector<MemoryStats> out;
  for (const std::string& text : all) {
    for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
      std::vector<std::string> f = absl::StrSplit(line, ' ');
      MemoryStats m;
      absl::StatusOr<Context> c =
          f.size() == 5 ? ParseContext(f[0]) : absl::InternalError("bad memory record");
      if (!c.ok() || !absl::SimpleAtoi(f[1], &m.planned_bytes) ||
          !absl::SimpleAtoi(f[2], &m.no_reuse_bytes) ||
          !absl::SimpleAtoi(f[3], &m.allocated_bytes) || !absl::SimpleAtoi(f[4], &m.array_bytes)) {
        throw Error(absl::InternalError(absl::StrCat("bench: bad memory record '", line, "'")));
      }
      m.ctx = *c;
      out.push_back(m);
    }
  }
  return out;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

}  // namespace

BenchResult RunBench(const BenchOptions& options) {
  BoundModel m = BindModel(options.model);
  const bool train = options.model.train;
  std::vector<Tensor> heads;
  if (train) heads = OnesHeadGrads(m);
  // A GPU only queues a step's work: the step is over when every device the
  // plan uses has run it.
  std::vector<Device*> devices;
  for (const MemoryStats& s : m.exe->memory_stats()) {
    absl::StatusOr<Device*> d = GetDevice(s.ctx);
    if (d.ok() && !(*d)->host_memory()) devices.push_back(*d);
  }
  auto step = [&] {
    m.exe->Forward(train);
    if (train) m.exe->Backward(heads);
    for (Device* d : devices) ThrowIfError(d->Synchronize());
  };
  const int64_t warmup = options.warmup >= 0
                             ? options.warmup
                             : std::min<int64_t>(5, std::max<int64_t>(1, options.iters / 5));
  for (int64_t i = 0; i < warmup; ++i) step();
  BenchResult r;
  for (int64_t i = 0; i < options.iters; ++i) {
    auto start = std::chrono::steady_clock::now();
    step();
    r.ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  r.median = Median(r.ms);
  r.min = *std::min_element(r.ms.begin(), r.ms.end());
  r.max = *std::max_element(r.ms.begin(), r.ms.end());
  r.memory = m.exe->memory_stats();
  for (const MemoryStats& s : r.memory) {
    if (s.ctx.rank >= 0) continue;  // another rank's (never here before gathering)
    r.peak_bytes.emplace_back(s.ctx, ValueOrThrow(GetDevice(s.ctx))->allocator().peak_bytes());
  }
  const std::shared_ptr<Communicator>& comm = options.model.comm;
  if (comm != nullptr && comm->size() > 1) {
    r.memory = GatherMemory(*comm, r.memory, options.model.comm_timeout);
  }
  return r;
}

void PrintBench(const BenchOptions& options, const BenchResult& r, std::ostream& out) {
  size_t planned = 0, allocated = 0;
  for (const MemoryStats& s : r.memory) {
    planned += s.planned_bytes;
    allocated += s.allocated_bytes;
  }
  if (options.json) {
    nlohmann::ordered_json doc;
    doc["ms_per_iter"] = {{"median", r.median}, {"min", r.min}, {"max", r.max}};
    doc["iters"] = options.iters;
    doc["bytes_planned"] = planned;
    doc["bytes_allocated"] = allocated;
    if (r.memory.size() > 1) {
      nlohmann::ordered_json devices = nlohmann::ordered_json::array();
      for (const MemoryStats& s : r.memory) {
        devices.push_back({{"ctx", s.ctx.ToString()},
                           {"bytes_planned", s.planned_bytes},
                           {"bytes_allocated", s.allocated_bytes}});
      }
      doc["devices"] = devices;
    }
    nlohmann::ordered_json peaks = nlohmann::ordered_json::object();
    for (const auto& [ctx, bytes] : r.peak_bytes) peaks[ctx.ToString()] = bytes;
    doc["peak_bytes"] = peaks;
    out << doc.dump() << "\n";
    return;
  }
  out << options.model.symbol_path << ": " << (options.model.train ? "forward+backward" : "forward")
      << ", " << options.iters << " iterations\n";
  out << std::fixed << std::setprecision(3) << "ms per iter: median " << r.median << "  min "
      << r.min << "  max " << r.max << "\n";
  for (const MemoryStats& s : r.memory) {
    out << "memory on " << s.ctx.ToString() << ": " << s.planned_bytes << " bytes planned ("
        << s.no_reuse_bytes << " without reuse), " << s.allocated_bytes << " bytes allocated, "
        << s.array_bytes << " bytes of bound arrays\n";
  }
  if (r.memory.size() > 1) {
    out << "memory on " << r.memory.size() << " devices: " << planned << " bytes planned, "
        << allocated << " bytes allocated\n";
  }
}

int BenchMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
              const Job& job) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << kUsage;
      return 0;
    }
  }
  return RunCommand(
      "bench", err,
      [&] {
        absl::StatusOr<ParsedArgs> parsed =
            ParseArgs(args,
                      {"--shape", "--ctx", "--group2ctx", "--iters", "--seed", "--comm-timeout",
                       "--threads", "--warmup", "--dtype", "--mixed-precision"},
                      {"--train", "--json"});
        if (!parsed.ok()) throw UsageError(std::string(parsed.status().message()));
        BenchOptions options;
        options.model.comm = job.comm;
        options.model.engine = job.engine;
        ApplyModelFlags(*parsed, kUsage, &options.model);
        options.model.input_grads = false;
        if (auto mp = SingleValue(*parsed, "--mixed-precision")) {
          const DType dtype =
              ParseDTypeChoiceFlag("--mixed-precision", *mp, {DType::kFloat16, DType::kBFloat16});
          if (options.model.dtype) {
            throw UsageError(
                "--mixed-precision and --dtype exclude each other (mixed precision keeps the "
                "inputs and parameters float32)");
          }
          options.model.mixed_precision = dtype;
        }
        if (auto iters = SingleValue(*parsed, "--iters")) {
          options.iters = ParseIntFlag("--iters", *iters, 1);
        }
        if (auto warmup = SingleValue(*parsed, "--warmup")) {
          options.warmup = ParseIntFlag("--warmup", *warmup, 0);
        }
        if (auto threads = SingleValue(*parsed, "--threads")) {
          // Devices are made on first use, which is the bind below.
          SetCpuThreadsForNewDevices(static_cast<int>(ParseIntFlag("--threads", *threads, 1)));
        }
        options.json = HasSwitch(*parsed, "--json");
        BenchResult r = RunBench(options);
        // Every rank times its own part; rank 0's timings and every rank's
        // memory are reported.
        if (job.root()) PrintBench(options, r, out);
      },
      job);
}

}  // namespace symx::cli
