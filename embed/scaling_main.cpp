// parlab_python_scaling: times Python backends over thread counts in one process, the
// comparison the issue asks for (GIL released vs held, sub-interpreters, per-call overhead),
// until the CLI's suite runner drives the Python entries itself.
//
//   parlab_python_scaling [--backends a,b] [--threads 1,2] [--samples N] [--reps R] [--seed S]
//
// Repetitions are interleaved across (backend, threads) configurations, so a change in the
// machine's load during the run hits every configuration alike and the ratios hold. Each
// configuration is warmed up once; the median of R timed runs is reported, with the speed-up over
// the same backend's smallest thread count and the GIL-contention figure.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "embed/register.hpp"
#include "embed/workloads.hpp"

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

struct Config {
  std::string backend;
  int threads;
  std::unique_ptr<parlab::Workload> workload;
  std::vector<double> seconds;
};

// "268435456", "0x10000000" or "2^28".
std::uint64_t parse_count(const std::string& v) {
  std::size_t used = 0;
  if (const auto caret = v.find('^'); caret != std::string::npos) {
    const std::uint64_t base = std::stoull(v.substr(0, caret));
    const int exp = std::stoi(v.substr(caret + 1), &used);
    if (used != v.size() - caret - 1 || exp < 0 || exp > 63) throw std::invalid_argument(v);
    std::uint64_t r = 1;
    for (int i = 0; i < exp; ++i) r *= base;
    return r;
  }
  const std::uint64_t r = std::stoull(v, &used, 0);
  if (used != v.size()) throw std::invalid_argument(v);
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int usage(const char* why) {
  std::fprintf(stderr,
               "parlab_python_scaling: %s\nusage: parlab_python_scaling [--backends a,b] "
               "[--threads 1,2] [--samples N] [--reps R] [--seed S]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> backends = {"py-parlab-gil-released", "py-parlab-gil-held"};
  std::vector<int> threads = {1, 2};
  std::uint64_t samples = std::uint64_t{1} << 28, seed = 0;
  int reps = 7;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage(("missing value after " + a).c_str());
    const std::string v = argv[++i];
    try {
      if (a == "--backends") {
        backends = split(v);
      } else if (a == "--threads") {
        threads.clear();
        for (const auto& t : split(v)) threads.push_back(std::stoi(t));
      } else if (a == "--samples") {
        samples = parse_count(v);
      } else if (a == "--reps") {
        reps = std::stoi(v);
      } else if (a == "--seed") {
        seed = parse_count(v);
      } else {
        return usage(("unknown option " + a).c_str());
      }
    } catch (const std::exception&) {
      return usage(("bad value '" + v + "' for " + a).c_str());
    }
  }
  if (reps < 1) return usage("--reps must be >= 1");

  parlab::Registry registry;
  parlab::register_python(registry);
  std::vector<Config> configs;
  try {
    for (const auto& b : backends) {
      const std::string_view name = b;  // an lvalue: g++ 13 warns on a reference bound through a temporary
      const parlab::BackendEntry& e = registry.get(name);
      for (int t : threads) {
        parlab::Problem p;
        p.kernel = "pi";
        p.precision = parlab::Precision::i32;
        p.size = samples;
        p.seed = seed;
        p.threads = t;
        try {
          Config c{b, t, e.make(p), {}};
          c.workload->run();  // warm-up
          configs.push_back(std::move(c));
        } catch (const parlab::UnavailableError& u) {
          std::printf("%-26s %3d threads  unavailable: %s\n", b.c_str(), t, u.what());
        } catch (const parlab::UsageError& u) {  // e.g. a one-thread peer at 2 threads
          std::printf("%-26s %3d threads  skipped: %s\n", b.c_str(), t, u.what());
        }
      }
    }
    for (int r = 0; r < reps; ++r) {
      for (auto& c : configs) {
        const auto t0 = std::chrono::steady_clock::now();
        c.workload->run();
        c.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        std::fprintf(stderr, "[round %d/%d] %s, %d threads: %.4f s\n", r + 1, reps, c.backend.c_str(),
                     c.threads, c.seconds.back());
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parlab_python_scaling: %s\n", e.what());
    return 1;
  }

  std::printf("%s\nsamples %llu, seed %llu, %d timed runs each (median), interleaved\n",
              parlab::python_context().c_str(), static_cast<unsigned long long>(samples),
              static_cast<unsigned long long>(seed), reps);
  std::printf("%-26s %7s %11s %13s %8s  %s\n", "backend", "threads", "median s", "samples/s", "speed-up",
              "validation; GIL contention");
  bool all_pass = true;
  for (const auto& c : configs) {
    const double m = median(c.seconds);
    double base = 0;
    for (const auto& o : configs) {
      if (o.backend == c.backend && o.threads == threads.front()) base = median(o.seconds);
    }
    const parlab::Validation v = c.workload->validate();
    all_pass = all_pass && v.pass;
    std::printf("%-26s %7d %11.4f %13.4g %7.2fx  %s: %s\n", c.backend.c_str(), c.threads, m,
                static_cast<double>(samples) / m, base > 0 ? base / m : 0.0, v.pass ? "pass" : "FAIL",
                v.detail.c_str());
  }
  return all_pass ? 0 : 1;
}
