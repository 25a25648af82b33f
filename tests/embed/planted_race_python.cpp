// ThreadSanitizer controls for the embedded-CPython part (TSan build only), like
// tests/sanitizer/planted_race.cpp for the CPU backends: two threads take turns in Python and
// increment a plain C++ counter, either
//   (default) with the GIL released around the increment: a data race TSan must report,
//             through tsan-python.supp (so the suppressions do not hide races in parlab code);
//   --clean   with the GIL held: the GIL orders the increments, and TSan must see that order
//             through the intercepted pthread calls of CPython's GIL and report nothing. On a
//             free-threaded build running without a GIL the same increments are the race (the
//             tsan_detects_race_python_no_gil control).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "embed/interpreter.hpp"
#include "embed/backends.hpp"

#if defined(Py_GIL_DISABLED)
#define PARLAB_PY_GIL_DISABLED true
#else
#define PARLAB_PY_GIL_DISABLED false
#endif

int main(int argc, char** argv) {
  const bool clean = argc > 1 && std::string(argv[1]) == "--clean";
  parlab::shared_python_interpreter();
  // No GIL (a free-threaded build, PYTHON_GIL=0): the "held" increments run at once.
  const bool no_gil = PARLAB_PY_GIL_DISABLED && !parlab::embed::gil_reenabled_at_run_time();
  long counter = 0;  // deliberately not atomic
  // How the race is planted, so that TSan must see it on every run. Only the first increment of
  // each thread is staged; the later ones are whatever the interpreter's locks make of them.
  //  1. The threads meet (seq_cst) with the GIL released, or without a GIL detached: a
  //     stop-the-world pause that the other thread's Python asks for must not wait on one that
  //     waits here (it did, for the whole deadline, and then ordered both).
  //  2. Thread 0 increments and hands thread 1 a relaxed baton; thread 1 increments and hands it
  //     back; only then does thread 0 go on. A relaxed hand-off gives TSan (rightly) no
  //     happens-before, so the two increments are unordered. Why each part is needed:
  //     - one after the other: two increments that start together can update TSan's shadow word
  //       at the same instant and miss each other;
  //     - thread 0 waits: while it runs Python the (TSan-built, free-threaded) interpreter
  //       releases through shared locks and atomics that a late attach of thread 1 acquires, and
  //       its churn through TSan's thread slots can order or forget the earlier increment. The
  //       no-GIL control, without this wait, missed the race in 9 runs of 15 here (and once in
  //       CI); with it, in none of 40.
  // Thread 1 waits attached (no GIL) or detached (GIL released); nothing can ask it to pause
  // there: thread 0 runs no Python until the baton is back.
  // With a GIL held the threads must not meet at all: the other could not come.
  std::atomic<int> arrived{0};
  std::atomic<bool> baton{false};
  std::atomic<bool> baton_back{false};
  std::atomic<bool> timed_out{false};
  const auto wait_until = [&](const auto& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) {
        timed_out.store(true);
        return;
      }
      std::this_thread::yield();
    }
  };
  const auto wait_for = [&](const std::atomic<bool>& flag) {
    wait_until([&] { return flag.load(std::memory_order_relaxed); });
  };
  const auto meet = [&] {
    arrived.fetch_add(1);
    wait_until([&] { return arrived.load() >= 2; });
  };
  const auto planted_increment = [&](int thread) {
    if (thread == 0) {
      ++counter;
      baton.store(true, std::memory_order_relaxed);
      wait_for(baton_back);
    } else {
      wait_for(baton);
      ++counter;
      baton_back.store(true, std::memory_order_relaxed);
    }
  };
  // The first increment of each thread is staged; the later ones are racy too, but not staged.
  const auto increment = [&](int i, int thread) {
    if (i == 0) {
      planted_increment(thread);
    } else {
      ++counter;
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        parlab::embed::GilAcquire gil;
        PyRun_SimpleString("sum(range(10))");
        if (clean && !no_gil) {
          ++counter;  // under the GIL: ordered by it
        } else if (clean) {  // no GIL: the increments "under the GIL" are the planted race
          if (i == 0) {
            parlab::embed::GilRelease detached;
            meet();
          }
          increment(i, t);
        } else {
          parlab::embed::GilRelease nogil;
          if (i == 0) meet();
          increment(i, t);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::printf("counter %ld (%s)\n", counter, clean ? (no_gil ? "no GIL" : "GIL held") : "GIL released: racy");
  if (timed_out.load()) {  // a control whose threads did not meet proves nothing, as in planted_race.cpp
    std::fprintf(stderr, "planted_race_python: the threads did not meet within 10 s\n");
    return 3;
  }
  return 0;
}
