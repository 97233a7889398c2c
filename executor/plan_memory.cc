#include "executor/plan_memory.h"

#include <algorithm>
#include <iterator>
#include <map>

#include "graph/op.h"

namespace symx {
namespace {

size_t EntryBytes(const Shape& shape, DType dtype) {
  return static_cast<size_t>(shape.Size()) * DTypeSize(dtype);
}

// Free blocks keyed by size; a block's size grows when a larger request
// takes it.
class BlockPool {
 public:
  explicit BlockPool(int match_range) : range_(match_range) {}

  int Request(size_t bytes, std::vector<size_t>* sizes) {
    if (range_ > 0 && !free_.empty()) {
      // Smallest free block in [bytes, bytes * R).
      auto lo = free_.lower_bound(bytes);
      if (lo != free_.end() && lo->first < bytes * static_cast<size_t>(range_)) {
        int id = lo->second;
        free_.erase(lo);
        return id;
      }
      // Else the largest free block in [bytes / R, bytes), grown to fit.
      auto hi = free_.lower_bound(bytes);
      if (hi != free_.begin()) {
        auto prev = std::prev(hi);
        if (prev->first >= bytes / static_cast<size_t>(range_)) {
          int id = prev->second;
          free_.erase(prev);
          (*sizes)[id] = std::max((*sizes)[id], bytes);
          return id;
        }
      }
    }
    sizes->push_back(bytes);
    return static_cast<int>(sizes->size()) - 1;
  }

  void Release(int id, const std::vector<size_t>& sizes) {
    if (range_ > 0) free_.emplace(sizes[id], id);
  }

 private:
  int range_;
  std::multimap<size_t, int> free_;
};

}  // namespace

MemoryPlan PlanMemory(const IndexedGraph& graph, const ShapeTable& shapes, const TypeTable& types,
                      const MemoryPlanOptions& options) {
  const size_t num_entries = graph.num_entries();
  MemoryPlan plan;
  plan.storage_id.assign(num_entries, MemoryPlan::kExternal);
  plan.inplace_from.assign(num_entries, -1);

  // Readers still to run, per entry; kept entries never reach zero.
  std::vector<int> refs(num_entries, 0);
  for (uint32_t nid : options.order) {
    for (const auto& in : graph[nid].inputs) ++refs[graph.entry_id(in)];
  }
  for (size_t e = 0; e < num_entries; ++e) {
    if (options.keep[e]) ++refs[e];
  }
  // Blocks shared by several entries (in place) are freed when the last goes.
  std::vector<int> block_users;
  BlockPool pool(options.match_range);

  auto planned = [&](uint32_t e) { return plan.storage_id[e] != MemoryPlan::kExternal; };
  auto release_entry = [&](uint32_t e) {
    int id = plan.storage_id[e];
    if (--block_users[id] == 0) pool.Release(id, plan.storage_bytes);
  };

  for (uint32_t nid : options.order) {
    const auto& info = graph[nid];
    const Node& node = *info.node;
    const uint32_t first_out = graph.entry_id(nid, 0);
    const int num_out = node.num_outputs();
    std::vector<bool> input_taken(info.inputs.size(), false);

    if (options.allow_inplace && node.op()->inplace()) {
      std::vector<int> aux = node.op()->AuxInputs(node.attrs);
      for (const auto& [in, out] : node.op()->inplace()(node.attrs)) {
        if (in >= static_cast<int>(info.inputs.size()) || out >= num_out) continue;
        if (std::find(aux.begin(), aux.end(), in) != aux.end()) continue;
        const uint32_t ie = graph.entry_id(info.inputs[in]);
        const uint32_t oe = first_out + out;
        if (input_taken[in] || options.external[oe] || planned(oe) || !planned(ie)) continue;
        if (refs[ie] != 1 || block_users[plan.storage_id[ie]] != 1) continue;
        // The same input must not feed this node twice (x * x would read it after writing).
        int uses = 0;
        for (const auto& other : info.inputs) uses += graph.entry_id(other) == ie;
        if (uses != 1) continue;
        if (EntryBytes(shapes[ie], types[ie]) != EntryBytes(shapes[oe], types[oe]) ||
            DTypeSize(types[ie]) != DTypeSize(types[oe])) {
          continue;
        }
        input_taken[in] = true;
        plan.storage_id[oe] = plan.storage_id[ie];
        plan.inplace_from[oe] = ie;
        ++block_users[plan.storage_id[ie]];
        plan.no_reuse_bytes += EntryBytes(shapes[oe], types[oe]);
      }
    }
    // Remaining outputs, largest first.
    std::vector<uint32_t> outs;
    for (int j = 0; j < num_out; ++j) {
      uint32_t oe = first_out + j;
      if (!options.external[oe] && !planned(oe)) outs.push_back(oe);
    }
    std::stable_sort(outs.begin(), outs.end(), [&](uint32_t a, uint32_t b) {
      return EntryBytes(shapes[a], types[a]) > EntryBytes(shapes[b], types[b]);
    });
    for (uint32_t oe : outs) {
      size_t bytes = EntryBytes(shapes[oe], types[oe]);
      int id = pool.Request(bytes, &plan.storage_bytes);
      if (static_cast<size_t>(id) >= block_users.size()) block_users.resize(id + 1, 0);
      plan.storage_id[oe] = id;
      ++block_users[id];
      plan.no_reuse_bytes += bytes;
    }
    // Inputs whose last reader this was.
    for (const auto& in : info.inputs) {
      uint32_t ie = graph.entry_id(in);
      if (--refs[ie] == 0 && planned(ie)) release_entry(ie);
    }
    // Outputs nobody reads are free at once.
    for (int j = 0; j < num_out; ++j) {
      uint32_t oe = first_out + j;
      if (refs[oe] == 0 && planned(oe)) release_entry(oe);
    }
  }
  for (size_t b : plan.storage_bytes) plan.total_bytes += b;
  return plan;
}

}  // namespace symx
