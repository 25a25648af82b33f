// A run made in rounds (`--rounds R`) keeps one record per measurement and round: the truth, and
// what --resume completes. Every view shows one record per measurement, its rounds pooled, and
// the pooled figures are derived here, once, where the run is made: at its end (and on --resume,
// which ends the same way) and by `parlab migrate` for runs from before (docs/records.md,
// "Rounds"). The views read them from the run's `pooled` and derive nothing of their own.
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/record/record.hpp"
#include "experiments/record/workers.hpp"

namespace parlab {

// One round's workers block, with what pooling weighs it by: its repetitions' times (per run of
// the kernel, the record's reps_s) and its runs of the kernel (repetitions x inner).
struct RoundWorkers {
  Workers workers;
  std::vector<double> reps_s;
  double runs = 0;
};

// The workers of a measurement's rounds as one block, exact where the definitions allow:
//   - per-run figures (runtime_s, busy_s, cpu_s, items, chunks, switches, the counters, the
//     disturbance's runnable_s, run_delay_s and switches): the rounds' means weighted by their
//     runs, which is the mean over all runs; runnable_share the pooled runnable time over the
//     pooled busy time; window_s summed; others and each CPU's steal and busy shares weighted by
//     the rounds' windows;
//   - load_balance[] and communication[]: the repetitions' factors in round order, and `pop` POP's
//     figures of the pooled repetition whose time is the median (of an even count the faster of
//     the middle two, as one record's), useful_s = parallel x count x runtime_s, with the ranges
//     over every repetition;
//   - no trace: a trace is one repetition's events, which its round's record holds (the views
//     show the first round's, whose repetitions come first among the pooled ones).
// nullopt where the rounds cannot be pooled: a round without the block, worker counts that differ,
// or accounting on in one round and off in another. A block whose accounting is off in every round
// is the first round's. `pop` is left out where a round's factors do not pair with its repetitions.
// The cause is not set: the caller makes it on the pooled record.
std::optional<Workers> pool_workers(const std::vector<RoundWorkers>& rounds);

// The run's `pooled` array: for each measurement whose records carry a round, in the order of
// their first rounds, {records: the indexes of its rounds' records in round order, rounds}. Where
// a round failed (not ok, or its validation did not pass), `failed`: the index of the first such
// round's record, which the views show in its place (a failure stays a failure). Otherwise the
// pooled figures, each made on the pooled record (the first round's, with the pooled times and
// workers) as the runner makes a record's: time_s (the spread of the rounds' repetitions
// together), unstable (that spread's reason, else that the rounds' medians differ by over
// kUnstableCv), inner (the largest), rate (from the pooled median), workers (pool_workers, with
// its cause) and limit (graded_limit against `context`). A round whose times are not finite and
// positive is refused (UsageError naming it). An empty array where no record has a round.
nlohmann::json pool_rounds(const std::vector<Record>& records, const nlohmann::json& context);

// Whether `records` hold a record of a round (a run made in rounds).
bool has_rounds(const std::vector<Record>& records);

}  // namespace parlab
