// _histogram's bin rules (graph/ops/statistics.cc), for host and device code:
// values and edges are compared as doubles (exact for every dtype the op
// takes), edges being the values stored in the data's dtype.
#ifndef SYMX_DEVICES_GEOMETRY_HISTOGRAM_BINS_H_
#define SYMX_DEVICES_GEOMETRY_HISTOGRAM_BINS_H_

#include <cstdint>

#include "devices/host_device.h"

namespace symx {

// Edge i of `cnt` equal bins over [lo, hi], before the cast to the dtype.
SYMX_HOST_DEVICE inline double UniformEdge(int64_t i, int64_t cnt, double lo, double hi) {
  return (hi * static_cast<double>(i) + static_cast<double>(cnt - i) * lo) /
         static_cast<double>(cnt);
}

// The bin of v among `cnt` equal bins over [lo, hi] (-1: not counted): the
// arithmetic guess, corrected by one against the stored edges (edge(i) is
// edge i as stored), so a value equal to a rounded edge lands where the
// edges say, as in MXNet. The last bin includes hi.
template <typename Edge>
SYMX_HOST_DEVICE inline int64_t UniformBin(double v, int64_t cnt, double lo, double hi,
                                           const Edge& edge) {
  if (!(v >= lo && v <= hi)) return -1;
  int64_t t = static_cast<int64_t>((v - lo) * static_cast<double>(cnt) / (hi - lo));
  if (t > cnt - 1) t = cnt - 1;
  if (v < edge(t)) t -= 1;
  if (v >= edge(t + 1) && t != cnt - 1) t += 1;
  return t;
}

// The bin of v among the `nbins` bins between nbins + 1 given edges (-1: not
// counted): one past the last edge <= v, scanning from the first as MXNet
// does (so unsorted edges give MXNet's answer too); the last bin includes the
// last edge.
template <typename Edge>
SYMX_HOST_DEVICE inline int64_t EdgeBin(double v, int64_t nbins, const Edge& edge) {
  if (!(v >= edge(0) && v <= edge(nbins))) return -1;
  int64_t t = 0;
  while (t <= nbins && v >= edge(t)) ++t;
  t -= 1;
  return t < nbins - 1 ? t : nbins - 1;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_HISTOGRAM_BINS_H_
