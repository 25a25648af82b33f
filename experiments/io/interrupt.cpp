#include "experiments/io/interrupt.hpp"

#include <csignal>

namespace parlab {

std::atomic<bool> g_interrupted{false};

namespace {

extern "C" void on_interrupt(int sig) {
  g_interrupted.store(true);
  std::signal(sig, SIG_DFL);  // a second Ctrl-C (or SIGTERM) ends the process at once
}

}  // namespace

void install_interrupt_handler() {
  g_interrupted.store(false);
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

}  // namespace parlab
