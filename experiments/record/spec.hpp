// One measurement of a plan, typed (MeasurementSpec), and its JSON form: the plan entry a run
// keeps to resume, the spec a child process measures, and the identity every record of it
// begins with (record/record.hpp). Held below plan/, which makes specs, and run/, which measures
// them, because the record is made of one.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/workload.hpp"

namespace parlab {

// The seed of the pi stream when none is given: `parlab pi`, `parlab run` and suites without a
// "seed" all use it, so their counts agree.
inline constexpr std::uint64_t kDefaultSeed = 42;

// The problem of a plan's measurement before the plan sets it: the default seed.
inline Problem default_problem() {
  Problem p;
  p.seed = kDefaultSeed;
  return p;
}

// One measurement of the plan: the problem a backend's workload is made for, held as the
// workload takes it (kernel, precision, size, size_y, seed, threads, device), and how to measure it.
struct MeasurementSpec {
  std::string study;    // suite-level label ("quick", "scaling", ...)
  std::string scaling;  // "strong", "weak" or "none"
  Problem problem = default_problem();
  std::string backend;
  int reps = 5;
  int warmup = 1;
  double min_rep_seconds = 0.0;  // repeat the kernel inside one repetition until this long
  // Python records: the interpreter that measures it (experiments/machine/interpreters.hpp), as its
  // label ("3.13.5 free-threaded"), and the PYTHON_GIL its process runs with ("0", "1"). Both
  // empty: this process's own interpreter, as its environment says.
  std::string interpreter;
  std::string python_gil;
  // MPI records: the ranks of the job that measures it, launched for it by the runner (suite
  // key "ranks", `parlab run --ranks`); 0: this process, whatever job it is part of.
  int ranks = 0;
  // The round of a plan run in rounds (suite key "rounds", `parlab run --rounds`): 1..rounds, the
  // whole plan measured again in each, so every measurement is spread over the run's duration
  // and a slow minute of the machine falls on all of them alike. 0: a plan of one round.
  int round = 0;
};

nlohmann::json to_json(const MeasurementSpec& s);
MeasurementSpec spec_from_json(const nlohmann::json& j);  // throws UsageError when malformed

}  // namespace parlab
