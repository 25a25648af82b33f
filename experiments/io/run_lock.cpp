#include "experiments/io/run_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "experiments/io/read.hpp"
#include "experiments/io/text.hpp"

namespace parlab {

namespace {

// The pid holding a flock on the file (dev, ino), from /proc/locks ("1: FLOCK ADVISORY WRITE
// 4242 08:01:1234 0 EOF"); 0 when it cannot be told.
long flock_holder(dev_t dev, ino_t ino) {
  std::string text;
  try {
    text = read_regular_file("/proc/locks", "/proc/locks", std::size_t{16} << 20);
  } catch (const UsageError&) {
    return 0;
  }
  std::ostringstream id;
  id << std::hex << major(dev) << ":" << minor(dev) << ":" << std::dec << ino;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string n, type, mode, access, where;
    long pid = 0;
    if (words >> n >> type >> mode >> access >> pid >> where && type == "FLOCK" && where.size() >= id.str().size()) {
      // The device is printed as %02x:%02x; compare the inode part and the numbers, not the padding.
      unsigned maj = 0, min = 0;
      unsigned long long inode = 0;
      if (std::sscanf(where.c_str(), "%x:%x:%llu", &maj, &min, &inode) == 3 && maj == major(dev) &&
          min == minor(dev) && inode == ino) {
        return pid;
      }
    }
  }
  return 0;
}

}  // namespace

RunLock::RunLock(const std::filesystem::path& dir) {
  const std::string where = "run directory '" + valid_utf8(dir.string()) + "'";
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) throw UsageError(where + " cannot be opened: " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  const int err = errno;
  struct stat st {};
  const long holder = ::fstat(fd_, &st) == 0 ? flock_holder(st.st_dev, st.st_ino) : 0;
  ::close(fd_);
  fd_ = -1;
  if (err == EWOULDBLOCK) {
    throw UsageError(where + " is being written by another parlab" +
                     (holder > 0 ? " (pid " + std::to_string(holder) + ")" : std::string()) +
                     "; wait for it to end, then resume the run if it is incomplete");
  }
  throw UsageError(where + " cannot be locked: " + std::strerror(err));
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the lock
}

}  // namespace parlab
