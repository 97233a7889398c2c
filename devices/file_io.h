// Whole-file reads and writes for the file formats in devices/ (.params,
// .npy): one place for opening, error messages that name the path, and not
// leaving a partly written file behind.
#ifndef SYMX_DEVICES_FILE_IO_H_
#define SYMX_DEVICES_FILE_IO_H_

#include <cstddef>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace symx {

// The file's bytes. NotFound "cannot open PATH: <reason>" or DataLoss
// "cannot read PATH: <reason>".
absl::StatusOr<std::string> ReadFileBytes(const std::string& path);

// Receives the bytes to write, in order.
using ByteSink = std::function<void(const void* data, size_t size)>;

// Creates (or truncates) `path` and lets `produce` write through the sink.
// PermissionDenied "cannot open PATH for writing: <reason>" or DataLoss
// "cannot write PATH: <reason>"; after a failed write the file is removed.
absl::Status WriteFileBytes(const std::string& path,
                            const std::function<void(const ByteSink&)>& produce);

}  // namespace symx

#endif  // SYMX_DEVICES_FILE_IO_H_
