// Positive control for ThreadSanitizer: a deliberate data race (threads increment one plain
// int) run on the backend named on the command line. In the TSan build, ctest expects TSan's
// "data race" report; if a backend's threads were invisible to TSan (an uninstrumented runtime,
// Archer missing for OpenMP), the report would be missing and the test fails.
//
// With --clean the same loop uses per-chunk partials instead, and ctest expects no report.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <cstring>
#include <string>

#include "experiments/backends.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: planted_race BACKEND [--clean]\n");
    return 2;
  }
  const bool clean = argc > 2 && std::strcmp(argv[2], "--clean") == 0;
  const parlab::Registry registry = parlab::make_registry();
  const int threads = std::string(argv[1]) == "serial" ? 1 : 4;
  auto ex = registry.get(argv[1]).make_executor(threads);
  int shared = 0;  // the racy counter
  std::uint64_t total = 0;
  // One chunk per thread, and every chunk waits until all threads have arrived, so at least two
  // threads touch `shared` in the same region (a dynamic schedule could otherwise let one thread
  // take every chunk, and there would be no race to find).
  std::atomic<int> arrived{0};
  const auto rendezvous = [&] {
    arrived.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (arrived.load() < threads && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  };
  if (clean) {
    total = ex->parallel_sum(static_cast<parlab::Index>(threads), 1, [&](parlab::Index b, parlab::Index e) {
      rendezvous();
      return e - b;
    });
  } else {
    ex->parallel_for(static_cast<parlab::Index>(threads), 1, [&](parlab::Index b, parlab::Index e) {
      rendezvous();
      for (parlab::Index i = b; i < e; ++i) ++shared;  // RACE: unsynchronised read-modify-write
    });
  }
  std::printf("%s: shared=%d total=%llu\n", argv[1], shared, static_cast<unsigned long long>(total));
  return 0;
}
