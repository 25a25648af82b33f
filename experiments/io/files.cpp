#include "experiments/io/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/error.hpp"
#include "experiments/io/interrupt.hpp"

namespace parlab {

void ensure_writable_dir(const std::filesystem::path& dir, const std::string& what) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw UsageError(what + " '" + dir.string() + "' cannot be created: " + (ec ? ec.message() : "not a directory"));
  }
  if (access(dir.c_str(), W_OK) != 0) throw UsageError(what + " '" + dir.string() + "' is not writable");
}

std::string host_slug(const std::string& name) {
  std::string out;
  for (const char c : name.substr(0, 64)) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
    out += keep ? c : '_';
  }
  if (out.find_first_not_of('.') == std::string::npos) out = "host" + std::string(out.size(), '_');
  return out;
}

std::filesystem::path make_run_dir(const std::filesystem::path& parent, const std::string& stamp) {
  for (int k = 0; k < 1000; ++k) {
    const std::filesystem::path dir = parent / (k == 0 ? stamp : stamp + "-" + std::to_string(k));
    if (::mkdir(dir.c_str(), 0777) == 0) return dir;
    if (errno != EEXIST) {
      throw UsageError("run directory '" + dir.string() + "' cannot be created: " + std::strerror(errno));
    }
  }
  throw UsageError("no new run directory can be made under '" + parent.string() + "': " + stamp +
                   " and its 999 suffixes are taken");
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
  // Noted before it exists, so a signal that ends the process mid-write removes it.
  const bool noted = note_temporary_file(tmp.string());
  struct Forget {
    bool noted;
    ~Forget() {
      if (noted) forget_temporary_file();
    }
  } forget{noted};
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

std::string point_link(const std::filesystem::path& link, const std::filesystem::path& target) {
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path tmp =
      link.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  std::error_code ec;
  // Messages built by append: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string.
  std::string message = "'";
  message.append(link.string()).append("'");
  if (std::filesystem::exists(link, ec) && !std::filesystem::is_symlink(link, ec)) {
    return message.append(" exists and is not a link; left as it is");
  }
  std::filesystem::create_directory_symlink(target, tmp, ec);
  if (!ec) std::filesystem::rename(tmp, link, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return message.insert(0, "cannot point ").append(" at ").append(target.string()).append(": ").append(ec.message());
  }
  return {};
}

}  // namespace parlab
