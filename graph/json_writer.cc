// Writes symbol JSON exactly as MXNet 1.9 (dmlc-core's JSONWriter) lays it out:
// 2-space indentation, ", " separators before each newline, arrays inline unless
// they hold more than 10 items or non-scalar items, maps inline when they hold at
// most one entry. Files written here diff cleanly against MXNet's own.
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "graph/indexed_graph.h"
#include "graph/json.h"
#include "graph/op.h"

namespace symx {
namespace {

class LayoutWriter {
 public:
  void BeginObject(bool multi_line) { Begin('{', multi_line); }
  void EndObject() { End('}'); }
  void BeginArray(bool multi_line) { Begin('[', multi_line); }
  void EndArray() { End(']'); }

  void Key(const std::string& key) {
    Separator();
    String(key);
    out_ += ": ";
  }
  void Item() { Separator(); }
  void String(const std::string& s) {
    out_ += '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\r':
          out_ += "\\r";
          break;
        case '\t':
          out_ += "\\t";
          break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\u%04x", c);
            out_ += buf;
          } else {
            out_ += static_cast<char>(c);
          }
      }
    }
    out_ += '"';
  }
  void Int(int64_t v) { out_ += std::to_string(v); }
  void IntArray(const std::vector<uint32_t>& values) {
    BeginArray(values.size() > 10);
    for (uint32_t v : values) {
      Item();
      Int(v);
    }
    EndArray();
  }
  void EntryArray(const std::vector<IndexedGraph::Entry>& entries) {
    BeginArray(entries.size() > 10);
    for (const IndexedGraph::Entry& e : entries) {
      Item();
      BeginArray(false);
      for (uint32_t v : {e.node_id, e.index, e.version}) {
        Item();
        Int(v);
      }
      EndArray();
    }
    EndArray();
  }
  void StringMap(const AttrMap& map) {
    BeginObject(map.size() > 1);
    for (const auto& [k, v] : map) {
      Key(k);
      String(v);
    }
    EndObject();
  }
  std::string Take() { return std::move(out_); }

 private:
  struct Scope {
    bool multi_line;
    size_t count;
  };
  void Begin(char open, bool multi_line) {
    out_ += open;
    scopes_.push_back(Scope{multi_line, 0});
  }
  void End(char close) {
    Scope s = scopes_.back();
    scopes_.pop_back();
    if (s.multi_line && s.count > 0) Newline();
    out_ += close;
  }
  void Separator() {
    Scope& s = scopes_.back();
    if (s.count > 0) out_ += ", ";
    ++s.count;
    if (s.multi_line) Newline();
  }
  void Newline() {
    out_ += '\n';
    out_.append(scopes_.size() * 2, ' ');
  }

  std::string out_;
  std::vector<Scope> scopes_;
};

}  // namespace

namespace {

// One graph's fields: the document's, or a control-flow body's inside its
// node (which MXNet writes without "attrs").
void WriteGraph(const std::vector<NodeEntry>& outputs, LayoutWriter* w) {
  IndexedGraph g(outputs);
  w->Key("nodes");
  w->BeginArray(true);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const IndexedGraph::NodeInfo& info = g[nid];
    const Node& node = *info.node;
    w->Item();
    w->BeginObject(true);
    w->Key("op");
    w->String(node.is_variable() ? "null" : node.op()->name());
    w->Key("name");
    w->String(node.name());
    if (!node.attrs.dict.empty()) {
      w->Key("attrs");
      w->StringMap(node.attrs.dict);
    }
    w->Key("inputs");
    w->EntryArray(info.inputs);
    if (!info.control_deps.empty()) {
      w->Key("control_deps");
      w->IntArray(info.control_deps);
    }
    if (!node.attrs.subgraphs.empty()) {
      w->Key("subgraphs");
      w->BeginArray(true);
      for (const SubgraphPtr& sub : node.attrs.subgraphs) {
        w->Item();
        w->BeginObject(true);
        WriteGraph(sub->outputs, w);
        w->EndObject();
      }
      w->EndArray();
    }
    w->EndObject();
  }
  w->EndArray();
  w->Key("arg_nodes");
  w->IntArray(g.input_nodes());
  w->Key("node_row_ptr");
  w->IntArray(g.row_ptr());
  w->Key("heads");
  w->EntryArray(g.outputs());
}

}  // namespace

std::string SaveJson(const std::vector<NodeEntry>& outputs) {
  LayoutWriter w;
  w.BeginObject(true);
  WriteGraph(outputs, &w);
  w.Key("attrs");
  w.BeginObject(false);
  w.Key("mxnet_version");
  w.BeginArray(false);
  w.Item();
  w.String("int");
  w.Item();
  w.Int(kMxnetVersion);
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return w.Take();
}

}  // namespace symx
