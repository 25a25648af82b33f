// likwid-bench as an external peer: its command line, its report, and the workload that runs it.
//
// likwid-bench (github.com/RRZE-HPC/likwid, Debian's `likwid` package, 5.2.2 in bookworm) runs
// hand-written assembly kernels. Its non-temporal-store kernels are the store path parlab's CPU
// STREAM kernels take, which BabelStream's compiler-generated loops do not:
//   likwid-bench -t <test> -W N:<bytes>B:<threads>
// runs <test> on <threads> hardware threads of the node domain N, its streams together
// <bytes> bytes, each thread first-touching its own chunks (-W; -w would place every stream
// with one thread, on one NUMA domain). It picks its iteration count for a run of at least a
// second, and prints, after "Allocate:" and placement lines (and a "Warning: Sanitizing
// vector length ..." line where it rounded the size), key-value lines, tabs between:
//   Test: stream_mem_avx512
//   Using 2 threads
//   Time:                   2.128049e+00 sec
//   Iterations:             128          (all threads together)
//   Iterations per thread:  64
//   Size (Byte):            402653184    (every stream, every thread)
//   Number of Flops:        2147483648
//   MFlops/s:               1009.13
//   Data volume (Byte):     25769803776
//   MByte/s:                12109.59     (decimal megabytes: data volume / time / 1e6)
// (the format of likwid 5.2's bench/likwid-bench.c; a real run on this project's 2-core VM is in
// tests/python/fakes/fake_likwid_bench.py). MByte/s and MFlops/s are the mean over its
// iterations: everything its threads moved or computed over the whole timed span.
//
// Tests, the widest the CPU has (its ISA read with __builtin_cpu_supports; the avx512 tests need
// AVX-512F, the avx peakflops one FMA as well):
//   copy       copy_mem_avx512 | copy_mem_avx | copy_mem_sse        (2 streams, NT stores)
//   triad      stream_mem_avx512 | stream_mem_avx | stream_mem      (3 streams, NT stores)
//   peakflops  peakflops_avx512_fma | peakflops_avx_fma | peakflops_sse (1 stream, in cache)
// copy and triad move what parlab's copy and triad count (16 and 24 bytes per element), so a
// record's size N is elements per array as parlab's are; peakflops's N is its one array's
// elements (keep it in L1: the suite gives 2^11, 16 KiB) and its work is likwid-bench's own count.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/workload.hpp"
#include "backends.hpp"

namespace parlab::likwid {

// What one invocation printed, parsed.
struct Report {
  std::string test;
  int threads = 0;
  double time_s = 0;
  std::uint64_t iterations = 0;  // all threads together
  std::uint64_t iterations_per_thread = 0;
  std::uint64_t size_bytes = 0;  // every stream, every thread
  double flops = 0;              // Number of Flops
  double mflops_per_s = 0;
  double data_volume_bytes = 0;
  double mbytes_per_s = 0;
};

// The report of likwid-bench's stdout. Throws FailureError naming what is missing or malformed
// (a line absent, a value that is not a number, a time that is not positive and finite, MByte/s
// that is not data volume / time).
Report parse_report(const std::string& out);

// The kernels the peer runs, by parlab's names: copy, triad, peakflops.
const std::vector<std::string>& kernel_names();

// The instruction sets a test may be written for, widest first.
enum class Isa { avx512, avx, sse };
// The widest this CPU runs (nullopt: not an x86-64 CPU, whose tests likwid-bench names otherwise).
std::optional<Isa> host_isa();
// likwid-bench's test for a parlab kernel on an ISA ("stream_mem_avx512"); UsageError for a
// kernel the peer does not run.
std::string test_name(const std::string& kernel, Isa isa);
// Streams the test's working set spans (copy 2, triad 3, peakflops 1).
int streams_of(const std::string& kernel);

struct Invocation {
  std::string binary;  // full path of likwid-bench
  std::string kernel;  // parlab's name
  std::string test;    // likwid-bench's
  std::uint64_t size = 0;
  int threads = 1;
};
std::vector<std::string> command_line(const Invocation& inv);

// The directory likwid-bench looks for likwid-accessD in: the sbin beside the binary's bin
// (/usr/bin/likwid-bench -> /usr/sbin, where Debian's package installs it).
std::string access_daemon_dir(const std::string& binary);

// Adds likwid-bench-nt (copy, triad) and likwid-bench-peakflops (peakflops), available or
// not: the binary is PARLAB_LIKWID_BENCH, else likwid-bench on PATH; without one (or on a CPU
// that is not x86-64) both are unavailable with the reason. Never throws for a missing binary.
void add_likwid_backends(Registry& registry, const PeerLauncher& launch);

// One (kernel, size, threads) measurement through `binary`, one invocation per run().
std::unique_ptr<Workload> make_workload(std::string backend, std::string binary, Isa isa, PeerLauncher launch,
                                        const Problem& p);

}  // namespace parlab::likwid
