// Reading and writing numpy's .npy files (one array per file).
//
// Read: format versions 1.0 and 2.0 (u16 / u32 header length) and 3.0 (u32,
// UTF-8 header: parsed like 2.0, since every header field symx accepts is
// ASCII). The header is a Python dict literal with exactly the keys 'descr',
// 'fortran_order' and 'shape' (Python 2's "3L" integers are accepted).
// Supported descr: f2 f4 f8 u1 i1 i2 u2 i4 u4 i8 u8 b1 with byte order '<'
// or '=' ('|' for one-byte types); big-endian '>' data is byte-swapped on
// load. Anything else (structured, complex, strings, objects, datetime) is an
// error naming the descr. fortran_order True is an error unless the array has
// at most one dim (then both orders are the same bytes). The data must be
// exactly shape.Size() elements: a short file and trailing bytes are both
// errors (numpy itself ignores trailing bytes). Sizes are checked before
// anything is allocated. Bool bytes are normalized to 0/1. Every error names
// the file. The tensor loads onto cpu(0).
//
// Write: version 1.0 (2.0 when the header would not fit a u16), little-endian
// descr, C order, the header laid out byte for byte as current numpy writes it
// (growth spare after the dict, space padding to a multiple of 64, then '\n').
// bfloat16 has no numpy dtype and is an error, as is an undefined tensor.
#ifndef SYMX_DEVICES_NPY_H_
#define SYMX_DEVICES_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "devices/tensor.h"

namespace symx {

absl::StatusOr<Tensor> LoadNpy(const std::string& path);
// `source_name` is used in error messages (usually the file name).
absl::StatusOr<Tensor> LoadNpyFromBuffer(absl::string_view bytes, absl::string_view source_name);

absl::Status SaveNpy(const std::string& path, const Tensor& tensor);
absl::StatusOr<std::string> SaveNpyToString(const Tensor& tensor);

}  // namespace symx

#endif  // SYMX_DEVICES_NPY_H_
