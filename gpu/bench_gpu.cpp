// parlab_gpu_bench: the GPU figures the issue asks for, through the same registry entries and
// workloads as the CLI, printed as one JSON object on stdout (gpu/scripts/peers.py reads it and
// puts the peers beside it). Every case warms up, repeats, validates, and keeps every repetition.
//
//   parlab_gpu_bench [--reps N] [--only case,case,...] [--pi-samples N] [--triad-n N]
//                    [--matmul-n N] [--device D]
//   cases: pi, pi_multi, stream, matmul, transfers, logging (default: all)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/workload.hpp"
#include "gpu/device.hpp"
#include "gpu/register.hpp"

namespace parlab {
namespace {

using nlohmann::json;

struct Options {
  int reps = 5;
  int device = 0;
  std::uint64_t pi_samples = std::uint64_t{1} << 36;
  std::uint64_t triad_n = std::uint64_t{1} << 28;
  std::uint64_t matmul_n = 4096;
  std::set<std::string> only;
  bool wants(const std::string& c) const { return only.empty() || only.count(c) != 0; }
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// One measurement: warm-up, `reps` timed runs, validation; rates from the median kernel time
// (transfers: the median transfer time).
json measure(const Registry& registry, const std::string& backend, Problem p, int reps) {
  json r = {{"backend", backend}, {"kernel", p.kernel}, {"size", p.size}, {"precision", to_string(p.precision)}};
  try {
    const BackendEntry& e = registry.get(backend);
    auto w = e.make(p);
    w->run();  // warm-up: module load, clocks, caches
    std::vector<double> kernel_s, transfer_s;
    for (int i = 0; i < reps; ++i) {
      w->run();
      const SelfTiming t = w->last_timing().value_or(SelfTiming{});
      kernel_s.push_back(t.kernel_s);
      transfer_s.push_back(t.transfer_s);
    }
    const Validation v = w->validate();
    const WorkCount work = w->work();
    const double k = median(kernel_s), x = median(transfer_s);
    const double t = k > 0 ? k : x;  // transfers have no kernel time
    r["kernel_s"] = kernel_s;
    r["transfer_s"] = transfer_s;
    r["median_kernel_s"] = k;
    r["median_transfer_s"] = x;
    r["min_kernel_s"] = kernel_s.empty() ? 0.0 : *std::min_element(kernel_s.begin(), kernel_s.end());
    if (work.samples > 0 && t > 0) r["samples_per_s"] = work.samples / t;
    if (work.bytes > 0 && t > 0) r["bytes_per_s"] = work.bytes / t;
    if (work.flops > 0 && t > 0) r["flops_per_s"] = work.flops / t;
    r["pass"] = v.pass;
    r["detail"] = v.detail;
    if (v.hits) r["hits"] = *v.hits;
    r["checksum"] = v.checksum;
  } catch (const std::exception& ex) {
    r["pass"] = false;
    r["error"] = ex.what();
  }
  std::cerr << "  " << backend << " " << p.kernel << " " << p.size << ": "
            << (r.contains("error") ? r["error"].get<std::string>() : (r["pass"].get<bool>() ? "pass" : "FAIL")) << "\n";
  return r;
}

std::uint64_t parse_size(const std::string& s) {
  const auto caret = s.find('^');
  if (caret != std::string::npos) return std::uint64_t{1} << std::stoul(s.substr(caret + 1));
  return std::stoull(s);
}

int run(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError("option " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--reps") o.reps = std::stoi(value());
    else if (a == "--device") o.device = std::stoi(value());
    else if (a == "--pi-samples") o.pi_samples = parse_size(value());
    else if (a == "--triad-n") o.triad_n = parse_size(value());
    else if (a == "--matmul-n") o.matmul_n = parse_size(value());
    else if (a == "--only") {
      std::stringstream ss(value());
      for (std::string c; std::getline(ss, c, ',');) o.only.insert(c);
    } else {
      throw UsageError("unknown option '" + a + "' (accepted: --reps, --device, --pi-samples, --triad-n, --matmul-n, --only)");
    }
  }

  Registry registry;
  register_cuda(registry);
  json out;
  const BackendEntry* cuda = registry.find("cuda");
  out["cuda"] = {{"available", cuda->available}, {"detail", cuda->detail}, {"reason", cuda->reason}};
  out["devices"] = cuda::device_count().count;
  out["reps"] = o.reps;
  if (!cuda->available) {
    std::cout << out.dump(2) << "\n";
    return 1;
  }

  Problem base;
  base.device = o.device;
  if (o.wants("pi")) {
    Problem p = base;
    p.kernel = "pi";
    p.precision = Precision::i32;
    p.size = o.pi_samples;
    p.seed = 42;
    out["pi"] = measure(registry, "cuda", p, o.reps);
  }
  if (o.wants("pi_multi")) {
    Problem p = base;
    p.kernel = "pi";
    p.precision = Precision::i32;
    p.size = o.pi_samples * static_cast<std::uint64_t>(std::max(1, cuda::device_count().count));
    p.seed = 42;
    // The same per-device work as the single-GPU figure, so ideal scaling shows as equal times.
    out["pi_multi"] = measure(registry, "cuda-multi", p, o.reps);
    out["pi_multi_sequential"] = measure(registry, "cuda-multi-seq", p, o.reps);
    p.size = o.pi_samples;
    out["pi_single_same_n"] = measure(registry, "cuda", p, o.reps);
    Problem t = base;
    t.kernel = "triad";
    t.precision = Precision::f64;
    t.size = o.triad_n * static_cast<std::uint64_t>(std::max(1, cuda::device_count().count));
    out["triad_multi"] = measure(registry, "cuda-multi", t, std::max(o.reps, 10));
    out["triad_multi_sequential"] = measure(registry, "cuda-multi-seq", t, std::max(o.reps, 10));
  }
  if (o.wants("stream")) {
    json s = json::object();
    for (const char* k : {"copy", "mul", "add", "triad", "dot", "nstream"}) {
      for (Precision prec : {Precision::f64, Precision::f32}) {
        Problem p = base;
        p.kernel = k;
        p.precision = prec;
        p.size = o.triad_n;
        s[std::string(k) + "_" + to_string(prec)] = measure(registry, "cuda", p, std::max(o.reps, 10));
      }
    }
    out["stream"] = s;
  }
  if (o.wants("matmul")) {
    Problem p = base;
    p.kernel = "matmul";
    p.precision = Precision::f32;
    p.size = o.matmul_n;
    out["matmul_cublas"] = measure(registry, "cuda-cublas", p, std::max(o.reps, 10));
    out["matmul_tiled"] = measure(registry, "cuda", p, o.reps);
  }
  if (o.wants("transfers")) {
    json t = json::array();
    for (std::uint64_t bytes : {std::uint64_t{1} << 12, std::uint64_t{1} << 20, std::uint64_t{1} << 26, std::uint64_t{1} << 30}) {
      for (const char* k : {"transfer_pageable", "transfer_pinned", "transfer_many_small", "transfer_one_large"}) {
        Problem p = base;
        p.kernel = k;
        p.size = bytes;
        t.push_back(measure(registry, "cuda", p, 3));
      }
    }
    out["transfers"] = t;
  }
  if (o.wants("logging")) {
    for (const char* k : {"logging_every_step", "logging_on_device"}) {
      Problem p = base;
      p.kernel = k;
      p.size = 1000;
      out[k] = measure(registry, "cuda", p, 3);
    }
  }
  std::cout << out.dump(2) << "\n";
  return 0;
}

}  // namespace
}  // namespace parlab

int main(int argc, char** argv) {
  try {
    return parlab::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "parlab_gpu_bench: " << e.what() << "\n";
    return 2;
  }
}
