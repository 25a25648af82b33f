#include "experiments/io/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "experiments/io/text.hpp"

extern char** environ;

namespace parlab {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kTailBytes = 4096;

// A pipe whose two ends are closed when it goes out of scope (RAII: no descriptor leaks on any
// path out of run_child).
class Pipe {
 public:
  Pipe() {
    if (::pipe2(fds_, O_CLOEXEC) != 0) throw FailureError(std::string("pipe: ") + std::strerror(errno));
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int read_end() const { return fds_[0]; }
  int write_end() const { return fds_[1]; }
  void close_read() { close_fd(fds_[0]); }
  void close_write() { close_fd(fds_[1]); }

 private:
  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  int fds_[2] = {-1, -1};
};

// One of posix_spawn's C objects (its attributes, its file actions), destroyed on every path.
template <class T, int (*Init)(T*), int (*Destroy)(T*)>
class SpawnObject {
 public:
  SpawnObject() { Init(&a_); }
  ~SpawnObject() { Destroy(&a_); }
  SpawnObject(const SpawnObject&) = delete;
  SpawnObject& operator=(const SpawnObject&) = delete;
  T* get() { return &a_; }

 private:
  T a_;
};
using SpawnAttr = SpawnObject<posix_spawnattr_t, posix_spawnattr_init, posix_spawnattr_destroy>;
using FileActions =
    SpawnObject<posix_spawn_file_actions_t, posix_spawn_file_actions_init, posix_spawn_file_actions_destroy>;

std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& set_env) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    bool replaced = false;
    for (const auto& [name, value] : set_env) replaced = replaced || entry.rfind(name + "=", 0) == 0;
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [name, value] : set_env) env.push_back(name + "=" + value);
  return env;
}

void write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // our stderr is gone: the tail is still kept
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGPIPE: return "SIGPIPE";
    default: return nullptr;
  }
}

// Pointers into `strings` for a C argv or envp, ending in nullptr; valid while `strings` lives.
std::vector<char*> c_pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// Starts argv with its stderr (and stdout when captured) going into the pipes, whose write ends
// are closed here. Returns the child's pid, or 0 with r.start_error set when it could not start.
pid_t spawn_child(const std::vector<std::string>& argv, const SpawnOptions& options, Pipe& out_pipe, Pipe& err_pipe,
                  ChildOutput& r) {
  std::vector<std::string> env_strings = child_environment(options.set_env);
  std::vector<std::string> argv_copy = argv;
  std::vector<char*> envp = c_pointers(env_strings);
  std::vector<char*> args = c_pointers(argv_copy);
  FileActions actions;
  if (options.capture_stdout) posix_spawn_file_actions_adddup2(actions.get(), out_pipe.write_end(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(actions.get(), err_pipe.write_end(), STDERR_FILENO);
  // A child of a background process group that reads the terminal is stopped (SIGTTIN) and would
  // hang the run: mpirun forwards its stdin to rank 0. Such a child reads nothing instead.
  if (options.own_process_group) posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  SpawnAttr attr;
  // parlab ignores SIGPIPE (cli/main.cpp); a child gets the default back, as from a shell.
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(attr.get(), &defaults);
  short flags = POSIX_SPAWN_SETSIGDEF;
  if (options.own_process_group) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(attr.get(), 0);  // a new group whose id is the child's pid
  }
  posix_spawnattr_setflags(attr.get(), flags);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], actions.get(), attr.get(), args.data(), envp.data());
  out_pipe.close_write();
  err_pipe.close_write();
  if (rc != 0) {
    r.start_error = valid_utf8(argv[0]) + ": " + std::strerror(rc);
    return 0;
  }
  if (!options.capture_stdout) out_pipe.close_read();
  return pid;
}

// The time limit and this process's interruption for one running child, checked while reading
// and while reaping (a child that closed its pipes may still run), and the end of its process
// group once it has exited.
class ChildWatch {
 public:
  ChildWatch(pid_t pid, const SpawnOptions& options, ChildOutput& r)
      : pid_(pid), options_(options), r_(r), target_(options.own_process_group ? -pid : pid) {}

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  // Whether SIGKILL went out over two seconds ago: the pipes are then held by something else.
  bool kill_overdue() const { return sent_kill_ && elapsed() > kill_at_ + 2.0; }

  void check() {
    const double t = elapsed();
    if (!r_.timed_out && !r_.interrupted && options_.timeout_s > 0 && t > options_.timeout_s) {
      r_.timed_out = true;
      ::kill(target_, SIGTERM);
      kill_at_ = t + options_.term_grace_s;
    }
    if (!r_.timed_out && !r_.interrupted && options_.interrupted != nullptr && options_.interrupted->load()) {
      r_.interrupted = true;
      ::kill(target_, SIGINT);
      kill_at_ = t + options_.interrupt_grace_s;
    }
    if (kill_at_ >= 0 && t > kill_at_ && !sent_kill_) {
      sent_kill_ = true;
      ::kill(target_, SIGKILL);
    }
  }

  // The child killed now, its group with it: it wrote more than this process keeps.
  void kill_now() {
    if (sent_kill_) return;
    sent_kill_ = true;
    kill_at_ = elapsed();
    ::kill(target_, SIGKILL);
  }

  // Whether the child has exited (not yet reaped), noting when it was first seen so.
  bool child_exited() {
    if (exited_at_ >= 0) return true;
    siginfo_t info{};
    // WNOWAIT: look without reaping, so the group id stays the child's until it is reaped.
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_) {
      exited_at_ = elapsed();
    }
    return exited_at_ >= 0;
  }

  // after_exit_s: whether the child exited longer ago than that, so the pipes are no longer read.
  bool read_grace_over() {
    return options_.after_exit_s >= 0 && child_exited() && elapsed() > exited_at_ + options_.after_exit_s;
  }

  // own_process_group: once the child has exited, what is left of its group is killed.
  void end_group_if_child_exited() {
    if (!options_.own_process_group || group_ended_) return;
    if (child_exited()) {
      group_ended_ = true;
      ::kill(-pid_, SIGKILL);
    }
  }

 private:
  const pid_t pid_;
  const SpawnOptions& options_;
  ChildOutput& r_;
  // The child alone, or its whole process group (own_process_group; the child leads it, and
  // until it is reaped its pid cannot name another group).
  const pid_t target_;
  const Clock::time_point start_ = Clock::now();
  double kill_at_ = -1;  // when a stopped child that has not ended gets SIGKILL
  bool sent_kill_ = false;
  bool group_ended_ = false;
  double exited_at_ = -1;  // when the child was first seen exited
};

// Reads both pipes as data arrives (one blocking read could deadlock against a child filling
// the other): stdout into r.out, stderr on to ours. Returns the last of stderr, at least
// kTailBytes of it.
std::string read_child_output(Pipe& out_pipe, Pipe& err_pipe, const SpawnOptions& options, ChildWatch& watch,
                              ChildOutput& r) {
  const bool capture_stdout = options.capture_stdout;
  std::string err_all;
  Utf8Stream passed_on;  // the child's stderr, passed on to ours as valid UTF-8
  char buf[65536];
  int open_fds = capture_stdout ? 2 : 1;
  while (open_fds > 0) {
    pollfd fds[2];
    nfds_t n = 0;
    if (out_pipe.read_end() >= 0) fds[n++] = {out_pipe.read_end(), POLLIN, 0};
    if (err_pipe.read_end() >= 0) fds[n++] = {err_pipe.read_end(), POLLIN, 0};
    const int ready = ::poll(fds, n, 100);
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t i = 0; ready > 0 && i < n; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      const bool is_out = fds[i].fd == out_pipe.read_end();
      if (got <= 0) {
        if (is_out) {
          out_pipe.close_read();
        } else {
          err_pipe.close_read();
        }
        --open_fds;
        continue;
      }
      if (is_out) {
        const auto bytes = static_cast<std::size_t>(got);
        if (options.max_stdout_bytes > 0 && r.out.size() + bytes > options.max_stdout_bytes) {
          // What fits is kept (its last line is no record either way); the child is killed and
          // its stdout no longer read, so neither this process nor the pipe grows further.
          r.out.append(buf, options.max_stdout_bytes - r.out.size());
          r.stdout_overflow = true;
          watch.kill_now();
          out_pipe.close_read();
          --open_fds;
          continue;
        }
        r.out.append(buf, bytes);
      } else {
        const std::string text = passed_on.feed(std::string_view(buf, static_cast<std::size_t>(got)));
        write_all(STDERR_FILENO, text.data(), text.size());
        err_all.append(buf, static_cast<std::size_t>(got));
        if (err_all.size() > 4 * kTailBytes) err_all.erase(0, err_all.size() - kTailBytes);
      }
    }
    watch.check();
    watch.end_group_if_child_exited();
    if (watch.kill_overdue()) break;  // its pipes are held by something else: stop reading
    if (watch.read_grace_over()) break;  // the child is gone; a descendant holds its pipes
  }
  if (const std::string rest = passed_on.finish(); !rest.empty()) write_all(STDERR_FILENO, rest.data(), rest.size());
  return err_all;
}

// Waits for the child, still watching it; its wait status.
int reap_child(pid_t pid, ChildWatch& watch) {
  int status = 0;
  for (;;) {
    watch.end_group_if_child_exited();  // before reaping: a background child that closed its pipes ends too
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    watch.check();
    ::usleep(20000);
  }
  return status;
}

}  // namespace

std::string ChildOutput::describe_end() const {
  if (exit_code == -1) return "could not start: " + start_error;
  if (timed_out) return "did not finish in its time limit and was stopped";
  if (signal != 0) {
    const char* name = signal_name(signal);
    return std::string("was killed by ") + (name ? name : "signal " + std::to_string(signal));
  }
  return "exited with " + std::to_string(exit_code);
}

std::string last_line(const std::string& text) {
  std::size_t end = text.size();
  while (end > 0) {
    const std::size_t nl = text.rfind('\n', end - 1);
    const std::size_t start = nl == std::string::npos ? 0 : nl + 1;
    std::string line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) return line;
    if (nl == std::string::npos) break;
    end = nl;
  }
  return {};
}

std::string self_executable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

ChildOutput run_child(const std::vector<std::string>& argv, const SpawnOptions& options) {
  ChildOutput r;
  if (argv.empty()) {
    r.start_error = "no command";
    return r;
  }
  Pipe out_pipe, err_pipe;
  const pid_t pid = spawn_child(argv, options, out_pipe, err_pipe, r);
  if (pid == 0) return r;
  ChildWatch watch(pid, options, r);
  const std::string err_all = read_child_output(out_pipe, err_pipe, options, watch, r);
  const int status = reap_child(pid, watch);
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.exit_code = 128 + r.signal;
  }
  r.err_tail = err_all.size() > kTailBytes ? err_all.substr(err_all.size() - kTailBytes) : err_all;
  // What a child printed enters records and messages: made valid UTF-8 here, once (text.hpp).
  r.err_tail = valid_utf8(r.err_tail);
  r.out = valid_utf8(r.out);
  return r;
}

}  // namespace parlab
