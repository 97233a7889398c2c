#include "tools/symx/im2rec.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "graph/error.h"
#include "tools/symx/command.h"
#include "tools/symx/flags.h"
#include "train/recordio/im2rec.h"

namespace symx::cli {
namespace {
namespace fs = std::filesystem;

constexpr char kUsage[] =
    "usage: symx im2rec PREFIX ROOT [--list] [--recursive] [--exts .jpeg,.jpg,.png]\n"
    "                   [--train-ratio X] [--test-ratio X] [--no-shuffle] [--seed N]\n"
    "                   [--resize N] [--center-crop] [--quality N] [--encoding .jpg|.png]\n"
    "                   [--color 1|0|-1] [--pack-label] [--pass-through] [--num-thread N]\n"
    "  --list: write PREFIX.lst (PREFIX_train/_val/_test.lst with --train-ratio < 1) for the\n"
    "          images under ROOT; --recursive: a class per subfolder\n"
    "  otherwise: pack every PREFIX*.lst beside PREFIX into .rec + .idx, images read under\n"
    "          ROOT, re-encoded (--resize: shorter edge, --center-crop, --quality 95, --encoding)\n"
    "          or copied (--pass-through)\n";

}  // namespace

int Im2recMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << kUsage;
      return 0;
    }
  }
  return RunCommand("im2rec", err, [&] {
    absl::StatusOr<ParsedArgs> parsed =
        ParseArgs(args,
                  {"--exts", "--train-ratio", "--test-ratio", "--seed", "--resize", "--quality",
                   "--encoding", "--color", "--num-thread"},
                  {"--list", "--recursive", "--no-shuffle", "--center-crop", "--pack-label",
                   "--pass-through"});
    if (!parsed.ok()) throw UsageError(std::string(parsed.status().message()), kUsage);
    if (parsed->positional.size() != 2) {
      throw UsageError("expected PREFIX and ROOT", kUsage);
    }
    const std::string prefix = fs::absolute(parsed->positional[0]).string();
    const std::string root = fs::absolute(parsed->positional[1]).string();
    auto single = [&](const char* flag) { return SingleValue(*parsed, flag); };
    if (HasSwitch(*parsed, "--list")) {
      recordio::ListOptions o;
      o.recursive = HasSwitch(*parsed, "--recursive");
      o.shuffle = !HasSwitch(*parsed, "--no-shuffle");
      if (auto v = single("--exts")) {
        o.exts = absl::StrSplit(*v, ',', absl::SkipEmpty());
        for (std::string& e : o.exts) {
          if (!absl::StartsWith(e, ".")) e = "." + e;
        }
      }
      if (auto v = single("--seed")) o.seed = static_cast<uint64_t>(ParseIntFlag("--seed", *v, 0));
      if (auto v = single("--train-ratio")) o.train_ratio = ParseDoubleFlag("--train-ratio", *v);
      if (auto v = single("--test-ratio")) o.test_ratio = ParseDoubleFlag("--test-ratio", *v);
      recordio::ImageLists lists = ValueOrThrow(recordio::MakeImageLists(prefix, root, o));
      for (size_t c = 0; c < lists.classes.size() && o.recursive; ++c) {
        out << lists.classes[c] << " " << c << "\n";
      }
      out << lists.images << " images listed in";
      for (const std::string& f : lists.files) out << " " << f;
      out << "\n";
      return;
    }
    recordio::PackOptions o;
    o.center_crop = HasSwitch(*parsed, "--center-crop");
    o.pack_label = HasSwitch(*parsed, "--pack-label");
    o.pass_through = HasSwitch(*parsed, "--pass-through");
    if (auto v = single("--resize")) o.resize = static_cast<int>(ParseIntFlag("--resize", *v, 0));
    if (auto v = single("--quality"))
      o.quality = static_cast<int>(ParseIntFlag("--quality", *v, 0));
    if (auto v = single("--encoding")) o.encoding = *v;
    if (auto v = single("--color")) o.color = static_cast<int>(ParseIntFlag("--color", *v, -1));
    if (auto v = single("--num-thread")) {
      o.threads = static_cast<int>(ParseIntFlag("--num-thread", *v, 1));
    }
    // Every PREFIX*.lst beside PREFIX, as im2rec.py finds them.
    std::vector<std::string> lists;
    const fs::path dir = fs::path(prefix).parent_path();
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      const std::string p = e.path().string();
      if (absl::StartsWith(p, prefix) && absl::EndsWith(p, ".lst")) lists.push_back(p);
    }
    std::sort(lists.begin(), lists.end());
    if (lists.empty()) {
      throw Error(absl::NotFoundError(
          absl::StrCat("no ", prefix, "*.lst list to pack (make one with --list first)")));
    }
    for (const std::string& lst : lists) {
      const std::string out_prefix = lst.substr(0, lst.size() - 4);
      recordio::PackResult r = ValueOrThrow(recordio::PackImageList(lst, root, out_prefix, o));
      out << lst << ": " << r.packed << " images packed into " << r.rec << " and " << r.idx;
      if (!r.skipped.empty()) out << "; " << r.skipped.size() << " skipped";
      out << "\n";
      for (const std::string& s : r.skipped) err << "symx im2rec: skipped " << s << "\n";
    }
  });
}

}  // namespace symx::cli
