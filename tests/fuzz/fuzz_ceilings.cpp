// libFuzzer target of the ceilings cache reader: the bytes are a cache file, parsed as
// load_or_measure_ceilings parses it and judged by cache_problem; a cache it trusts is then used
// as parlab uses one: printed by `parlab ceilings`, and each record of a run held against its roofs
// (record_limit). Contract: a cache is trusted or refused, or a UsageError (exit 2) for text that
// is no JSON; a trusted cache never breaks what uses it. Anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "core/error.hpp"
#include "experiments/io/read.hpp"
#include "experiments/machine/ceilings.hpp"
#include "experiments/machine/limit.hpp"

namespace {

using nlohmann::json;

// Records of a run, one per kind of roof (bandwidth, FMA, multiplies; CPU and GPU), as the runner writes them.
const json& records() {
  static const json r = json::parse(R"([
    {"kernel": "triad", "backend": "pool", "kind": "cpu", "threads": 4, "size": 1048576, "precision": "double",
     "status": "ok", "rate": {"bytes_per_s": 2.5e10}, "work": {"bytes": 2.5e7, "footprint_bytes": 2.5e7}},
    {"kernel": "dot", "backend": "serial", "kind": "cpu", "threads": 1, "size": 1048576, "precision": "double",
     "status": "ok", "rate": {"bytes_per_s": 1e10, "flops_per_s": 1e9}, "work": {"bytes": 1.6e7, "flops": 2e6}},
    {"kernel": "pi", "backend": "pool", "kind": "cpu", "threads": 2, "size": 1048576, "precision": "int32",
     "status": "ok", "rate": {"samples_per_s": 1e9}, "work": {"samples": 1048576}},
    {"kernel": "triad", "backend": "cuda", "kind": "gpu", "threads": 1, "size": 1048576, "precision": "float",
     "status": "ok", "rate": {"bytes_per_s": 1e12}, "work": {"bytes": 1.2e7}}
  ])");
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
  for (const json& r : records()) (void)parlab::record_limit(r, c);
  return 0;
}
