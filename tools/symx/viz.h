// `symx viz`: draws a symbol file's forward graph as placed for execution.
//
// The graph is the one SimpleBind would run (executor/place.h PlaceForward):
// with --group2ctx, ops in a ctx_group go to their group's device and the
// _CrossDeviceCopy nodes Partition inserts are drawn too. Output is Graphviz
// DOT: variables are ellipses, ops boxes labelled "name\nop", copies dashed
// hexagons labelled "copy to <ctx>"; every node is filled with its device's
// color (a fixed palette in sorted device order) and a legend lists device ->
// color; each edge is labelled with the shape of the value it carries ("4x5",
// "?" for an unknown dim). When --group2ctx names other ranks' devices
// (`cpu(0)@rank1`), the graph is the job's as rank 0 partitions it: each
// rank's nodes sit in a dashed box "rank R", and every edge between ranks
// goes through a "send to rank R / tag T" and a "recv from rank R / tag T"
// hexagon.
//
// -o FILE.dot writes the DOT text. FILE.svg and FILE.png run Graphviz's `dot`
// (found on PATH, started without a shell) on a temporary DOT file; the output
// appears under FILE only when `dot` succeeds.
#ifndef SYMX_TOOLS_SYMX_VIZ_H_
#define SYMX_TOOLS_SYMX_VIZ_H_

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "devices/context.h"
#include "executor/place.h"
#include "graph/shape.h"

namespace symx::cli {

enum class VizFormat { kDot, kSvg, kPng };

struct VizOptions {
  std::string symbol_path;
  std::map<std::string, Shape> shapes;  // 0 dims are unknown, as in --shape
  Context ctx;
  std::map<std::string, Context> group2ctx;
  std::string output_path;
  VizFormat format = VizFormat::kDot;
};

// The DOT text for a placed graph (nodes in topological order).
std::string PlacedGraphToDot(const std::vector<PlacedNode>& nodes);

// Throws symx::Error on bad input or when Graphviz fails or is missing.
void RunViz(const VizOptions& options, std::ostream& out);

// Entry point from main: parses `args` (after "viz"), returns the exit code.
int VizMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace symx::cli

#endif  // SYMX_TOOLS_SYMX_VIZ_H_
