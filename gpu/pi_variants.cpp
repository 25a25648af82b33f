// parlab_pi_variants: the shapes of the GPU pi kernel side by side in one process (the rework's
// A/B figure), and the driver tools/node/gpu/ncu-profile.sh profiles. Every variant counts the same
// canonical stream, so every variant must return the same hit count: a difference is a failure
// (exit 1), not a number.
//
//   parlab_pi_variants [--samples N|2^K] [--reps R] [--warmup W] [--seed S] [--device D]
//                      [--variants a,b,...]
//
// Prints one JSON object: per variant its grid, every repetition's kernel time (CUDA events),
// the median rate in samples/s, the hits and the 3-sigma check; and whether all hits agree.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/pi.hpp"
#include "cuda_check.hpp"
#include "device.hpp"
#include "launch.hpp"

namespace parlab {
namespace {

using nlohmann::json;

struct Options {
  std::uint64_t samples = std::uint64_t{1} << 36;
  int reps = 5;
  int warmup = 1;
  std::uint64_t seed = 42;
  int device = 0;
  std::vector<std::string> variants;  // empty: all
};

std::uint64_t parse_count(const std::string& s, const std::string& what) {
  try {
    const auto caret = s.find('^');
    if (caret != std::string::npos) {
      const unsigned long e = std::stoul(s.substr(caret + 1));
      if (s.substr(0, caret) != "2" || e > 63) throw UsageError("");
      return std::uint64_t{1} << e;
    }
    std::size_t used = 0;
    const unsigned long long v = std::stoull(s, &used, 0);
    if (used != s.size()) throw UsageError("");
    return v;
  } catch (const std::exception&) {
    throw UsageError(what + " '" + s + "' is not a count (accepted: decimal, 0x hex or 2^K)");
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

json measure(const std::string& variant, const Options& o) {
  cuda::DeviceGuard guard(o.device);
  cuda::Stream stream;
  cuda::Event start, stop;
  cuda::DeviceBuffer<unsigned long long> hits(1, o.device);
  const std::uint64_t pairs = o.samples / 2;
  const bool tail = (o.samples & 1u) != 0;
  unsigned long long host = 0;
  const auto launch = [&] {
    PARLAB_CUDA_CHECK(cudaMemsetAsync(hits.get(), 0, sizeof(unsigned long long), stream.get()));
    start.record(stream);
    cuda::launch_pi_hits_variant(variant, o.seed, 0, pairs, tail, hits.get(), o.device, stream.get());
    stop.record(stream);
    PARLAB_CUDA_CHECK(
        cudaMemcpyAsync(&host, hits.get(), sizeof host, cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    return cuda::elapsed_seconds(start, stop);
  };
  for (int i = 0; i < o.warmup; ++i) launch();
  std::vector<double> seconds;
  std::vector<std::uint64_t> counts;
  for (int i = 0; i < o.reps; ++i) {
    seconds.push_back(launch());
    counts.push_back(host);
  }
  const bool stable = std::all_of(counts.begin(), counts.end(), [&](std::uint64_t c) { return c == counts.front(); });
  const PiCheck check = pi_check(counts.empty() ? 0 : counts.front(), o.samples);
  const double med = seconds.empty() ? 0.0 : median(seconds);
  json r = {{"variant", variant},
            {"blocks", cuda::pi_variant_grid_blocks(variant, o.device, pairs)},
            {"threads_per_block", 256},
            {"kernel_s", seconds},
            {"median_kernel_s", med},
            {"samples_per_s", med > 0 ? static_cast<double>(o.samples) / med : 0.0},
            {"hits", counts.empty() ? 0 : counts.front()},
            {"hits_stable", stable},
            {"estimate", check.estimate},
            {"sigmas", check.sigmas},
            {"pass", check.pass && stable}};
  std::cerr << "  " << variant << ": " << r["samples_per_s"].get<double>() << " samples/s, hits " << r["hits"]
            << (r["pass"].get<bool>() ? "" : "  FAIL") << "\n";
  return r;
}

int run(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError("option " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--samples") o.samples = parse_count(value(), "--samples");
    else if (a == "--reps") o.reps = static_cast<int>(parse_count(value(), "--reps"));
    else if (a == "--warmup") o.warmup = static_cast<int>(parse_count(value(), "--warmup"));
    else if (a == "--seed") o.seed = parse_count(value(), "--seed");
    else if (a == "--device") o.device = static_cast<int>(parse_count(value(), "--device"));
    else if (a == "--variants") {
      std::stringstream ss(value());
      for (std::string v; std::getline(ss, v, ',');) o.variants.push_back(v);
    } else {
      throw UsageError("unknown option '" + a +
                       "' (accepted: --samples, --reps, --warmup, --seed, --device, --variants)");
    }
  }
  if (o.reps < 1) throw UsageError("--reps must be at least 1");
  cuda::check_device(o.device);
  if (o.variants.empty()) o.variants = cuda::pi_kernel_variants();

  json out = {{"device", cuda::describe_device(o.device)},
              {"versions", cuda::describe_versions()},
              {"samples", o.samples},
              {"seed", o.seed},
              {"reps", o.reps},
              {"warmup", o.warmup},
              {"default_variant", cuda::pi_kernel_variants().front()}};
  json results = json::array();
  bool all_pass = true, all_equal = true;
  for (const std::string& v : o.variants) {
    results.push_back(measure(v, o));
    all_pass = all_pass && results.back()["pass"].get<bool>();
    all_equal = all_equal && results.back()["hits"] == results.front()["hits"];
  }
  out["variants"] = results;
  out["all_hits_equal"] = all_equal;
  out["pass"] = all_pass && all_equal;
  std::cout << out.dump(2) << "\n";
  return out["pass"].get<bool>() ? 0 : 1;
}

}  // namespace
}  // namespace parlab

int main(int argc, char** argv) {
  try {
    return parlab::run(argc, argv);
  } catch (const parlab::UsageError& e) {
    std::cerr << "parlab_pi_variants: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "parlab_pi_variants: " << e.what() << "\n";
    return 1;
  }
}
