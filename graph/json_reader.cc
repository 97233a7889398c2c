// Reads MXNet symbol JSON (current and legacy layouts) into a node DAG.
//
// The document is parsed with nlohmann::json, then every field is checked before
// a node is built. Node i may only refer to nodes before it, which rules out
// cycles and dangling references. Legacy upgrades follow MXNet's loader:
// files older than this version get hidden keys lifted ("ctx_group" ->
// "__ctx_group__", "weight_lr_mult" on an op -> "__lr_mult__" on its weight);
// files older than 0.9.0 get missing auxiliary inputs added as variables.
#include <algorithm>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"
#include "graph/file_io.h"
#include "graph/json.h"
#include "graph/mxnet_only_ops.h"
#include "graph/op.h"
#include "nlohmann/json.hpp"

namespace symx {
namespace {

using Json = nlohmann::json;

constexpr int kLegacyVersion = 800;      // files without a version are 0.8.0
constexpr int kAuxUpgradeVersion = 900;  // before 0.9.0: aux inputs may be missing
constexpr int kVarAttrUpgradeVersion = 904;
constexpr int kReduceAxisUpgradeVersion = 905;  // before 0.9.5: argmax axis=-1 meant "all"

absl::Status Bad(const std::string& where, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

const char* TypeName(const Json& j) { return j.type_name(); }

absl::StatusOr<uint32_t> ReadIndex(const Json& j, const std::string& where) {
  if (!j.is_number_integer()) {
    return Bad(where, absl::StrCat("expected a non-negative integer, found ", TypeName(j)));
  }
  int64_t v = j.get<int64_t>();
  if (v < 0 || v > 0x7fffffff) return Bad(where, absl::StrCat("index ", v, " is out of range"));
  return static_cast<uint32_t>(v);
}

absl::Status CheckKeys(const Json& obj, const std::vector<std::string>& allowed,
                       const std::string& where) {
  for (const auto& item : obj.items()) {
    if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end()) {
      return Bad(where, absl::StrCat("unknown field \"", item.key(), "\" (expected ",
                                     absl::StrJoin(allowed, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

// Merges the string map at obj[key] (if any) into *out.
absl::Status ReadStringMap(const Json& obj, const char* key, const std::string& where,
                           AttrMap* out) {
  auto it = obj.find(key);
  if (it == obj.end()) return absl::OkStatus();
  if (!it->is_object()) {
    return Bad(where, absl::StrCat("field \"", key, "\" must be an object, found ", TypeName(*it)));
  }
  for (const auto& item : it->items()) {
    if (!item.value().is_string()) {
      return Bad(where, absl::StrCat("attribute \"", item.key(), "\" in \"", key,
                                     "\" must be a string, found ", TypeName(item.value())));
    }
    (*out)[item.key()] = item.value().get<std::string>();
  }
  return absl::OkStatus();
}

absl::StatusOr<int> ReadVersion(const Json& doc, const std::string& where) {
  auto attrs = doc.find("attrs");
  if (attrs == doc.end()) return kLegacyVersion;
  if (!attrs->is_object()) return Bad(where, "field \"attrs\" must be an object");
  auto v = attrs->find("mxnet_version");
  if (v == attrs->end()) return kLegacyVersion;
  if (!v->is_array() || v->size() != 2 || !(*v)[1].is_number_integer()) {
    return Bad(where, "attrs.mxnet_version must be [\"int\", <version>]");
  }
  return static_cast<int>((*v)[1].get<int64_t>());
}

// Every operator of `nodes` that symx lacks, reported at once: a model with
// several gaps shows them all in one run instead of one per attempt. One
// unknown node keeps the plain per-node message.
absl::Status CheckOpsKnown(const Json& nodes, const std::string& src) {
  struct Gap {
    std::vector<std::string> where;  // node 3 ("name")
    std::string why;
  };
  std::map<std::string, Gap> gaps;
  size_t unknown_nodes = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Json& j = nodes[i];
    if (!j.is_object()) continue;  // ReadNode names the malformed node
    auto op = j.find("op");
    auto name = j.find("name");
    if (op == j.end() || !op->is_string() || name == j.end() || !name->is_string()) continue;
    const std::string op_name = op->get<std::string>();
    if (op_name == "null" || OpRegistry::Global().Find(op_name) != nullptr) continue;
    AttrMap dict;
    for (const char* key : {"param", "attr", "attrs"}) {
      if (!ReadStringMap(j, key, "", &dict).ok()) dict.clear();
    }
    Gap& gap = gaps[op_name];
    gap.where.push_back(absl::StrCat("node ", i, " (\"", name->get<std::string>(), "\")"));
    std::string why = WhyMxnetOnly(op_name, dict);
    if (!why.empty() && gap.why.find(why) == std::string::npos) {
      gap.why = gap.why.empty() ? why : absl::StrCat(gap.why, "; ", why);
    }
    ++unknown_nodes;
  }
  if (gaps.empty()) return absl::OkStatus();
  auto describe = [](const std::string& op_name, const Gap& gap) {
    if (!gap.why.empty())
      return absl::StrCat("operator '", op_name, "' cannot run outside MXNet: ", gap.why);
    absl::StatusOr<const Op*> lookup = OpRegistry::Global().Lookup(op_name);
    return std::string(lookup.status().message());
  };
  if (unknown_nodes == 1) {
    const auto& [op_name, gap] = *gaps.begin();
    return absl::NotFoundError(absl::StrCat(src, ": ", gap.where[0], ": ", describe(op_name, gap)));
  }
  std::string msg =
      absl::StrCat(src, ": the model uses ", gaps.size(), " operator", gaps.size() == 1 ? "" : "s",
                   " symx does not have, in ", unknown_nodes, " nodes:");
  for (const auto& [op_name, gap] : gaps) {
    const size_t shown = std::min<size_t>(gap.where.size(), 3);
    std::vector<std::string> first(gap.where.begin(), gap.where.begin() + shown);
    absl::StrAppend(&msg, "\n  ", describe(op_name, gap), ": ", gap.where.size(), " node",
                    gap.where.size() == 1 ? "" : "s", " (", absl::StrJoin(first, ", "),
                    gap.where.size() > shown ? ", ..." : "", ")");
  }
  return absl::NotFoundError(msg);
}

absl::StatusOr<std::vector<NodeEntry>> ReadGraph(const Json& doc, const std::string& src,
                                                 int version, bool top);

struct Loader {
  std::string source;
  int version = kMxnetVersion;
  std::vector<NodePtr> nodes;

  // A node's "subgraphs" (a control-flow op's bodies), each read as a graph
  // of its own in the document's version.
  absl::StatusOr<std::vector<SubgraphPtr>> ReadSubgraphs(const Json& j, const std::string& where,
                                                         const std::string& op_name) {
    std::vector<SubgraphPtr> subgraphs;
    auto sg = j.find("subgraphs");
    if (sg == j.end()) return subgraphs;
    if (!sg->is_array()) return Bad(where, "field \"subgraphs\" must be an array");
    if (op_name == "null" && !sg->empty()) {
      return Bad(where, "a variable (op \"null\") cannot have subgraphs");
    }
    for (size_t k = 0; k < sg->size(); ++k) {
      SYMX_ASSIGN_OR_RETURN(
          std::vector<NodeEntry> outputs,
          ReadGraph((*sg)[k], absl::StrCat(where, " subgraph ", k), version, /*top=*/false));
      subgraphs.push_back(std::make_shared<const Subgraph>(Subgraph{std::move(outputs)}));
    }
    return subgraphs;
  }

  absl::StatusOr<NodeEntry> ReadEntry(const Json& j, const std::string& where, size_t limit) {
    if (!j.is_array() || (j.size() != 2 && j.size() != 3)) {
      return Bad(where,
                 "an entry must be [node_id, output_index] or [node_id, output_index, "
                 "version]");
    }
    SYMX_ASSIGN_OR_RETURN(uint32_t nid, ReadIndex(j[0], where + " node_id"));
    SYMX_ASSIGN_OR_RETURN(uint32_t idx, ReadIndex(j[1], where + " output_index"));
    uint32_t ver = 0;
    if (j.size() == 3) {
      SYMX_ASSIGN_OR_RETURN(ver, ReadIndex(j[2], where + " version"));
    }
    if (nid >= limit) {
      return Bad(where, absl::StrCat("refers to node ", nid, ", which is not defined before it ",
                                     "(a dangling or forward reference, or a cycle)"));
    }
    const NodePtr& src = nodes[nid];
    if (static_cast<int>(idx) >= src->num_outputs()) {
      return Bad(where,
                 absl::StrCat("refers to output ", idx, " of node ", nid, " (\"", src->name(),
                              "\"), which has ", src->num_outputs(), " outputs"));
    }
    return NodeEntry{src, idx, ver};
  }

  // MXNet's FixParsing for files older than this version.
  void LiftHiddenKeys(const Op* op, AttrMap* dict, const std::vector<NodeEntry>& inputs,
                      const NodeAttrs& probe) {
    AttrMap out;
    for (const auto& [key, value] : *dict) {
      if (IsHiddenKeyName(key)) {
        out[NormalizeAttrKey(key)] = value;
        continue;
      }
      bool moved = false;
      if (op != nullptr) {
        for (const std::string& hidden : HiddenKeys()) {
          std::string suffix = "_" + hidden;
          if (key.size() <= suffix.size() || !absl::EndsWith(key, suffix)) continue;
          std::string arg = key.substr(0, key.size() - suffix.size());
          std::vector<std::string> names = op->InputNames(probe);
          for (size_t i = 0; i < names.size() && i < inputs.size(); ++i) {
            if (names[i] == arg && inputs[i].node->is_variable()) {
              inputs[i].node->attrs.dict[NormalizeAttrKey(hidden)] = value;
              moved = true;
            }
          }
          break;
        }
      }
      if (!moved) out[key] = value;
    }
    *dict = std::move(out);
  }

  absl::StatusOr<NodePtr> ReadNode(const Json& j, size_t index) {
    std::string where = absl::StrCat(source, ": node ", index);
    if (!j.is_object()) return Bad(where, absl::StrCat("must be an object, found ", TypeName(j)));
    SYMX_RETURN_IF_ERROR(CheckKeys(j,
                                   {"op", "name", "attrs", "attr", "param", "inputs",
                                    "control_deps", "backward_source_id", "subgraphs"},
                                   where));
    auto name_it = j.find("name");
    if (name_it == j.end() || !name_it->is_string()) {
      return Bad(where, "field \"name\" is missing or not a string");
    }
    std::string name = name_it->get<std::string>();
    where = absl::StrCat(where, " (\"", name, "\")");
    auto op_it = j.find("op");
    if (op_it == j.end() || !op_it->is_string()) {
      return Bad(where, "field \"op\" is missing or not a string");
    }
    std::string op_name = op_it->get<std::string>();
    SYMX_ASSIGN_OR_RETURN(std::vector<SubgraphPtr> subgraphs, ReadSubgraphs(j, where, op_name));
    AttrMap dict;
    for (const char* key : {"param", "attr", "attrs"}) {
      SYMX_RETURN_IF_ERROR(ReadStringMap(j, key, where, &dict));
    }
    std::vector<NodeEntry> inputs;
    auto in_it = j.find("inputs");
    if (in_it == j.end() || !in_it->is_array()) {
      return Bad(where, "field \"inputs\" is missing or not an array");
    }
    if (op_name == "null" && !in_it->empty()) {
      return Bad(where, "a variable (op \"null\") cannot have inputs");
    }
    for (size_t k = 0; k < in_it->size(); ++k) {
      SYMX_ASSIGN_OR_RETURN(NodeEntry e,
                            ReadEntry((*in_it)[k], absl::StrCat(where, " input ", k), index));
      inputs.push_back(std::move(e));
    }
    std::vector<NodePtr> deps;
    if (auto it = j.find("control_deps"); it != j.end()) {
      if (!it->is_array()) return Bad(where, "field \"control_deps\" must be an array");
      for (const Json& d : *it) {
        SYMX_ASSIGN_OR_RETURN(uint32_t nid, ReadIndex(d, where + " control_deps"));
        if (nid >= index) {
          return Bad(where, absl::StrCat("control dependency on node ", nid,
                                         ", which is not defined before it"));
        }
        deps.push_back(nodes[nid]);
      }
    }

    if (op_name == "null") {
      if (version < kMxnetVersion) LiftHiddenKeys(nullptr, &dict, inputs, NodeAttrs{});
      return MakeVariableNode(name, std::move(dict));
    }
    absl::StatusOr<const Op*> op = OpRegistry::Global().Lookup(op_name);
    if (!op.ok()) return Annotate(op.status(), where);
    if (version < kReduceAxisUpgradeVersion && (op_name == "argmax" || op_name == "argmin")) {
      // argmax's axis became optional in 0.9.5; -1 was the old "no axis".
      if (auto axis = dict.find("axis"); axis != dict.end() && axis->second == "-1") {
        dict.erase(axis);
      }
    }

    if (version < kMxnetVersion) {
      // Input names may depend on parameters (no_bias); parse what we can to ask.
      NodeAttrs probe;
      probe.op = *op;
      AttrMap params;
      for (const auto& [k, v] : dict) {
        if (!IsHiddenKeyName(k) && !absl::EndsWith(k, "_ctx_group") &&
            !absl::EndsWith(k, "_lr_mult") && !absl::EndsWith(k, "_wd_mult") &&
            !absl::EndsWith(k, "_force_mirroring") && !absl::EndsWith(k, "_mirror_stage")) {
          params[k] = v;
        }
      }
      absl::StatusOr<OpParamPtr> parsed = (*op)->Parse(params);
      if (!parsed.ok()) return Annotate(parsed.status(), absl::StrCat(where, " (", op_name, ")"));
      probe.parsed = *parsed;
      probe.dict = params;
      LiftHiddenKeys(*op, &dict, inputs, probe);
      SYMX_RETURN_IF_ERROR(UpgradeAuxInputs(*op, name, dict, probe, &inputs, where));
    }
    absl::StatusOr<NodePtr> node =
        MakeOpNode(*op, name, std::move(dict), std::move(inputs), std::move(deps));
    if (!node.ok()) return Annotate(node.status(), where);
    if (!subgraphs.empty() || (*op)->num_subgraphs() > 0) {
      absl::Status attached = AttachSubgraphs(node->get(), std::move(subgraphs));
      if (!attached.ok()) return Annotate(attached, where);
    }
    return *std::move(node);
  }

  // Files before 0.9.0 omitted auxiliary inputs; add them as "<node>_<input>"
  // variables copying the node's attributes, as MXNet's upgrader does. Files
  // before 0.9.4 also get the per-op defaults for such variables.
  absl::Status UpgradeAuxInputs(const Op* op, const std::string& name, const AttrMap& dict,
                                const NodeAttrs& probe, std::vector<NodeEntry>* inputs,
                                const std::string& where) {
    std::vector<std::string> names = op->InputNames(probe);
    std::vector<int> aux = op->AuxInputs(probe);
    if (version < kAuxUpgradeVersion && inputs->size() < names.size()) {
      for (size_t i = inputs->size(); i < names.size(); ++i) {
        if (std::find(aux.begin(), aux.end(), static_cast<int>(i)) == aux.end()) {
          return Bad(where, absl::StrCat("input '", names[i], "' is missing"));
        }
        AttrMap var_attrs = dict;
        op->AddInputVarAttrs(probe, static_cast<int>(i), &var_attrs);
        inputs->push_back(
            NodeEntry{MakeVariableNode(absl::StrCat(name, "_", names[i]), var_attrs), 0, 1});
      }
    }
    if (version < kVarAttrUpgradeVersion) {
      for (size_t i = 0; i < inputs->size() && i < names.size(); ++i) {
        Node& var = *(*inputs)[i].node;
        if (!var.is_variable()) continue;
        AttrMap extra;
        op->AddInputVarAttrs(probe, static_cast<int>(i), &extra);
        for (const auto& [k, v] : extra) var.attrs.dict.emplace(k, v);
      }
    }
    return absl::OkStatus();
  }
};

// One graph: the document, or a control-flow node's body (MXNet writes the
// same fields there, without "attrs"; its version is the document's).
absl::StatusOr<std::vector<NodeEntry>> ReadGraph(const Json& doc, const std::string& src,
                                                 int version, bool top) {
  if (!doc.is_object()) return Bad(src, "a graph must be a JSON object");
  SYMX_RETURN_IF_ERROR(
      CheckKeys(doc, {"nodes", "arg_nodes", "node_row_ptr", "heads", "attrs"}, src));
  Loader loader;
  loader.source = src;
  loader.version = version;

  auto nodes = doc.find("nodes");
  if (nodes == doc.end() || !nodes->is_array()) {
    return Bad(src, "field \"nodes\" is missing or not an array");
  }
  if (top) SYMX_RETURN_IF_ERROR(CheckOpsKnown(*nodes, src));
  for (size_t i = 0; i < nodes->size(); ++i) {
    SYMX_ASSIGN_OR_RETURN(NodePtr node, loader.ReadNode((*nodes)[i], i));
    loader.nodes.push_back(std::move(node));
  }
  if (auto it = doc.find("arg_nodes"); it != doc.end()) {
    if (!it->is_array()) return Bad(src, "field \"arg_nodes\" must be an array");
    for (const Json& a : *it) {
      SYMX_ASSIGN_OR_RETURN(uint32_t nid, ReadIndex(a, src + ": arg_nodes"));
      if (nid >= loader.nodes.size() || !loader.nodes[nid]->is_variable()) {
        return Bad(src, absl::StrCat("arg_nodes lists node ", nid, ", which is not a variable"));
      }
    }
  }
  if (auto it = doc.find("node_row_ptr"); it != doc.end() && !it->is_array()) {
    return Bad(src, "field \"node_row_ptr\" must be an array");
  }
  auto heads = doc.find("heads");
  if (heads == doc.end() || !heads->is_array()) {
    return Bad(src, "field \"heads\" is missing or not an array");
  }
  if (heads->empty()) return Bad(src, "field \"heads\" is empty: the symbol has no outputs");
  std::vector<NodeEntry> outputs;
  for (size_t k = 0; k < heads->size(); ++k) {
    SYMX_ASSIGN_OR_RETURN(
        NodeEntry e,
        loader.ReadEntry((*heads)[k], absl::StrCat(src, ": heads[", k, "]"), loader.nodes.size()));
    outputs.push_back(std::move(e));
  }
  return outputs;
}

}  // namespace

absl::StatusOr<std::vector<NodeEntry>> LoadJson(absl::string_view text, absl::string_view source) {
  std::string src(source);
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    std::string msg = e.what();
    // "[json.exception.parse_error.101] parse error at ..." -> "parse error at ..."
    if (size_t p = msg.find("] "); p != std::string::npos) msg = msg.substr(p + 2);
    return Bad(src, absl::StrCat("malformed JSON: ", msg));
  }
  if (!doc.is_object()) return Bad(src, "the top level must be a JSON object");
  SYMX_ASSIGN_OR_RETURN(int version, ReadVersion(doc, src));
  return ReadGraph(doc, src, version, /*top=*/true);
}

absl::StatusOr<std::vector<NodeEntry>> LoadJsonFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileBytes(path);
  if (!text.ok()) {
    // "x.json: cannot open file (it is a directory, not a file)".
    std::string why(text.status().message());
    if (size_t colon = why.rfind(": "); colon != std::string::npos) why = why.substr(colon + 2);
    return absl::Status(text.status().code(), absl::StrCat(path, ": cannot open file (", why, ")"));
  }
  return LoadJson(*text, path);
}

}  // namespace symx
