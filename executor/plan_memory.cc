#include "executor/plan_memory.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <utility>

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

namespace {

MemoryPlan PlanWithRange(const IndexedGraph& graph, const ShapeTable& shapes,
                         const TypeTable& types, const MemoryPlanOptions& options,
                         int match_range) {
  const size_t num_entries = graph.num_entries();
  MemoryPlan plan;
  plan.storage_id.assign(num_entries, MemoryPlan::kExternal);
  plan.storage_offset.assign(num_entries, 0);
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
  BlockPool pool(match_range);

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

// Entries placed at byte offsets of one block by lifetime: `blocks`' in-place
// pairs are kept (an entry and the ones written over it are one buffer,
// live from the first's producer to the last reader of any), and buffers are
// placed largest first, each at the offset of the tightest gap between the
// buffers already placed whose lifetimes overlap its own, else on top.
MemoryPlan PackByLifetime(const IndexedGraph& graph, const ShapeTable& shapes,
                          const TypeTable& types, const MemoryPlanOptions& options,
                          const MemoryPlan& blocks) {
  const size_t num_entries = graph.num_entries();
  const size_t end_of_run = options.order.size();
  std::vector<size_t> pos(graph.num_nodes(), end_of_run);
  for (size_t i = 0; i < options.order.size(); ++i) pos[options.order[i]] = i;
  // Per entry: its buffer (the root of its in-place chain).
  std::vector<int64_t> root(num_entries, -1);
  struct Buffer {
    size_t bytes = 0, first = 0, last = 0, offset = 0;
  };
  std::vector<Buffer> buffers;
  std::vector<int64_t> buffer_of(num_entries, -1);
  for (uint32_t nid : options.order) {
    for (int j = 0; j < graph[nid].node->num_outputs(); ++j) {
      const uint32_t e = graph.entry_id(nid, j);
      if (blocks.storage_id[e] == MemoryPlan::kExternal) continue;
      const int64_t from = blocks.inplace_from[e];
      if (from >= 0 && buffer_of[from] >= 0) {
        buffer_of[e] = buffer_of[from];
      } else {
        buffer_of[e] = static_cast<int64_t>(buffers.size());
        buffers.push_back({0, pos[nid], pos[nid], 0});
      }
      Buffer& b = buffers[buffer_of[e]];
      // 64-byte multiples keep every offset as aligned as a block.
      b.bytes = std::max(b.bytes, (EntryBytes(shapes[e], types[e]) + 63) / 64 * 64);
      if (options.keep[e]) b.last = end_of_run;
    }
    for (const auto& in : graph[nid].inputs) {
      const int64_t b = buffer_of[graph.entry_id(in)];
      if (b >= 0) buffers[b].last = std::max(buffers[b].last, pos[nid]);
    }
  }
  std::vector<size_t> by_size(buffers.size());
  for (size_t i = 0; i < by_size.size(); ++i) by_size[i] = i;
  std::stable_sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) {
    return buffers[a].bytes != buffers[b].bytes ? buffers[a].bytes > buffers[b].bytes
                                                : buffers[a].first < buffers[b].first;
  });
  std::vector<size_t> placed;
  size_t total = 0;
  for (size_t i : by_size) {
    Buffer& b = buffers[i];
    std::vector<std::pair<size_t, size_t>> taken;  // [offset, end) of overlapping buffers
    for (size_t j : placed) {
      const Buffer& o = buffers[j];
      if (o.first <= b.last && b.first <= o.last) taken.emplace_back(o.offset, o.offset + o.bytes);
    }
    std::sort(taken.begin(), taken.end());
    size_t best = SIZE_MAX, best_gap = SIZE_MAX, top = 0;
    for (const auto& [begin, end] : taken) {
      if (begin > top && begin - top >= b.bytes && begin - top < best_gap) {
        best = top;
        best_gap = begin - top;
      }
      top = std::max(top, end);
    }
    b.offset = best != SIZE_MAX ? best : top;
    total = std::max(total, b.offset + b.bytes);
    placed.push_back(i);
  }
  MemoryPlan plan;
  plan.storage_id.assign(num_entries, MemoryPlan::kExternal);
  plan.storage_offset.assign(num_entries, 0);
  plan.inplace_from = blocks.inplace_from;
  plan.no_reuse_bytes = blocks.no_reuse_bytes;
  for (size_t e = 0; e < num_entries; ++e) {
    if (buffer_of[e] < 0) continue;
    plan.storage_id[e] = 0;
    plan.storage_offset[e] = buffers[buffer_of[e]].offset;
  }
  if (!buffers.empty()) plan.storage_bytes.push_back(total);
  plan.total_bytes = total;
  return plan;
}

// Bytes `plan` allocates beside the pool's blocks.
size_t NewBytes(const MemoryPlan& plan, const std::vector<size_t>& pool_blocks) {
  const std::vector<int> match = MatchPoolBlocks(plan.storage_bytes, pool_blocks);
  size_t bytes = 0;
  for (size_t i = 0; i < match.size(); ++i) {
    if (match[i] < 0) bytes += plan.storage_bytes[i];
  }
  return bytes;
}

}  // namespace

std::vector<int> MatchPoolBlocks(const std::vector<size_t>& plan_blocks,
                                 const std::vector<size_t>& pool_blocks) {
  std::vector<size_t> by_size(plan_blocks.size());
  for (size_t i = 0; i < by_size.size(); ++i) by_size[i] = i;
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](size_t a, size_t b) { return plan_blocks[a] > plan_blocks[b]; });
  std::vector<int> match(plan_blocks.size(), -1);
  std::vector<bool> used(pool_blocks.size(), false);
  for (size_t id : by_size) {
    int best = -1;
    for (size_t p = 0; p < pool_blocks.size(); ++p) {
      if (used[p] || pool_blocks[p] < plan_blocks[id]) continue;
      if (best < 0 || pool_blocks[p] < pool_blocks[best]) best = static_cast<int>(p);
    }
    if (best >= 0) used[best] = true;
    match[id] = best;
  }
  return match;
}

MemoryPlan PlanMemory(const IndexedGraph& graph, const ShapeTable& shapes, const TypeTable& types,
                      const MemoryPlanOptions& options) {
  MemoryPlan first = PlanWithRange(graph, shapes, types, options, options.match_range);
  if (options.match_range <= 0) return first;
  // Which plan packs best depends on the graph's sizes: blocks with every
  // power-of-two match range up to the given one, and one block packed by
  // lifetime (each is a pass or two over the graph). The fewest bytes beside
  // a shared pool's blocks wins, then the smallest total.
  std::vector<MemoryPlan> candidates;
  candidates.push_back(PackByLifetime(graph, shapes, types, options, first));
  candidates.push_back(std::move(first));
  for (int range = 1; range < options.match_range; range *= 2) {
    candidates.push_back(PlanWithRange(graph, shapes, types, options, range));
  }
  size_t best = 0, best_new = SIZE_MAX;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const size_t fresh = NewBytes(candidates[i], options.pool_blocks);
    if (fresh < best_new ||
        (fresh == best_new && candidates[i].total_bytes < candidates[best].total_bytes)) {
      best = i;
      best_new = fresh;
    }
  }
  return std::move(candidates[best]);
}

}  // namespace symx
