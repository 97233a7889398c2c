// The op-family table of docs/architecture.md ("Op families") against the
// registries, so that it cannot go stale: every registered forward op is in
// exactly one family; every op's schema is registered in graph/ops/F.cc and
// every CPU kernel in devices/cpu/F_kernels.cc, F its family (a backward op's
// family is its schema file's); in CUDA builds every GPU kernel is registered
// in a file of its family's GPU column; and every file the table names exists.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "devices/kernel.h"
#include "graph/op.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

struct Family {
  std::string name;
  std::vector<std::string> ops;
  std::vector<std::string> gpu_files;     // under devices/cuda/
  std::vector<std::string> test_files;    // under tests/ops/
  std::vector<std::string> golden_files;  // under tools/golden/
};

// The communication ops' kernels are registered by the communicator
// (distributed/), not by a family file.
bool RegisteredByCommunicator(const std::string& op) { return op == "_send" || op == "_recv"; }

std::vector<std::string> Cell(absl::string_view cell) {
  std::vector<std::string> out;
  for (absl::string_view item : absl::StrSplit(cell, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    item = absl::StripPrefix(absl::StripSuffix(item, "`"), "`");
    if (!item.empty() && item != "—") out.emplace_back(item);
  }
  return out;
}

std::vector<Family> ReadTable() {
  std::ifstream in("docs/architecture.md");
  EXPECT_TRUE(in.good()) << "cannot read docs/architecture.md";
  std::vector<Family> families;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "<!-- op-families")) {
      inside = true;
      continue;
    }
    if (absl::StartsWith(line, "<!-- /op-families")) break;
    if (!inside || !absl::StartsWith(line, "| ") || absl::StartsWith(line, "| family |")) continue;
    std::vector<std::string> cells = absl::StrSplit(line, '|');
    // "| a | b | c | d | e |" splits into 7 pieces, empty at both ends.
    EXPECT_EQ(cells.size(), 7u) << "malformed row: " << line;
    if (cells.size() != 7) continue;
    Family f;
    f.name = std::string(absl::StripAsciiWhitespace(cells[1]));
    f.ops = Cell(cells[2]);
    f.gpu_files = Cell(cells[3]);
    f.test_files = Cell(cells[4]);
    f.golden_files = Cell(cells[5]);
    families.push_back(std::move(f));
  }
  EXPECT_FALSE(families.empty()) << "no op-family table in docs/architecture.md";
  return families;
}

class FamilyTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    families_ = ReadTable();
    for (const Family& f : families_) {
      EXPECT_TRUE(by_name_.emplace(f.name, &f).second) << "family " << f.name << " listed twice";
      for (const std::string& op : f.ops) {
        auto [it, inserted] = family_of_op_.emplace(op, f.name);
        EXPECT_TRUE(inserted) << op << " is in families " << it->second << " and " << f.name;
      }
    }
  }

  // The family whose schema file registered `op`, or "" if that file is not
  // graph/ops/F.cc of a listed family.
  std::string SchemaFamily(const Op& op) const {
    const std::string& file = op.source_file();
    if (!absl::StartsWith(file, "graph/ops/") || !absl::EndsWith(file, ".cc")) return "";
    std::string f(absl::StripSuffix(absl::StripPrefix(file, "graph/ops/"), ".cc"));
    return by_name_.count(f) ? f : "";
  }

  std::vector<Family> families_;
  std::map<std::string, const Family*> by_name_;
  std::map<std::string, std::string> family_of_op_;
};

TEST_F(FamilyTableTest, EveryForwardOpIsInOneFamily) {
  std::set<std::string> registered;
  for (const Op* op : OpRegistry::Global().List()) {
    if (op->is_backward()) continue;
    registered.insert(op->name());
    EXPECT_TRUE(family_of_op_.count(op->name()))
        << "op " << op->name() << " (registered in " << op->source_file()
        << ") is in no family of docs/architecture.md";
  }
  for (const auto& [op, family] : family_of_op_) {
    const Op* found = OpRegistry::Global().Find(op);
    EXPECT_TRUE(found != nullptr && found->name() == op)
        << "family " << family << " lists " << op << ", which is not a registered op name";
  }
}

TEST_F(FamilyTableTest, SchemasLiveInTheirFamilyFile) {
  for (const Op* op : OpRegistry::Global().List()) {
    const std::string family = SchemaFamily(*op);
    EXPECT_FALSE(family.empty()) << "op " << op->name() << " is registered in " << op->source_file()
                                 << ", not in graph/ops/F.cc of a family";
    if (op->is_backward()) continue;
    auto it = family_of_op_.find(op->name());
    if (it == family_of_op_.end()) continue;  // reported above
    EXPECT_EQ(family, it->second) << "op " << op->name() << " of family " << it->second
                                  << " is registered in " << op->source_file();
  }
}

TEST_F(FamilyTableTest, CpuKernelsLiveInTheirFamilyFile) {
  for (const std::string& name : KernelRegistry::List(DeviceType::kCPU)) {
    const Op* op = OpRegistry::Global().Find(name);
    ASSERT_NE(op, nullptr) << name;
    const std::string file = KernelRegistry::SourceFile(name, DeviceType::kCPU);
    if (RegisteredByCommunicator(name)) {
      EXPECT_TRUE(absl::StartsWith(file, "distributed/")) << name << ": " << file;
      continue;
    }
    const std::string want = "devices/cpu/" + SchemaFamily(*op) + "_kernels.cc";
    EXPECT_EQ(file, want) << "the CPU kernel of " << name << " is registered in " << file;
  }
}

TEST_F(FamilyTableTest, GpuKernelsLiveInTheirFamilyFiles) {
  const std::vector<std::string> gpu = KernelRegistry::List(DeviceType::kGPU);
  if (gpu.empty()) GTEST_SKIP() << "built without CUDA: no GPU kernel is registered";
  for (const std::string& name : gpu) {
    const Op* op = OpRegistry::Global().Find(name);
    ASSERT_NE(op, nullptr) << name;
    const std::string file = KernelRegistry::SourceFile(name, DeviceType::kGPU);
    if (RegisteredByCommunicator(name)) {
      EXPECT_TRUE(absl::StartsWith(file, "distributed/")) << name << ": " << file;
      continue;
    }
    const std::string family = SchemaFamily(*op);
    auto it = by_name_.find(family);
    ASSERT_NE(it, by_name_.end()) << name;
    std::vector<std::string> allowed;
    for (const std::string& f : it->second->gpu_files) allowed.push_back("devices/cuda/" + f);
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), file), allowed.end())
        << "the GPU kernel of " << name << " (family " << family << ") is registered in " << file
        << ", not in " << absl::StrJoin(allowed, ", ");
  }
}

// A family's other files carry its name: devices/cuda/F_kernels.cc and F.cu
// (with F_launch.h beside it), tests/ops/F_test.cc, tools/golden/cases_F.py;
// each one the table names exists. (The schema and CPU kernel files are
// checked through the registry.)
TEST_F(FamilyTableTest, NamedFilesCarryTheFamilyNameAndExist) {
  namespace fs = std::filesystem;
  for (const Family& f : families_) {
    for (const std::string& g : f.gpu_files) {
      EXPECT_TRUE(g == f.name + "_kernels.cc" || g == f.name + ".cu")
          << "family " << f.name << " lists GPU file " << g;
      EXPECT_TRUE(fs::exists("devices/cuda/" + g)) << "family " << f.name << ": devices/cuda/" << g;
      if (g == f.name + ".cu") {
        EXPECT_TRUE(fs::exists("devices/cuda/" + f.name + "_launch.h"))
            << "devices/cuda/" << g << " without its launch header " << f.name << "_launch.h";
      }
    }
    EXPECT_LE(f.test_files.size(), 1u) << f.name;
    for (const std::string& t : f.test_files) {
      EXPECT_EQ(t, f.name + "_test.cc") << "family " << f.name;
      EXPECT_TRUE(fs::exists("tests/ops/" + t)) << "family " << f.name << ": tests/ops/" << t;
    }
    EXPECT_LE(f.golden_files.size(), 1u) << f.name;
    for (const std::string& g : f.golden_files) {
      EXPECT_EQ(g, "cases_" + f.name + ".py") << "family " << f.name;
      EXPECT_TRUE(fs::exists("tools/golden/" + g)) << "family " << f.name << ": tools/golden/" << g;
    }
  }
}

// Every family has its test file; a family whose ops have GPU kernels names
// its GPU kernel file (checked against the registry in CUDA builds above).
TEST_F(FamilyTableTest, EveryFamilyHasItsTests) {
  for (const Family& f : families_) {
    EXPECT_EQ(f.test_files.size(), 1u) << "family " << f.name << " names no tests/ops/F_test.cc";
  }
}

}  // namespace
}  // namespace symx
