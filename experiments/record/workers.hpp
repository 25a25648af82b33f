// The record's `workers` block as typed values (docs/records.md, "Workers"): what
// experiments/run/worker_accounting.cpp makes from a ledger, what the causes
// (experiments/machine/worker_causes.hpp) read, and its one serializer and reader. The runner
// derives every per-record figure on these values before the record is written; the reader is
// for records read back from a file, which are untrusted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace parlab {

// A factor's lowest and highest value over the record's repetitions.
struct FactorRange {
  double lo = 0, hi = 0;
};

// POP's factors of the record (`workers.pop`). per_execution: those of the repetition whose time
// is the median (rep), with their range over the repetitions; records made before it hold the
// factors of the per-run means alone (per_execution false, rep, runtime_s, useful_s and ranges
// unset).
struct PopFigures {
  bool per_execution = false;
  int rep = 0;
  double runtime_s = 0, useful_s = 0;
  double load_balance = 1, communication = 1, parallel = 1;
  FactorRange load_balance_range, communication_range, parallel_range;
};

// What else ran beside the workers over the timed repetitions (`workers.disturbance`).
struct Disturbance {
  double window_s = 0;
  std::vector<double> runnable_s;  // per worker, per run
  double runnable_share = 0;
  // "schedstat" or "unavailable"; empty in records made before it, which take cpu_s for the
  // body's running time.
  std::string runnable_source;
  std::optional<std::vector<double>> run_delay_s;  // per worker, per run; absent in older records
  double switches = 0;
  std::vector<int> cpus;  // this host's CPUs the workers ran on; -1 where a read record's was no CPU id
  std::vector<double> steal, busy;  // per CPU of cpus
  std::optional<double> others;     // CPUs' worth of other processes' time; unset where /proc/stat was not read
};

// Instruction and cycle counters per worker and run, or why there are none.
struct WorkerCounters {
  bool available = false;
  std::string why;
  std::vector<double> instructions, cycles;
};

// One traced chunk: [worker, start_s, end_s, cpu], times from the region's start.
struct TracedChunk {
  int worker = 0;
  double start_s = 0, end_s = 0;
  int cpu = -1;
};

struct WorkersTrace {
  int rep = 0;
  double runtime_s = 0;
  std::vector<TracedChunk> events;
  bool truncated = false;
};

struct Workers {
  bool accounting = false;  // "on" / "off"
  std::optional<double> overhead;
  int count = 0;
  std::string why;  // where accounting is off
  // Where it is on: per run of the kernel, worker w's figures at element w.
  double runtime_s = 0;
  std::vector<double> busy_s, cpu_s, items, chunks, switches;
  std::vector<std::vector<int>> cpus;  // a read record's non-integer ids are left out
  std::vector<int> ranks, hosts;       // an MPI job's; empty within one process
  std::vector<double> load_balance, communication;  // per repetition
  std::optional<PopFigures> pop;
  std::optional<Disturbance> disturbance;
  std::optional<WorkerCounters> counters;
  std::optional<WorkersTrace> trace;
  std::uint64_t unattributed_chunks = 0;
  std::string cause;  // worker_shortfall's, where one holds
};

// The one writer of the `workers` block.
nlohmann::json to_json(const Workers& w);

// The `workers` block of a record read back from a file, read as every view reads untrusted input:
// a field of the wrong type, an array holding anything but finite numbers, or a non-finite number
// reads as absent, so no cause is built from it. nullopt where the record has no block.
std::optional<Workers> workers_of(const nlohmann::json& record);

}  // namespace parlab
