// Positive control for ThreadSanitizer: a deliberate data race (threads increment one plain
// int) run on the backend named on the command line. In the TSan build, ctest expects TSan's
// "data race" report; if a backend's threads were invisible to TSan (an uninstrumented runtime,
// Archer missing for OpenMP), the report would be missing and the test fails.
//
// With --clean the same loop uses per-chunk partials instead, and ctest expects no report.
//
// Why the race is long: TSan reports a race only if it can restore the stack of the earlier
// access from that thread's bounded trace. A single increment per thread, followed by a
// spinning wait in the backend (the pool spins before it sleeps on machines with enough
// cores), could push the earlier access out of the trace before a slow thread got there,
// and the report was dropped (seen once in CI). So every thread increments many times while
// the others do too, and the ctest entry raises history_size.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <cstring>
#include <string>

#include "experiments/wiring/make_registry.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: planted_race BACKEND [--clean]\n");
    return 2;
  }
  const bool clean = argc > 2 && std::strcmp(argv[2], "--clean") == 0;
  const parlab::Registry registry = parlab::make_registry();
  const int threads = std::string(argv[1]) == "serial" ? 1 : 4;
  auto ex = registry.get(argv[1]).make_executor(threads);
  volatile int shared = 0;  // the racy counter; volatile keeps every increment a real access
  constexpr int kIncrements = 20000;
  std::uint64_t total = 0;
  // One chunk per thread, and every chunk waits until all threads have arrived, so at least two
  // threads touch `shared` in the same region (a dynamic schedule could otherwise let one thread
  // take every chunk, and there would be no race to find).
  std::atomic<int> arrived{0};
  std::atomic<bool> timed_out{false};
  const auto rendezvous = [&] {
    arrived.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (arrived.load() < threads) {
      if (std::chrono::steady_clock::now() > deadline) {
        timed_out.store(true);
        return;
      }
      std::this_thread::yield();
    }
  };
  if (clean) {
    total = ex->parallel_sum(static_cast<parlab::Index>(threads), 1, [&](parlab::Index b, parlab::Index e) {
      rendezvous();
      return e - b;
    });
  } else {
    ex->parallel_for(static_cast<parlab::Index>(threads), 1, [&](parlab::Index b, parlab::Index e) {
      rendezvous();
      for (parlab::Index i = b; i < e; ++i) {
        for (int k = 0; k < kIncrements; ++k) shared = shared + 1;  // RACE: unsynchronised read-modify-write
      }
    });
  }
  std::printf("%s: shared=%d total=%llu arrived=%d\n", argv[1], static_cast<int>(shared),
              static_cast<unsigned long long>(total), arrived.load());
  if (timed_out.load()) {  // a control that did not run its threads together proves nothing
    std::fprintf(stderr, "planted_race: the threads did not meet within 30 s (%d of %d came)\n", arrived.load(), threads);
    return 3;
  }
  return 0;
}
