// One writer per run directory (docs/design.md, "Failure semantics"). `parlab run` and
// `parlab run --resume` hold this lock for as long as they write the run; a second writer of the
// same directory is refused at once (UsageError, exit 2) naming the holder's pid. flock(2) on the
// directory itself: the kernel drops the lock when its holder dies, so a crashed run leaves no
// stale lock, and taking it writes nothing into the directory.
#pragma once

#include <filesystem>

namespace parlab {

class RunLock {
 public:
  // Locks the directory `dir`, which must exist.
  explicit RunLock(const std::filesystem::path& dir);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;  // O_CLOEXEC: a child (an MPI job, a peer) never inherits the lock
};

}  // namespace parlab
