// BabelStream as an external peer: its command line, its CSV, and the workload that runs it.
//
// Read from BabelStream's sources (github.com/UoB-HPC/BabelStream, src/main.cpp at commit
// 57637d572532fc028b6c0964944f1afc27ff5436, the main branch after v6.0-rc; not copied here):
//   <model>-stream --arraysize N --numtimes K --only Copy|Mul|Add|Triad|Dot|Nstream --csv
//                  --silence-errors [--float] [--device D]
// (--only and --silence-errors arrived after v5.0; an older binary refuses them with
// "Unrecognized argument", which becomes the record's reason). With --csv it prints, after
// whatever its model prints first (the CUDA model names its device on stdout), one header and
// one row per kernel run, "," separated, numbers in the default ostream format:
//   function,num_times,n_elements,sizeof,max_MB_per_sec,min_runtime,max_runtime,avg_runtime
//   Triad,100,33554432,8,120345,0.00669123,0.0071,0.00680427
// The bandwidth column is named after the unit (max_MB_per_sec by default; MiB, GB, GiB, TB,
// TiB with --mibibytes and the like; v4/v5 wrote max_mbytes_per_sec or max_mibytes_per_sec):
// weight * sizeof * n_elements / min_runtime in that unit, weight = 2 copy, mul, dot; 3 add,
// triad; 4 nstream (parlab's words per element). Runtimes are seconds; min, max and average
// leave out the first iteration. Its gold check runs before the CSV is printed and writes
// "FAILED validation of <array>[i]: ..." (or "of sum") to stderr; without --silence-errors it
// then exits 1 and prints no CSV.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_table.hpp"
#include "core/workload.hpp"
#include "backends.hpp"

namespace parlab::babelstream {

// BabelStream's iterations per invocation: its default, so metrics.peer_bytes_per_s is the figure
// a user running the binary by hand would read (each invocation drops its first iteration).
inline constexpr int kNumTimes = 100;

// The kernels the binaries run, keyed by the catalogue, with BabelStream's label for each.
const KernelTable<std::string_view>& kernel_table();
// "Triad" for "triad"; throws UsageError for a kernel BabelStream does not have.
std::string label_of(const std::string& kernel);

struct CsvRow {
  std::string function;
  std::uint64_t num_times = 0;
  std::uint64_t n_elements = 0;
  std::uint64_t element_bytes = 0;  // the sizeof column
  double bytes_per_s = 0;           // the bandwidth column, converted from its unit
  double min_s = 0, max_s = 0, avg_s = 0;
};

// The rows of BabelStream's --csv output. Throws FailureError naming what is wrong: no header, a
// header other than BabelStream's, a bandwidth unit it does not know, a row with another number
// of fields, a field that is not a number (or a time that is not finite and positive).
std::vector<CsvRow> parse_csv(const std::string& out);

// The command line of one invocation.
struct Invocation {
  std::string binary;  // full path
  std::string kernel;  // parlab's name
  std::uint64_t size = 0;
  Precision precision = Precision::f64;
  bool gpu = false;
  int device = 0;
};
std::vector<std::string> command_line(const Invocation& inv);

// One (kernel, size, precision, threads) measurement through `binary`: run() is one invocation
// through `launch`. `backend` names it in messages; `threads` > 0 sets OMP_NUM_THREADS.
std::unique_ptr<Workload> make_workload(std::string backend, std::string binary, bool gpu, PeerLauncher launch,
                                        const Problem& p);

}  // namespace parlab::babelstream
