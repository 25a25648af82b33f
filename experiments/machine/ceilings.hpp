// This machine's roofs (docs/ceilings.md): `parlab ceilings`, their cache, and the block a run's
// context holds as `context.ceilings`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/ceilings_cpu.hpp"
#include "core/roof.hpp"
#include "core/workload.hpp"

namespace parlab {

// The cache file of this machine and build: <dir>/<host>-<cpu model hash>-<build hash>.json, where
// <dir> is $PARLAB_CEILINGS_CACHE, else $XDG_CACHE_HOME/parlab/ceilings, else
// ~/.cache/parlab/ceilings; nullopt when none of these is set. The build hash covers the commit,
// compiler, flags, build type and sanitizers, so a rebuild that could change a probe's code
// measures again. A PARLAB_CEILINGS_QUICK measurement has a file of its own ("-quick").
std::optional<std::filesystem::path> ceilings_cache_file();

// How the CPU bandwidth roofs are measured (BandwidthProbe::measure's working sets, bytes of all
// a kernel's arrays, and repetitions): memory-resident sets from the last-level cache `llc`, or a
// few cached megabytes where `quick` (PARLAB_CEILINGS_QUICK). One plan, so that the probe at a
// run's end (roof_drift.hpp) measures what `parlab ceilings` measured and the two compare.
struct BandwidthProbePlan {
  std::vector<std::uint64_t> working_sets;
  int reps = 0;
  std::string note;  // what every roof's `how` ends with: that quick sizes are no roofs, or nothing
};
BandwidthProbePlan bandwidth_probe_plan(std::optional<std::uint64_t> llc, bool quick);

// The probe kernel of a bandwidth roof (read, copy_nt, triad_nt); nullopt for a compute roof.
std::optional<BandwidthKernel> bandwidth_kernel(CpuRoof base) noexcept;

// A roof as context.ceilings holds it (docs/ceilings.md, "Data format"), measured at `when`; a
// figure in a roof's unit as the listing writes it (12.3 GB/s); the time now in that format.
nlohmann::json roof_json(const Roof& r, const std::string& when);
std::string human_figure(double v, const std::string& unit);
std::string utc_now_text();

// Measures the roofs now (CPU on parlab's pool, GPU when a device exists). `log` gets one line
// per probe. PARLAB_CEILINGS_QUICK=1 (tests only) shrinks every probe to a few milliseconds: its
// numbers are no roofs (arrays in cache), and every roof's `how` and the block's `quick` say so.
nlohmann::json measure_ceilings(const Registry& registry, std::ostream& log);

// The cached ceilings of this machine and build, or measured (and cached) when there are none,
// the cache is unreadable, or `remeasure`. Prints one line to `log` when it measures.
// A roof set's spread over this (range over median) was measured beside other work.
inline constexpr double kBusySpread = 0.25;

// Why a measured roof set is not to be kept, from its own evidence, or empty: other processes'
// time while the probes ran (`others`, at least kOthersDisturb CPUs), a roof whose measurements
// spread over kBusySpread, or an all-CPU compute roof no higher than the one-CPU roof (bandwidth
// left out: on a VM one CPU can draw what all do).
std::string busy_roofs(const nlohmann::json& ceilings);

// The cached roof set, else one measured now and cached, unless busy_roofs() names a reason
// (kept as `busy`): then it is used for this run, said, and not cached (the test probes of
// PARLAB_CEILINGS_QUICK excepted).
nlohmann::json load_or_measure_ceilings(const Registry& registry, bool remeasure, std::ostream& log);

// What makes a parsed ceilings cache untrustworthy, or empty when nothing does: a cache that fails
// it is measured again, never used. Declared here, not kept in ceilings.cpp, so that the cache
// reader's fuzz target (tests/fuzz/fuzz_ceilings.cpp) checks it with what trusts a cache it passes.
std::string cache_problem(const nlohmann::json& c);

// The warnings of an in-core block (`incore`, the ceilings' block of blocks): its probe's windows
// spread over 10%, or CPUs so unequal at its probe that floating records read far below the bound.
std::vector<std::string> incore_warnings(const nlohmann::json& incore);

// The table `parlab ceilings` prints of a cache `c` that cache_problem passed, with its "cache" key set.
void print_ceilings(const nlohmann::json& c, std::ostream& out);

// `parlab ceilings [--remeasure] [--json]`.
int cmd_ceilings(const Registry& registry, bool remeasure, bool as_json, std::ostream& out, std::ostream& err);

}  // namespace parlab
