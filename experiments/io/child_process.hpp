// Runs another program: the one way parlab starts a process of its own — the parlab of another
// interpreter (run/interpreter_child.cpp), the MPI jobs a run launches (run/rank_sweep.cpp), the
// plot script (cli/commands.cpp), and the external peers' binaries (peers/, through
// wiring/make_registry.cpp). What a measurement in another process turns into is child_record.hpp's job.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace parlab {

struct SpawnOptions {
  // Each (NAME, value) replaces NAME in this process's environment for the child.
  std::vector<std::pair<std::string, std::string>> set_env;
  // true: the child's stdout is read into ChildOutput::out; false: it is this process's stdout.
  bool capture_stdout = true;
  // Seconds before the child is stopped (SIGTERM, then SIGKILL 5 s later); 0: none.
  double timeout_s = 0;
  // When this becomes true (this process's SIGINT/SIGTERM handler sets it), the child is sent
  // SIGINT, and SIGKILL if it has not ended interrupt_grace_s later. Null: not watched.
  const std::atomic<bool>* interrupted = nullptr;
  double interrupt_grace_s = 10.0;
  // true: the child leads a process group of its own, every signal above goes to the whole group,
  // and once the child has exited, what is left of its group is killed (SIGKILL). For programs
  // parlab does not control (the external peers): a background child of theirs holding the
  // stdout pipe would otherwise keep the run waiting for an end of file that never comes, and
  // survive a timeout. Its stdin is /dev/null: a background group may not read the terminal.
  bool own_process_group = false;
  // Seconds between a timeout's SIGTERM and its SIGKILL.
  double term_grace_s = 5.0;
  // Bytes of stdout kept at most (0: no bound). Past it the child is killed and
  // ChildOutput::stdout_overflow says so: a child that floods its stdout must not grow this
  // process until the allocator gives up.
  std::size_t max_stdout_bytes = 0;
  // Seconds the pipes are still read once the child has exited (< 0: until their end of file). A
  // descendant that left the child's process group may hold the pipes open for ever; what it
  // writes after this grace is not waited for.
  double after_exit_s = -1;
};

struct ChildOutput {
  int exit_code = -1;         // -1: could not start (start_error says why); 128+N: killed by signal N
  int signal = 0;             // N when killed by signal N, else 0
  bool timed_out = false;     // stopped because SpawnOptions::timeout_s passed
  bool interrupted = false;   // stopped because *SpawnOptions::interrupted became true
  bool stdout_overflow = false;  // wrote more than SpawnOptions::max_stdout_bytes and was killed
  std::string start_error;    // why it could not start
  std::string out;            // its stdout, when captured (valid UTF-8: text.hpp)
  std::string err_tail;       // the last few KiB of its stderr (passed on to ours), valid UTF-8

  // "exit 3", "killed by SIGKILL", "timed out after 600 s", "could not start: No such file..."
  std::string describe_end() const;
};

// Runs argv[0] (looked up on PATH when it has no '/') and waits for it. Its stderr is copied to
// this process's stderr as it arrives, so the child's messages reach the user, and its tail is
// kept for the record of a failure. posix_spawn, not fork: this process may run threads (a thread
// pool, TBB, OpenMP, Python threads), and a child of fork() may only call async-signal-safe
// functions before exec. Throws FailureError only when no pipe can be made.
ChildOutput run_child(const std::vector<std::string>& argv, const SpawnOptions& options = {});

// The last line of `text` that holds more than blanks, without its newline; empty when none.
std::string last_line(const std::string& text);

// The absolute path of this process's executable (/proc/self/exe); empty when it cannot be read.
std::string self_executable();

}  // namespace parlab
