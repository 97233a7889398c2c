// Where the sequence family's kernels (SequenceMask, SequenceLast,
// SequenceReverse; schema in graph/ops/sequence.cc) find a step, and how a
// sequence_length value becomes a step count: plain C++ for host and device
// alike (compiled by nvcc into the GPU kernels too), so both devices read
// lengths and lay out steps the same way.
#ifndef SYMX_DEVICES_GEOMETRY_SEQUENCE_INDEX_H_
#define SYMX_DEVICES_GEOMETRY_SEQUENCE_INDEX_H_

#include <cstdint>
#ifndef __CUDACC__
#include <string>
#include <vector>
#endif

#include "devices/geometry/index_position.h"
#include "devices/host_device.h"

namespace symx {

// Data seen as (steps, batch, rest) for axis 0 or (batch, steps, rest) for
// axis 1; rest is the product of the dims after the first two.
struct SequenceDims {
  int64_t steps = 0, batch = 0, rest = 1;
  int axis = 0;
};

// The first element of step t of batch entry b.
SYMX_HOST_DEVICE inline int64_t StepOffset(const SequenceDims& d, int64_t t, int64_t b) {
  return (d.axis == 0 ? t * d.batch + b : b * d.steps + t) * d.rest;
}

// (step, batch entry) of element i.
SYMX_HOST_DEVICE inline void StepOf(const SequenceDims& d, int64_t i, int64_t* t, int64_t* b) {
  const int64_t row = i / d.rest;
  if (d.axis == 0) {
    *t = row / d.batch;
    *b = row % d.batch;
  } else {
    *b = row / d.steps;
    *t = row % d.steps;
  }
}

// SequenceMask's and SequenceReverse's step count from a length value:
// truncated toward zero and clamped to [0, steps]; NaN reads 0.
SYMX_HOST_DEVICE inline int64_t ClampedLength(double v, int64_t steps) {
  if (!(v > 0)) return 0;
  if (v >= static_cast<double>(steps)) return steps;
  return static_cast<int64_t>(v);
}

// SequenceLast's last step from a length value (truncated toward zero), or
// -1 when it is outside [1, steps] or NaN.
SYMX_HOST_DEVICE inline int64_t LastStep(double v, int64_t steps) {
  if (!(v >= 1 && v < static_cast<double>(steps) + 1)) return -1;
  return static_cast<int64_t>(v) - 1;
}

// SequenceReverse: the source step of output step t for a sequence of
// `length` steps (the first `length` reversed, the rest in place).
SYMX_HOST_DEVICE inline int64_t ReversedStep(int64_t t, int64_t length) {
  return t < length ? length - 1 - t : t;
}

#ifndef __CUDACC__
// The view of data with `dims` (2 or more) for time axis `axis`.
inline SequenceDims SequenceDimsOf(const std::vector<int64_t>& dims, int axis) {
  SequenceDims d;
  d.axis = axis;
  d.steps = dims[axis];
  d.batch = dims[1 - axis];
  for (size_t i = 2; i < dims.size(); ++i) d.rest *= dims[i];
  return d;
}

// SequenceLast's error for the first length outside [1, steps] (read on the
// host on either device), or "" when every length is in range.
inline std::string LastLengthError(const std::vector<double>& lengths, int64_t steps) {
  for (size_t b = 0; b < lengths.size(); ++b) {
    if (LastStep(lengths[b], steps) < 0) {
      return "sequence_length[" + std::to_string(b) + "] = " + FormatIndexValue(lengths[b]) +
             " is outside [1, " + std::to_string(steps) + "], the data's time steps";
    }
  }
  return "";
}
#endif

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_SEQUENCE_INDEX_H_
