// Each record's share of its roof (docs/ceilings.md, "Which roof").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "experiments/record/record.hpp"

namespace parlab {

// The record's `limit`: {roof, value, unit, attained, fraction} against the binding roof of the
// ceilings block (context.ceilings), or {roof: null, reason: "no roof: <why>"}; null (no limit at
// all) for a record whose status is not "ok". The roofs that apply come from the catalogue's
// RoofModel of the record's kernel; the binding one is the one whose time lower bound (the
// record's work / the roof) is largest. The fraction is attained / value, not clamped: a record
// slightly above its roof says the roof's measurement was beaten, which is worth seeing.
nlohmann::json record_limit(const Record& record, const nlohmann::json& ceilings);

// The note of a record above its roof (`limit.above_roof`), from its `limit` (fraction, attained,
// roof, and basis where the roof was scaled) and the run's ceilings (context.ceilings; null where
// the run kept none): by how much, and whether the excess lies within the roof's own spread, or
// that what would say so is missing. Empty at a fraction of 1 or below. Written here only:
// record_limit and `parlab migrate` (which grades runs that predate the note) both call it.
std::string above_roof_note(const nlohmann::json& limit, const nlohmann::json& ceilings);

// The note of a record above its in-core bound (`limit.incore.above`), from its `limit.incore`
// (fraction) and the ceilings' in-core block it was held against (incore_block; null where the
// run's ceilings keep none): by how much, and whether its probe's spread covers it. Empty at 1 or
// below. Written here only, as above_roof_note.
std::string incore_above_note(const nlohmann::json& incore_limit, const nlohmann::json* block);

// The ceilings' in-core block of the compiled loop `record` ran (incore.hpp: `pi` and `matmul` on
// the CPU, `pi_gpu` on the GPU), by its kernel and processor; null where the ceilings hold none.
const nlohmann::json* incore_block(const Record& record, const nlohmann::json& ceilings);

// Whether `record` ran on a GPU: its `processor`; for older records without it, the old rule
// (kind "gpu" or "cuda" in the backend's name). The one place that fallback lives in C++.
bool record_on_gpu(const Record& record);

}  // namespace parlab
