// Each record's share of its roof (docs/ceilings.md, "Which roof").
#pragma once

#include <nlohmann/json.hpp>

namespace parlab {

// The record's `limit`: {roof, value, unit, attained, fraction} against the binding roof of the
// ceilings block (context.ceilings), or {roof: null, reason: "no roof: <why>"}; null (no limit at
// all) for a record whose status is not "ok". The roofs that apply come from the catalogue's
// RoofModel of the record's kernel; the binding one is the one whose time lower bound (the
// record's work / the roof) is largest. The fraction is attained / value, not clamped: a record
// slightly above its roof says the roof's measurement was beaten, which is worth seeing.
nlohmann::json record_limit(const nlohmann::json& record, const nlohmann::json& ceilings);

// Whether `record` ran on a GPU: its `processor` field; for older records without it, the old
// rule (kind "gpu" or "cuda" in the backend's name). The one place that fallback lives in C++.
bool record_on_gpu(const nlohmann::json& record);

}  // namespace parlab
