#include "experiments/io/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/error.hpp"

namespace parlab {

void ensure_writable_dir(const std::filesystem::path& dir, const std::string& what) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw UsageError(what + " '" + dir.string() + "' cannot be created: " + (ec ? ec.message() : "not a directory"));
  }
  if (access(dir.c_str(), W_OK) != 0) throw UsageError(what + " '" + dir.string() + "' is not writable");
}

// A file that cannot be written (a full disk, a read-only filesystem, a quota) is the
// environment's error (exit 2), named by the file meant, not the temporary one, which is removed.
void write_atomically(const std::filesystem::path& path, const std::string& text) {
  // pid and a per-process counter: unique among every writer of this directory.
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path tmp =
      path.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  const auto refuse = [&](const std::string& step, int err) {
    throw UsageError("cannot write '" + path.string() + "' (" + step + "): " + std::strerror(err));
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) refuse("create a temporary file beside it", errno);
  const auto fail = [&](const std::string& step, int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    refuse(step, err);
  };
  std::size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write", n < 0 ? errno : ENOSPC);
    off += static_cast<std::size_t>(n);
  }
  // The data is on disk before the rename makes it visible.
  if (::fsync(fd) != 0) fail("flush", errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    refuse("close", err);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    ::unlink(tmp.c_str());
    refuse("rename", ec.value());
  }
}

}  // namespace parlab
