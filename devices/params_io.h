// Reading and writing MXNet's NDArray list files (`.params`, `mx.nd.save`).
//
// File layout (little-endian): u64 0x112, u64 reserved, u64 N, N records,
// u64 K, K x (u64 length, bytes). K is 0 (a list file) or N (a dict file).
//
// Records read (the field layout follows MXNet's NDArray::Save/Load and
// NDArray::LegacyLoad in src/ndarray/ndarray.cc):
//   V3  0xF993FACA  np-shape record: ndim -1 or any dim -1 means a none array,
//                   ndim 0 is a 0-d (scalar) array, a dim of 0 is zero-size.
//                   MXNet reads these only under np-shape; symx reads them
//                   anywhere, dense only (as MXNet writes them).
//   V2  0xF993FAC9  stype, [storage shape], shape, context, type flag,
//                   [aux types and shapes], data, [aux data].
//   V1  0xF993FAC8  like V2 without the stype (always dense).
//   pre-V1 (no magic): the first u32 is ndim (at most 32 is accepted), then
//                   ndim u32 dims; context, type flag and data follow as in V1.
//                   This is MXNet's NDArray::LegacyLoad.
// In V2, V1 and pre-V1 records ndim 0 (MXNet's legacy "unknown shape") and
// ndim -1 (how MXNet >= 1.5 writes a none array) both mean a none array, which
// loads as an undefined Tensor. A dim of 0 there loads as zero-size.
//
// Sparse V2 records (row_sparse = 1, csr = 2) are densified on load: symx has
// no sparse tensors. row_sparse copies each stored row to the row its index
// names; csr scatters data[j] to (row, idx[j]) for j in [indptr[row],
// indptr[row+1]). Indices must be integers in range; indptr must start at 0,
// never decrease and end at nnz (an all-zero csr may have an empty indptr).
//
// Every type flag 0..12 is read; float16 and bfloat16 keep their 16-bit
// storage. Bool bytes are normalized to 0/1. The saved context is ignored:
// every tensor loads onto cpu(0).
//
// Strictness: nothing is half-loaded; any truncated or corrupt file, unknown
// magic, stype, dev_type or type flag, negative dim, dims whose product
// overflows, data larger than what is left of the file, a K other than 0 or N,
// and trailing bytes after the keys are errors. Every message starts with the
// file name and, inside a record, "record I" (plus the key when the key table
// could be read): "w.params: record 3 (arg:fc1_weight): ...". The reserved u64
// of the header is ignored, as MXNet does.
//
// Writing: always V2 dense records with context cpu(0) (dev_type 1, dev_id 0);
// an undefined Tensor is written as a none record (stype -1, ndim 0). A 0-d
// tensor cannot be written in V2 (ndim 0 means none there): that is an error
// unless SaveParamsOptions::np_shape asks for V3 records (MXNet then reads the
// file only under np-shape; none arrays are written as ndim -1).
#ifndef SYMX_DEVICES_PARAMS_IO_H_
#define SYMX_DEVICES_PARAMS_IO_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "devices/tensor.h"

namespace symx {

// The contents of a .params file: `names` is empty for a list file, otherwise
// it holds one key per tensor, in file order. Tensors may be undefined (none).
struct NamedTensors {
  std::vector<std::string> names;
  std::vector<Tensor> tensors;

  bool is_dict() const { return !names.empty(); }
};

struct LoadParamsOptions {
  // Cap on the bytes of one densified sparse record: a few bytes of sparse
  // header can describe an enormous dense array, so this keeps a hostile file
  // from allocating without bound. 0 = no cap. Dense records need no cap: their
  // data must be present in the file.
  size_t max_densified_bytes = size_t{16} << 30;
};

struct SaveParamsOptions {
  // Write V3 (np-shape) records instead of V2; needed for 0-d tensors.
  bool np_shape = false;
};

absl::StatusOr<NamedTensors> LoadParams(const std::string& path,
                                        const LoadParamsOptions& options = {});
// `source_name` is used in error messages (usually the file name).
absl::StatusOr<NamedTensors> LoadParamsFromBuffer(absl::string_view bytes,
                                                  absl::string_view source_name,
                                                  const LoadParamsOptions& options = {});

// Errors: names given but not one per tensor, a 0-d tensor without np_shape,
// a dtype without a type flag, a file that cannot be written.
absl::Status SaveParams(const std::string& path, const NamedTensors& params,
                        const SaveParamsOptions& options = {});
absl::StatusOr<std::string> SaveParamsToString(const NamedTensors& params,
                                               const SaveParamsOptions& options = {});

// Checkpoint helpers. Keys are split at their first ':'; the prefix must be
// "arg" or "aux" (anything else, a list file, or a key seen twice is an error
// naming the key), as MXNet's load_checkpoint requires.
struct ArgAuxParams {
  std::map<std::string, Tensor> arg;
  std::map<std::string, Tensor> aux;
};
absl::StatusOr<ArgAuxParams> SplitArgAux(const NamedTensors& params);
// "arg:<name>" for every arg (map order) followed by "aux:<name>" for every aux.
NamedTensors MakeCheckpointParams(const std::map<std::string, Tensor>& arg,
                                  const std::map<std::string, Tensor>& aux);

// The on-disk magic numbers.
inline constexpr uint64_t kParamsFileMagic = 0x112;
inline constexpr uint32_t kNDArrayV1Magic = 0xF993FAC8;
inline constexpr uint32_t kNDArrayV2Magic = 0xF993FAC9;
inline constexpr uint32_t kNDArrayV3Magic = 0xF993FACA;

}  // namespace symx

#endif  // SYMX_DEVICES_PARAMS_IO_H_
