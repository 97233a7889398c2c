#include "devices/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"

namespace symx {
namespace {

struct FileCloser {
  void operator()(FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};

}  // namespace

absl::StatusOr<std::string> ReadFileBytes(const std::string& path) {
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (f == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  std::string bytes;
  char chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), f.get())) > 0) bytes.append(chunk, got);
  if (std::ferror(f.get())) {
    return absl::DataLossError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  return bytes;
}

absl::Status WriteFileBytes(const std::string& path,
                            const std::function<void(const ByteSink&)>& produce) {
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "wb"));
  if (f == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open ", path, " for writing: ", std::strerror(errno)));
  }
  bool ok = true;
  int err = 0;
  produce([&](const void* data, size_t size) {
    if (ok && std::fwrite(data, 1, size, f.get()) != size) {
      ok = false;
      err = errno;
    }
  });
  if (std::fclose(f.release()) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    std::remove(path.c_str());
    return absl::DataLossError(absl::StrCat("cannot write ", path, ": ", std::strerror(err)));
  }
  return absl::OkStatus();
}

}  // namespace symx
