#include "tools/symx/viz.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"
#include "graph/file_io.h"
#include "graph/symbol.h"
#include "tools/symx/bound_model.h"
#include "tools/symx/command.h"
#include "tools/symx/flags.h"
#include "tools/symx/report.h"

namespace symx::cli {
namespace {

constexpr char kUsage[] =
    "usage: symx viz MODEL-symbol.json [--shape NAME=D0,D1,...]... [--ctx CTX]\n"
    "                [--group2ctx GROUP=CTX]... -o FILE.(dot|svg|png)\n";

// Pastel fills that keep black labels readable; device i (in sorted order)
// takes kPalette[i % size].
constexpr const char* kPalette[] = {"#a6cee3", "#fdbf6f", "#b2df8a", "#fb9a99",
                                    "#cab2d6", "#ffff99", "#8dd3c7", "#d9d9d9"};
constexpr size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

// A DOT double-quoted string; "\n" in `text` stays a line break.
std::string Quoted(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// "4x5", "?x5" with an unknown dim, "?" with unknown rank, "scalar" for ().
std::string EdgeLabel(const Shape& shape) {
  if (!shape.ndim_known()) return "?";
  if (shape.ndim() == 0) return "scalar";
  std::vector<std::string> dims;
  for (int i = 0; i < shape.ndim(); ++i) {
    dims.push_back(shape.dim_known(i) ? absl::StrCat(shape[i]) : "?");
  }
  return absl::StrJoin(dims, "x");
}

// Removes a file when it goes out of scope (temporary files on every path).
class FileRemover {
 public:
  explicit FileRemover(std::string path) : path_(std::move(path)) {}
  ~FileRemover() {
    if (!path_.empty()) unlink(path_.c_str());
  }
  FileRemover(const FileRemover&) = delete;
  FileRemover& operator=(const FileRemover&) = delete;
  void Release() { path_.clear(); }

 private:
  std::string path_;
};

// Creates an empty file from a mkstemps template ending in `suffix_len`
// fixed characters; returns its path.
absl::StatusOr<std::string> MakeTempFile(std::string pattern, int suffix_len,
                                         absl::string_view what) {
  int fd = mkstemps(pattern.data(), suffix_len);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open ", what, " for writing: ", std::strerror(errno)));
  }
  // mkstemps makes the file private; give it the permissions a new file gets.
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  close(fd);
  return pattern;
}

// Runs `dot -T<format> -o <output> <input>` without a shell. A missing `dot`
// is NotFound; a failing one reports its first lines of stderr.
absl::Status RunDot(const std::string& format, const std::string& input,
                    const std::string& output) {
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  std::vector<std::string> args = {"dot", "-T" + format, "-o", output, input};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  const int spawn_error = posix_spawnp(&pid, "dot", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(err_pipe[1]);
  const absl::Status not_found = absl::NotFoundError(
      "Graphviz's `dot` program was not found on PATH; install graphviz (apt-get install "
      "graphviz, or bash tools/setup.sh), or write -o FILE.dot instead");
  if (spawn_error != 0) {
    close(err_pipe[0]);
    if (spawn_error == ENOENT) return not_found;
    return absl::InternalError(
        absl::StrCat("cannot start Graphviz's `dot`: ", std::strerror(spawn_error)));
  }
  std::string messages;
  char buf[4096];
  for (;;) {
    ssize_t n = read(err_pipe[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (messages.size() < 4096) messages.append(buf, static_cast<size_t>(n));
  }
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return absl::InternalError(absl::StrCat("waiting for `dot`: ", std::strerror(errno)));
    }
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return not_found;
  const std::string how = WIFEXITED(status) ? absl::StrCat("exit ", WEXITSTATUS(status))
                                            : absl::StrCat("signal ", WTERMSIG(status));
  std::string cause = OneLine(messages);
  if (cause.size() > 300) cause = cause.substr(0, 300) + "...";
  return absl::InternalError(absl::StrCat("Graphviz's `dot -T", format, "` failed (", how, ")",
                                          cause.empty() ? "" : ": ", cause));
}

// Renders `dot_text` into `output` through a temporary DOT file; `output`
// is replaced only when `dot` succeeds.
absl::Status Render(const std::string& dot_text, const std::string& format,
                    const std::string& output) {
  std::error_code ec;
  std::filesystem::path tmp_dir = std::filesystem::temp_directory_path(ec);
  if (ec) tmp_dir = "/tmp";
  absl::StatusOr<std::string> dot_file =
      MakeTempFile((tmp_dir / "symx-viz-XXXXXX.dot").string(), 4, "a temporary DOT file");
  if (!dot_file.ok()) return dot_file.status();
  FileRemover remove_dot(*dot_file);
  absl::Status s = WriteFileBytes(
      *dot_file, [&](const ByteSink& sink) { sink(dot_text.data(), dot_text.size()); });
  if (!s.ok()) return s;
  absl::StatusOr<std::string> partial = MakeTempFile(output + ".partial-XXXXXX", 0, output);
  if (!partial.ok()) return partial.status();
  FileRemover remove_partial(*partial);
  s = RunDot(format, *dot_file, *partial);
  if (!s.ok()) return s;
  if (std::rename(partial->c_str(), output.c_str()) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write ", output, ": ", std::strerror(errno)));
  }
  remove_partial.Release();
  return absl::OkStatus();
}

absl::StatusOr<VizFormat> FormatOf(const std::string& path) {
  const std::string ext = absl::AsciiStrToLower(std::filesystem::path(path).extension().string());
  if (ext == ".dot") return VizFormat::kDot;
  if (ext == ".svg") return VizFormat::kSvg;
  if (ext == ".png") return VizFormat::kPng;
  return absl::InvalidArgumentError(
      absl::StrCat("-o ", path, ": the file name must end in .dot, .svg or .png"));
}

}  // namespace

std::string PlacedGraphToDot(const std::vector<PlacedNode>& nodes) {
  // Colors follow sorted device order, so a device keeps its color however
  // the graph is laid out.
  std::map<Context, std::string> color;
  for (const PlacedNode& n : nodes) color.emplace(n.ctx, "");
  size_t next = 0;
  for (auto& [ctx, c] : color) c = kPalette[next++ % kPaletteSize];

  std::string out =
      "digraph symx {\n"
      "  node [fontname=\"Helvetica\", fontsize=10, style=\"filled\"];\n"
      "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  // A job of several ranks: each rank's nodes in a box of their own.
  std::map<int, std::vector<size_t>> by_rank;
  for (size_t i = 0; i < nodes.size(); ++i) by_rank[nodes[i].ctx.rank].push_back(i);
  const bool ranks = by_rank.size() > 1 || by_rank.begin()->first >= 1;
  for (const auto& [rank, members] : by_rank) {
    std::string indent = "  ";
    if (ranks) {
      absl::StrAppend(&out, "  subgraph cluster_rank", rank,
                      " {\n    label=", Quoted(absl::StrCat("rank ", rank)),
                      ";\n    fontname=\"Helvetica\";\n    style=\"dashed\";\n");
      indent = "    ";
    }
    for (size_t i : members) {
      const PlacedNode& n = nodes[i];
      const std::string ctx = n.ctx.ToString();
      constexpr char kTransfer[] = ", shape=hexagon, style=\"filled,dashed\", penwidth=1.5";
      std::string attrs;
      if (n.op.empty()) {
        attrs = absl::StrCat("label=", Quoted(n.name), ", shape=ellipse");
      } else if (n.is_copy) {
        attrs = absl::StrCat("label=", Quoted("copy to " + ctx), kTransfer);
      } else if (n.is_send) {
        attrs = absl::StrCat(
            "label=", Quoted(absl::StrCat("send to rank ", n.peer, "\ntag ", n.tag)), kTransfer);
      } else if (n.is_recv) {
        attrs = absl::StrCat(
            "label=", Quoted(absl::StrCat("recv from rank ", n.peer, "\ntag ", n.tag)), kTransfer);
      } else {
        attrs = absl::StrCat("label=", Quoted(n.name + "\n" + n.op), ", shape=box");
      }
      const std::string tooltip =
          absl::StrCat(n.name, n.op.empty() ? "" : " (" + n.op + ")", " on ", ctx);
      absl::StrAppend(&out, indent, "n", i, " [", attrs, ", fillcolor=", Quoted(color.at(n.ctx)),
                      ", tooltip=", Quoted(tooltip), "];\n");
    }
    if (ranks) out += "  }\n";
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& [src, index] : nodes[i].inputs) {
      const std::vector<Shape>& shapes = nodes[src].output_shapes;
      const std::string label = index < shapes.size() ? EdgeLabel(shapes[index]) : "?";
      absl::StrAppend(&out, "  n", src, " -> n", i, " [label=", Quoted(label), "];\n");
    }
  }
  // The legend: one swatch per device, top to bottom in sorted order (the
  // invisible edges fix that order).
  out +=
      "  subgraph cluster_devices {\n"
      "    label=\"devices\";\n"
      "    fontname=\"Helvetica\";\n"
      "    style=\"rounded\";\n";
  size_t k = 0;
  for (const auto& [ctx, c] : color) {
    absl::StrAppend(&out, "    device", k, " [label=", Quoted(ctx.ToString()),
                    ", shape=box, fillcolor=", Quoted(c), "];\n");
    if (k > 0) absl::StrAppend(&out, "    device", k - 1, " -> device", k, " [style=invis];\n");
    ++k;
  }
  out += "  }\n}\n";
  return out;
}

void RunViz(const VizOptions& options, std::ostream& out) {
  Symbol symbol = Symbol::Load(options.symbol_path);
  std::vector<PlacedNode> nodes =
      ValueOrThrow(PlaceForward(symbol, options.ctx, options.group2ctx, options.shapes,
                                ViewerRanks(options.ctx, options.group2ctx)));
  const std::string dot = PlacedGraphToDot(nodes);
  switch (options.format) {
    case VizFormat::kDot:
      ThrowIfError(WriteFileBytes(options.output_path,
                                  [&](const ByteSink& sink) { sink(dot.data(), dot.size()); }));
      break;
    case VizFormat::kSvg:
      ThrowIfError(Render(dot, "svg", options.output_path));
      break;
    case VizFormat::kPng:
      ThrowIfError(Render(dot, "png", options.output_path));
      break;
  }
  std::set<Context> devices;
  std::set<int> ranks;
  size_t copies = 0, transfers = 0;
  for (const PlacedNode& n : nodes) {
    devices.insert(n.ctx);
    ranks.insert(n.ctx.rank);
    if (n.is_copy) ++copies;
    if (n.is_send) ++transfers;
  }
  out << "wrote " << options.output_path << ": " << nodes.size() << " nodes on " << devices.size()
      << (devices.size() == 1 ? " device" : " devices");
  if (transfers > 0 || ranks.size() > 1) out << " of " << ranks.size() << " ranks";
  out << ", " << copies << (copies == 1 ? " copy" : " copies");
  if (transfers > 0) {
    out << ", " << transfers << (transfers == 1 ? " transfer" : " transfers") << " between ranks";
  }
  out << "\n";
}

int VizMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << kUsage;
      return 0;
    }
  }
  return RunCommand("viz", err, [&] {
    absl::StatusOr<ParsedArgs> parsed =
        ParseArgs(args, {"--shape", "--ctx", "--group2ctx", "-o"}, {});
    if (!parsed.ok()) throw UsageError(std::string(parsed.status().message()), kUsage);
    ModelSpec spec;
    ApplyModelFlags(*parsed, kUsage, &spec);
    VizOptions options;
    options.symbol_path = spec.symbol_path;
    options.shapes = spec.shapes;
    options.ctx = spec.ctx;
    options.group2ctx = spec.group2ctx;
    std::optional<std::string> output = SingleValue(*parsed, "-o");
    if (!output) throw UsageError("missing -o FILE.(dot|svg|png)", kUsage);
    absl::StatusOr<VizFormat> format = FormatOf(*output);
    UsageIfError(format.status());
    options.output_path = *output;
    options.format = *format;
    RunViz(options, out);
  });
}

}  // namespace symx::cli
