// External peers (kind "peer"): STREAM binaries built outside parlab, from BabelStream's own
// sources, measured by parlab beside its own backends, registered by experiments/wiring/make_registry.cpp.
//
// Entries (none is in the default set: a suite or --backend names them):
//   babelstream-omp    <dir>/omp-stream  (BabelStream's OpenMP model), OMP_NUM_THREADS = threads
//   babelstream-cuda   <dir>/cuda-stream (BabelStream's CUDA model), --device = Problem::device;
//                      one host thread, so a thread sweep measures it once
//   likwid-bench-nt, likwid-bench-peakflops   likwid-bench's NT-store copy/triad and peakflops
//                      (peers/likwid.hpp, docs/peers.md), added by likwid::add_likwid_backends
// BabelStream's kernels: copy, mul, add, triad, dot, nstream; double and float (--float). <dir> is
// PARLAB_BABELSTREAM_DIR, or `parlab run --peer-dir DIR`; scripts/build-babelstream.sh builds
// both binaries from a BabelStream source tree. An entry whose binary is not there is registered
// unavailable with the reason, so its records say why (never an error).
//
// What one run() is, and how its record compares with parlab's own (peers/babelstream.hpp has
// the command line and the CSV it parses): one invocation of the binary for the record's kernel
// alone (`--only Triad`), its size and precision, `--numtimes 100` (BabelStream's default). It
// times every iteration and drops the first; run() reports the mean of the other 99 as the
// kernel time of the run (Workload::last_timing), so the record's time and rate.bytes_per_s are
// parlab's statistic (median over repetitions of the mean time of back-to-back runs after a
// warm-up) applied to BabelStream's kernel, like every other record. BabelStream's own figure
// (bandwidth from its fastest iteration) is kept beside it as metrics.peer_bytes_per_s, over the
// timed invocations only (Workload::warmed_up): the warm-up's iterations are dropped, as the
// runner drops parlab's warm-up repetitions, so both sides' fastest come from as many iterations. The work
// is parlab's table (core/stream.hpp), which counts bytes as BabelStream does; run() checks that
// each reported bandwidth agrees with it. Validation is BabelStream's own gold check: it runs
// with --silence-errors, and a "FAILED validation" line on its stderr makes validate() fail with
// that line, timings kept (status failed-validation). An exit status other than 0, a signal, a
// timeout, output that is not its CSV, or a row that does not describe the planned measurement
// (kernel, size, element size, numtimes) is an exception from run(): an "error" record naming
// the fault, with the binary's stderr tail; never a crash.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/workload.hpp"

namespace parlab {

// How a peer binary ended, as parlab's spawn helper (experiments/io/child_process.hpp) reports it.
// The wing does not start processes itself: experiments/ hands it run_child, so there is one
// spawn path in parlab (posix_spawn, stderr passed on and its tail kept, a timeout, and
// this process's SIGINT forwarded).
struct PeerProcess {
  bool started = false;
  bool interrupted = false;  // stopped because this process was interrupted (SIGINT, SIGTERM)
  int exit_code = -1;
  std::string ended;         // "exited with 1", "was killed by SIGSEGV", "could not start: ..."
  std::string out;           // its stdout
  std::string err_tail;      // the last few KiB of its stderr
};

using PeerEnv = std::vector<std::pair<std::string, std::string>>;
using PeerLauncher = std::function<PeerProcess(const std::vector<std::string>& argv, const PeerEnv& env)>;

struct PeerOptions {
  std::string babelstream_dir;  // empty: not configured
  std::string dir_from;         // where the directory was named ("PARLAB_BABELSTREAM_DIR", "--peer-dir")
  PeerLauncher launch;
};

// Registers babelstream-omp and babelstream-cuda, available or not. Registered after the CUDA
// part: when the `cuda` entry says this machine has no CUDA device (or driver), babelstream-cuda
// is unavailable for the same reason. Never throws for a missing binary.
void add_peers_backends(Registry& registry, const PeerOptions& options);

}  // namespace parlab
