// Whole-file reads and writes for the project's file formats (symbol JSON,
// .params, .npy, training data): one place for opening, error messages that
// name the path, and writes that are atomic.
//
// WriteFileBytes never leaves a partly written file at `path`: it writes a
// temporary file in the same folder, flushes it to disk (fsync), renames it
// over `path` and syncs the folder. A process killed at any moment leaves
// either the previous file or the new one, never a mix; at worst a stray
// `PATH.tmp.*` file remains next to it. A file that exists keeps its
// permissions; a symlink is written through (its target is replaced).
// Thread-safe.
#ifndef SYMX_GRAPH_FILE_IO_H_
#define SYMX_GRAPH_FILE_IO_H_

#include <cstddef>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace symx {

// The file's bytes. NotFound "cannot open PATH: <reason>" ("PATH is a
// directory, not a file" for a directory) or DataLoss "cannot read PATH:
// <reason>".
absl::StatusOr<std::string> ReadFileBytes(const std::string& path);

// Receives the bytes to write, in order.
using ByteSink = std::function<void(const void* data, size_t size)>;

// Replaces `path` atomically with what `produce` writes through the sink.
// PermissionDenied "cannot open PATH for writing: <reason>" or DataLoss
// "cannot write PATH: <reason>"; on any error `path` is left as it was and
// the temporary file is removed.
absl::Status WriteFileBytes(const std::string& path,
                            const std::function<void(const ByteSink&)>& produce);

}  // namespace symx

#endif  // SYMX_GRAPH_FILE_IO_H_
