#include "tools/symx/run.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "devices/npy.h"
#include "graph/error.h"
#include "tools/symx/command.h"
#include "tools/symx/flags.h"

namespace symx::cli {
namespace {

constexpr char kUsage[] =
    "usage: symx run MODEL-symbol.json [--params FILE.params] [--shape NAME=D0,D1,...]...\n"
    "                [--input NAME=FILE.npy]... [--ctx CTX] [--group2ctx GROUP=CTX]...\n"
    "                [--allow-missing] [--train] [--out-dir DIR] [--seed N]\n"
    "                [--comm-timeout SECONDS]\n";

// Output names become file names: anything but [A-Za-z0-9_.-] turns into '_'.
std::string FileStem(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) c = '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

void WriteNpy(const std::string& dir, const std::string& stem, const Tensor& t,
              const std::string& tag, std::ostream& out) {
  std::string path = dir + "/" + FileStem(stem) + ".npy";
  Tensor host = t;
  if (t.ctx().type == DeviceType::kGPU)
    host = ValueOrThrow(CopyToNew(t, Context::CPU(), t.dtype()));
  ThrowIfError(SaveNpy(path, host));
  out << tag << "wrote " << path << "  " << DTypeName(t.dtype()) << " " << t.shape().ToString()
      << "\n";
}

}  // namespace

void RunRun(const RunOptions& options, std::ostream& out) {
  BoundModel m = BindModel(options.model);
  // Under mpirun each rank writes what lives on it: together, what one
  // process writes.
  const std::string tag = Job{options.model.comm}.Tag();
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("cannot create output directory ", options.out_dir, ": ", ec.message())));
  }
  m.exe->Forward(options.model.train);
  if (options.model.train) m.exe->Backward(OnesHeadGrads(m));

  if (!m.filled.empty()) {
    out << tag << "filled from seed " << options.model.seed << ": " << absl::StrJoin(m.filled, ", ")
        << "\n";
  }
  if (!m.missing_params.empty()) {
    out << tag << "--allow-missing: " << options.model.params_path << " lacks "
        << absl::StrJoin(m.missing_params, ", ") << "; filled from the seed\n";
  }
  std::vector<std::string> outputs = m.symbol.ListOutputs();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = m.exe->outputs()[i];
    if (t.defined()) WriteNpy(options.out_dir, outputs[i], t, tag, out);
  }
  if (options.model.train) {
    std::vector<std::string> args = m.symbol.ListArguments();
    const std::vector<Tensor>& grads = m.exe->grad_arrays();
    for (size_t i = 0; i < args.size(); ++i) {
      if (grads[i].defined()) WriteNpy(options.out_dir, args[i] + "_grad", grads[i], tag, out);
    }
  }
}

int RunMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            const Job& job) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << kUsage;
      return 0;
    }
  }
  return RunCommand(
      "run", err,
      [&] {
        absl::StatusOr<ParsedArgs> parsed =
            ParseArgs(args,
                      {"--params", "--shape", "--input", "--ctx", "--group2ctx", "--out-dir",
                       "--seed", "--comm-timeout"},
                      {"--train", "--allow-missing"});
        if (!parsed.ok()) throw UsageError(std::string(parsed.status().message()));
        RunOptions options;
        options.model.comm = job.comm;
        options.model.engine = job.engine;
        ApplyModelFlags(*parsed, kUsage, &options.model);
        if (auto dir = SingleValue(*parsed, "--out-dir")) options.out_dir = *dir;
        RunRun(options, out);
      },
      job);
}

}  // namespace symx::cli
