#include "experiments/io/interrupt.hpp"

#include <unistd.h>

#include <csignal>
#include <cstring>

namespace parlab {

std::atomic<bool> g_interrupted{false};

namespace {

// Whether a SIGINT, a SIGTERM has arrived since the handlers were installed.
volatile std::sig_atomic_t g_seen_int = 0;
volatile std::sig_atomic_t g_seen_term = 0;

// The temporary file a write_atomically is writing now (files.cpp), removed by a second signal
// that ends the process before the write could finish or remove it itself.
char g_temporary[4096];
std::atomic<bool> g_temporary_set{false};  // g_temporary names it
std::atomic<bool> g_temporary_taken{false};  // a writer holds g_temporary

extern "C" void on_interrupt(int sig) {
  g_interrupted.store(true);
  volatile std::sig_atomic_t& seen = sig == SIGINT ? g_seen_int : g_seen_term;
  if (seen == 0) {
    seen = 1;
    return;
  }
  // The second of its kind ends the process at once, as the default action would, leaving no
  // half-written temporary file behind (unlink is async-signal-safe).
  if (g_temporary_set.load()) ::unlink(g_temporary);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

void install_interrupt_handler() {
  g_interrupted.store(false);
  g_seen_int = 0;
  g_seen_term = 0;
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

void restore_default_interrupt_action() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

bool note_temporary_file(const std::string& path) {
  if (path.size() >= sizeof g_temporary) return false;
  bool expected = false;
  // One at a time: a second writer at once (another thread) is simply not noted.
  if (!g_temporary_taken.compare_exchange_strong(expected, true)) return false;
  std::memcpy(g_temporary, path.c_str(), path.size() + 1);
  g_temporary_set.store(true);
  return true;
}

void forget_temporary_file() {
  g_temporary_set.store(false);
  g_temporary_taken.store(false);
}

}  // namespace parlab
