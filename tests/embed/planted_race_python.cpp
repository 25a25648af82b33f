// ThreadSanitizer controls for the embedded-CPython part (TSan build only), like
// tests/sanitizer/planted_race.cpp for the CPU backends: two threads take turns in Python and
// increment a plain C++ counter, either
//   (default) with the GIL released around the increment: a data race TSan must report,
//             through tsan-python.supp (so the suppressions do not hide races in parlab code);
//   --clean   with the GIL held: the GIL orders the increments, and TSan must see that order
//             through the intercepted pthread calls of CPython's GIL and report nothing.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "embed/interpreter.hpp"
#include "embed/register.hpp"

int main(int argc, char** argv) {
  const bool clean = argc > 1 && std::string(argv[1]) == "--clean";
  parlab::shared_python_interpreter();
  long counter = 0;  // deliberately not atomic
  // Both threads meet once with the GIL released before their first increment, so the two
  // unsynchronised increments surely overlap; without it the GIL hand-off usually orders every
  // pair on a quiet machine and TSan, rightly, sees no race (the control was flaky that way).
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
          ++counter;  // under the GIL
        } else {
          parlab::embed::GilRelease nogil;
          if (i == 0) meet();
          ++counter;  // the planted race
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::printf("counter %ld (%s)\n", counter, clean ? "GIL held" : "GIL released: racy");
  return 0;
}
