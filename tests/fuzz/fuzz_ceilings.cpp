// libFuzzer target of the ceilings cache reader: the bytes are a cache file, parsed as
// load_or_measure_ceilings parses it and judged by cache_problem; a cache it trusts is then used
// as parlab uses one: printed by `parlab ceilings`, and each record of a run held against its roofs
// (record_limit). Contract: a cache is trusted or refused, or a UsageError (exit 2) for text that
// is no JSON; a trusted cache never breaks what uses it. Anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <optional>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/spread.hpp"
#include "experiments/io/read.hpp"
#include "experiments/machine/ceilings.hpp"
#include "experiments/machine/limit.hpp"

namespace {

using nlohmann::json;

// Records of a run, one per kind of roof (bandwidth, FMA, multiplies; CPU and GPU), as the runner makes them.
parlab::Record record(const char* kernel, const char* backend, const char* kind, int threads, parlab::Precision p,
                      parlab::RecordRates rate, parlab::WorkCount work, std::optional<double> footprint = std::nullopt) {
  parlab::Record r;
  r.spec.problem.kernel = kernel;
  r.spec.problem.threads = threads;
  r.spec.problem.size = 1048576;
  r.spec.problem.precision = p;
  r.spec.backend = backend;
  r.kind = kind;
  r.status = parlab::RecordStatus::ok;
  parlab::RecordTimes t;
  t.reps_s = {1.0};
  t.time_s = *parlab::spread_of(t.reps_s);
  r.times = t;
  r.rate = rate;
  r.work = work;
  r.footprint_bytes = footprint;
  r.validation = parlab::RecordVerdict{true, ""};
  return r;
}
const std::vector<parlab::Record>& records() {
  using parlab::Precision;
  static const std::vector<parlab::Record> r = {
      record("triad", "pool", "cpu", 4, Precision::f64, {std::nullopt, 2.5e10, std::nullopt}, {0, 2.5e7, 0}, 2.5e7),
      record("dot", "serial", "cpu", 1, Precision::f64, {std::nullopt, 1e10, 1e9}, {0, 1.6e7, 2e6}),
      record("pi", "pool", "cpu", 2, Precision::i32, {1e9, std::nullopt, std::nullopt}, {1048576, 0, 0}),
      record("triad", "cuda", "gpu", 1, Precision::f32, {std::nullopt, 1e12, std::nullopt}, {0, 1.2e7, 0})};
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  json c;
  try {
    c = parlab::parse_json_text(text, "ceilings cache 'fuzz.json'");
  } catch (const parlab::UsageError&) {
    return 0;
  }
  if (!parlab::cache_problem(c).empty()) return 0;
  c["cache"] = "fuzz.json";
  std::ostringstream out;
  parlab::print_ceilings(c, out);
  for (const parlab::Record& r : records()) (void)parlab::record_limit(r, c);
  return 0;
}
