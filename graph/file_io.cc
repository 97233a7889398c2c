#include "graph/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
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

std::string Reason(int err) { return std::strerror(err); }

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Opens a fresh temporary file next to `path`. O_EXCL with a name unique to
// this process and call; the kernel applies the umask to 0666 as for any new
// file (mkstemp would make it 0600).
int OpenTemporary(const std::string& path, std::string* tmp) {
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    *tmp = absl::StrCat(path, ".tmp.", getpid(), ".", counter.fetch_add(1));
    int fd = ::open(tmp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

absl::StatusOr<std::string> ReadFileBytes(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::NotFoundError(
        absl::StrCat("cannot open ", path, ": it is a directory, not a file"));
  }
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (f == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", Reason(errno)));
  }
  std::string bytes;
  char chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), f.get())) > 0) bytes.append(chunk, got);
  if (std::ferror(f.get())) {
    return absl::DataLossError(absl::StrCat("cannot read ", path, ": ", Reason(errno)));
  }
  return bytes;
}

absl::Status WriteFileBytes(const std::string& path,
                            const std::function<void(const ByteSink&)>& produce) {
  // A symlink is written through, as a plain write would: its target is
  // what gets replaced.
  std::string target = path;
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      target = real;
      std::free(real);
    }
  }
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open ", path, " for writing: it is a directory"));
  }
  std::string tmp;
  int fd = OpenTemporary(target, &tmp);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open ", path, " for writing: ", Reason(errno)));
  }
  // A file that exists keeps its permissions (a private checkpoint stays private).
  if (exists) ::fchmod(fd, st.st_mode & 07777);
  std::unique_ptr<FILE, FileCloser> f(::fdopen(fd, "wb"));
  if (f == nullptr) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open ", path, " for writing: ", Reason(err)));
  }
  bool ok = true;
  int err = 0;
  auto fail = [&](int e) {
    if (ok) {
      ok = false;
      err = e;
    }
  };
  try {
    produce([&](const void* data, size_t size) {
      if (ok && size > 0 && std::fwrite(data, 1, size, f.get()) != size) fail(errno);
    });
  } catch (...) {
    f.reset();
    ::unlink(tmp.c_str());
    throw;
  }
  // The data must be on disk before the rename makes it visible under `path`:
  // otherwise a crash could leave `path` naming an empty or partial file.
  if (ok && std::fflush(f.get()) != 0) fail(errno);
  if (ok && ::fsync(::fileno(f.get())) != 0) fail(errno);
  if (std::fclose(f.release()) != 0) fail(errno);
  if (ok && std::rename(tmp.c_str(), target.c_str()) != 0) fail(errno);
  if (!ok) {
    ::unlink(tmp.c_str());
    return absl::DataLossError(absl::StrCat("cannot write ", path, ": ", Reason(err)));
  }
  // The rename itself is durable once the folder is synced. A folder that
  // cannot be opened or synced (some network file systems) does not undo a
  // completed rename, so this is best effort.
  int dir = ::open(DirectoryOf(target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return absl::OkStatus();
}

}  // namespace symx
