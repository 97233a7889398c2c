#include "tools/registry/op_table.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/attrs.h"
#include "graph/error.h"
#include "graph/file_io.h"
#include "graph/mxnet_only_ops.h"
#include "graph/param.h"
#include "nlohmann/json.hpp"

namespace symx {
namespace {

using Json = nlohmann::json;

bool IsNumpyName(absl::string_view name) { return absl::StartsWith(name, "_np"); }

// MXNet's names for the storage-typed front end (mx.nd.sparse): aliases of
// dense operators that only matter with sparse storage, which symx does not
// have. Symbol files name operators by their registered names, never these.
bool IsSparseAlias(absl::string_view name) { return absl::StartsWith(name, "_sparse_"); }

// The elements of "(1, 2)", "[1,2]", "()" or "[]"; nullopt if not a tuple.
std::optional<std::vector<std::string>> TupleItems(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  if (text.size() < 2) return std::nullopt;
  const char open = text.front(), close = text.back();
  if (!((open == '(' && close == ')') || (open == '[' && close == ']'))) return std::nullopt;
  std::vector<std::string> items;
  for (absl::string_view part : absl::StrSplit(text.substr(1, text.size() - 2), ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (!part.empty()) items.emplace_back(part);
  }
  return items;
}

bool NumbersEqual(absl::string_view a, absl::string_view b) {
  double x = 0, y = 0;
  auto strip_long = [](absl::string_view s) {
    s = absl::StripAsciiWhitespace(s);
    if (!s.empty() && (s.back() == 'L' || s.back() == 'l')) s.remove_suffix(1);
    return s;
  };
  if (!absl::SimpleAtod(strip_long(a), &x) || !absl::SimpleAtod(strip_long(b), &y)) return false;
  if (x == y) return true;
  if (std::isinf(x) || std::isinf(y)) return false;
  // MXNet prints float parameters from float32 (0.899999976 for 0.9).
  return std::fabs(x - y) <= 1e-7 * std::max(std::fabs(x), std::fabs(y));
}

// Whether symx's default text (as ParamReader records it) and MXNet's mean
// the same value for a parameter of MXNet type `type`.
bool DefaultsEqual(absl::string_view symx_text, absl::string_view mxnet_text,
                   absl::string_view type) {
  symx_text = absl::StripAsciiWhitespace(symx_text);
  mxnet_text = absl::StripAsciiWhitespace(mxnet_text);
  if (symx_text == mxnet_text) return true;
  // An empty text and an empty tuple are both "not given" for a tuple.
  auto empty = [](absl::string_view s) { return s.empty() || s == "()" || s == "[]"; };
  if (empty(symx_text) && empty(mxnet_text)) return true;
  if (absl::StartsWith(type, "boolean")) {
    auto as_bool = [](absl::string_view s) -> std::optional<bool> {
      if (s == "1" || s == "True" || s == "true") return true;
      if (s == "0" || s == "False" || s == "false") return false;
      return std::nullopt;
    };
    auto x = as_bool(symx_text), y = as_bool(mxnet_text);
    return x.has_value() && x == y;
  }
  auto xs = TupleItems(symx_text), ys = TupleItems(mxnet_text);
  if (xs.has_value() || ys.has_value()) {
    // A scalar where a tuple is expected is the one-element tuple.
    std::vector<std::string> a = xs ? *xs : std::vector<std::string>{std::string(symx_text)};
    std::vector<std::string> b = ys ? *ys : std::vector<std::string>{std::string(mxnet_text)};
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i] && !NumbersEqual(a[i], b[i])) return false;
    }
    return true;
  }
  return NumbersEqual(symx_text, mxnet_text);
}

absl::Status BadRegistry(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(kMxnetRegistryPath, ": ", what));
}

}  // namespace

absl::StatusOr<std::vector<MxnetOp>> ParseMxnetRegistry(absl::string_view json_text) {
  Json doc;
  try {
    doc = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::exception& e) {
    return BadRegistry(absl::StrCat("malformed JSON: ", e.what()));
  }
  if (!doc.is_object() || !doc.contains("operators") || !doc["operators"].is_array()) {
    return BadRegistry("expected an object with an \"operators\" array");
  }
  std::vector<MxnetOp> ops;
  try {
    for (const Json& j : doc["operators"]) {
      MxnetOp op;
      op.name = j.at("name").get<std::string>();
      op.aliases = j.at("aliases").get<std::vector<std::string>>();
      op.key_var_num_args = j.at("key_var_num_args").get<std::string>();
      for (const Json& p : j.at("params")) {
        MxnetParam param;
        param.name = p.at("name").get<std::string>();
        param.type = p.at("type").get<std::string>();
        param.required = p.at("required").get<bool>();
        if (!p.at("default").is_null()) param.default_text = p.at("default").get<std::string>();
        op.params.push_back(std::move(param));
      }
      op.numpy_interface =
          IsNumpyName(op.name) && std::all_of(op.aliases.begin(), op.aliases.end(), IsNumpyName);
      ops.push_back(std::move(op));
    }
  } catch (const Json::exception& e) {
    return BadRegistry(absl::StrCat("malformed operator entry: ", e.what()));
  }
  return ops;
}

absl::StatusOr<std::map<std::string, std::string>> ParsePendingOps(absl::string_view text) {
  std::map<std::string, std::string> pending;
  std::string plan;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    if (line[0] == '#') {
      plan = std::string(absl::StripAsciiWhitespace(line.substr(1)));
      continue;
    }
    if (absl::StrContains(line, ' ')) {
      return absl::InvalidArgumentError(absl::StrCat(
          kPendingOpsPath, ":", line_no, ": expected one operator name, found \"", line, "\""));
    }
    if (!pending.emplace(std::string(line), plan).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(kPendingOpsPath, ":", line_no, ": '", line, "' is listed twice"));
    }
  }
  return pending;
}

absl::StatusOr<std::map<std::string, std::string>> ParseParamDifferences(absl::string_view text) {
  std::map<std::string, std::string> out;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.find(": ");
    const absl::string_view key =
        colon == absl::string_view::npos ? absl::string_view() : line.substr(0, colon);
    const size_t dot = key.find('.');
    if (dot == absl::string_view::npos || dot == 0 || dot + 1 == key.size()) {
      return absl::InvalidArgumentError(absl::StrCat(kParamDifferencesPath, ":", line_no,
                                                     ": expected \"op.key: reason\", found \"",
                                                     line, "\""));
    }
    out[std::string(key)] = std::string(line.substr(colon + 2));
  }
  return out;
}

std::vector<OpCoverage> Classify(const std::vector<MxnetOp>& mxnet,
                                 const std::map<std::string, std::string>& pending) {
  const OpRegistry& registry = OpRegistry::Global();
  std::vector<OpCoverage> out;
  for (const MxnetOp& op : mxnet) {
    OpCoverage c;
    c.op = &op;
    std::vector<std::string> names = {op.name};
    names.insert(names.end(), op.aliases.begin(), op.aliases.end());
    for (const std::string& n : names) {
      if (const Op* found = registry.Find(n)) {
        c.symx_op = found;
        break;
      }
    }
    if (c.symx_op != nullptr) {
      c.state = OpState::kImplemented;
      for (const std::string& n : names) {
        if (IsNumpyName(n) || IsSparseAlias(n)) continue;  // out of scope, as the doc says
        if (registry.Find(n) != c.symx_op) c.alias_gaps.push_back(n);
      }
    } else if (std::string why = WhyMxnetOnly(op.name, AttrMap{}); !why.empty()) {
      c.state = OpState::kRefused;
      c.detail = std::move(why);
    } else if (auto it = pending.find(op.name); it != pending.end()) {
      c.state = OpState::kPending;
      c.detail = it->second;
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::map<std::string, std::string> ParamDifferences(const MxnetOp& mxnet_op, const Op& symx_op) {
  std::map<std::string, std::string> diffs;
  auto key_of = [&](absl::string_view param) { return absl::StrCat(mxnet_op.name, ".", param); };
  // Every optional parameter at MXNet's default spelling, as MXNet's own
  // exporters may write them: symx must accept each.
  AttrMap attrs;
  std::map<std::string, const MxnetParam*> by_name;
  for (const MxnetParam& p : mxnet_op.params) {
    by_name[p.name] = &p;
    if (!p.required && p.default_text.has_value()) attrs[p.name] = *p.default_text;
  }
  ParamRecord record = RecordParams([&](const AttrMap& a) { return symx_op.Parse(a); }, attrs);
  for (const std::string& key : record.unknown) {
    diffs[key_of(key)] = absl::StrCat("symx does not accept MXNet's parameter '", key, "'");
  }
  for (const std::string& refusal : record.refused) {
    const std::string key = refusal.substr(0, refusal.find(':'));
    diffs[key_of(key)] = absl::StrCat("symx refuses MXNet's default spelling: ", refusal);
  }
  std::set<std::string> asked;
  for (const ParamSpec& spec : record.specs) {
    asked.insert(spec.key);
    auto it = by_name.find(spec.key);
    if (it == by_name.end() && spec.key == mxnet_op.key_var_num_args) continue;
    if (it == by_name.end()) {
      diffs[key_of(spec.key)] =
          absl::StrCat("symx accepts '", spec.key, "', which MXNet 1.9.1's op does not have");
      continue;
    }
    const MxnetParam& m = *it->second;
    if (m.required != spec.required) {
      diffs[key_of(spec.key)] =
          absl::StrCat("required in ", m.required ? "MXNet" : "symx", " only (symx default \"",
                       spec.default_text, "\", MXNet's \"", m.default_text.value_or(""), "\")");
    } else if (!m.required && m.default_text.has_value() &&
               !DefaultsEqual(spec.default_text, *m.default_text, m.type)) {
      diffs[key_of(spec.key)] = absl::StrCat("default \"", spec.default_text, "\" in symx, \"",
                                             *m.default_text, "\" in MXNet");
    }
  }
  for (const MxnetParam& p : mxnet_op.params) {
    if (p.required && !asked.count(p.name)) {
      diffs[key_of(p.name)] =
          absl::StrCat("symx does not ask for MXNet's required parameter '", p.name, "'");
    }
  }
  return diffs;
}

std::string OperatorsDoc(const std::vector<OpCoverage>& coverage,
                         const std::map<std::string, std::string>& param_differences) {
  size_t numpy = 0, implemented = 0, refused = 0, pending = 0;
  for (const OpCoverage& c : coverage) {
    if (c.op->numpy_interface) {
      ++numpy;
      continue;
    }
    implemented += c.state == OpState::kImplemented;
    refused += c.state == OpState::kRefused;
    pending += c.state == OpState::kPending;
  }
  const size_t legacy = coverage.size() - numpy;
  std::string text = absl::StrCat(
      "# MXNet 1.9.1's operators in symx\n\n"
      "<!-- generated by `bazel run //tools/registry:update_op_table -- $PWD`; "
      "//tests/registry:op_coverage_test fails while it is stale -->\n\n"
      "Every operator of MXNet 1.9.1's registry (`tools/registry/mxnet_1.9.1_ops.json`, dumped by "
      "`tools/registry/dump_mxnet_registry.py` from `mxnet==1.9.1`; backward operators left "
      "out) and what symx does with it. Of the ",
      legacy, " operators outside the NumPy interface, symx implements ", implemented, ", refuses ",
      refused, " with the reason below (the same text a model using one gets), and ", pending,
      " are still to come (`tools/registry/pending_ops.txt` says where). The ", numpy,
      " operators of MXNet's NumPy interface (`_np*`, `_npi*`, `_npx*`: `mx.np`/`mx.npx`) are "
      "refused as a whole: symx runs the legacy `mx.sym` operators. Neither those nor the "
      "`_sparse_*` names MXNet gives dense operators for its sparse-storage front end "
      "(`mx.nd.sparse`) are listed as other names: symbol files name operators by their "
      "registered names.\n\n"
      "Implemented operators take MXNet 1.9.1's parameter names and defaults; "
      "//tests/registry:op_coverage_test compares each with the registry dump, and the "
      "differences it allows, each with its reason, are listed after the table.\n\n"
      "| MXNet operator | other names | symx |\n|---|---|---|\n");
  for (const OpCoverage& c : coverage) {
    if (c.op->numpy_interface) continue;
    std::vector<std::string> aliases;
    for (const std::string& a : c.op->aliases) {
      if (!IsNumpyName(a) && !IsSparseAlias(a)) aliases.push_back(absl::StrCat("`", a, "`"));
    }
    std::string state;
    switch (c.state) {
      case OpState::kImplemented:
        state = c.symx_op->name() == c.op->name
                    ? "implemented"
                    : absl::StrCat("implemented as `", c.symx_op->name(), "`");
        if (!c.alias_gaps.empty()) {
          std::vector<std::string> gaps;
          for (const std::string& g : c.alias_gaps) gaps.push_back(absl::StrCat("`", g, "`"));
          absl::StrAppend(&state, "; not by the name", gaps.size() == 1 ? " " : "s ",
                          absl::StrJoin(gaps, ", "));
        }
        break;
      case OpState::kRefused:
        state = absl::StrCat("refused: ", c.detail);
        break;
      case OpState::kPending:
        state = absl::StrCat("to come (", c.detail, ")");
        break;
      case OpState::kUnaccounted:
        state = "**unaccounted**";
        break;
    }
    absl::StrAppend(&text, "| `", c.op->name, "` | ", absl::StrJoin(aliases, ", "), " | ", state,
                    " |\n");
  }
  absl::StrAppend(&text,
                  "\n## Parameter differences from MXNet 1.9.1\n\n"
                  "Listed in `tools/registry/param_differences.txt`; the test fails on any other "
                  "difference and on a listed one that is gone.\n\n");
  if (param_differences.empty()) absl::StrAppend(&text, "None.\n");
  for (const auto& [key, reason] : param_differences) {
    absl::StrAppend(&text, "- `", key, "`: ", reason, "\n");
  }
  return text;
}

absl::StatusOr<CoverageReport> BuildCoverageReport(const std::string& root) {
  auto read = [&](const char* path) { return ReadFileBytes(absl::StrCat(root, "/", path)); };
  CoverageReport r;
  SYMX_ASSIGN_OR_RETURN(std::string registry_text, read(kMxnetRegistryPath));
  SYMX_ASSIGN_OR_RETURN(r.mxnet, ParseMxnetRegistry(registry_text));
  SYMX_ASSIGN_OR_RETURN(std::string pending_text, read(kPendingOpsPath));
  SYMX_ASSIGN_OR_RETURN(r.pending, ParsePendingOps(pending_text));
  SYMX_ASSIGN_OR_RETURN(std::string differences_text, read(kParamDifferencesPath));
  SYMX_ASSIGN_OR_RETURN(r.allowed_differences, ParseParamDifferences(differences_text));
  r.coverage = Classify(r.mxnet, r.pending);
  for (const OpCoverage& c : r.coverage) {
    if (c.state != OpState::kImplemented) continue;
    for (auto& [key, why] : ParamDifferences(*c.op, *c.symx_op)) r.found_differences[key] = why;
  }
  r.doc = OperatorsDoc(r.coverage, r.allowed_differences);
  return r;
}

}  // namespace symx
