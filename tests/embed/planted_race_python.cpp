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
#include "embed/register.hpp"

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
  // Both threads meet once with the GIL released (or, without a GIL, while attached) before
  // their first increment, so the two unsynchronised increments surely overlap; without it the
  // GIL hand-off, or without a GIL the interpreter's own locks taken by PyRun_SimpleString,
  // usually order every pair on a quiet machine and TSan, rightly, sees no race (both controls
  // were flaky that way). With a GIL held the threads must not meet: the other could not come.
  std::atomic<int> arrived{0};
  const auto meet = [&] {
    arrived.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (arrived.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        parlab::embed::GilAcquire gil;
        PyRun_SimpleString("sum(range(10))");
        if (clean) {
          if (no_gil && i == 0) {
            // Detached while waiting: a stop-the-world pause the other thread's Python asks for
            // must not wait on this one (it did, for the whole deadline, and then ordered both).
            parlab::embed::GilRelease detached;
            meet();
          }
          ++counter;  // under the GIL, or without a GIL the planted race
        } else {
          parlab::embed::GilRelease nogil;
          if (i == 0) meet();
          ++counter;  // the planted race
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::printf("counter %ld (%s)\n", counter, clean ? (no_gil ? "no GIL" : "GIL held") : "GIL released: racy");
  return 0;
}
