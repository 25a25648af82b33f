// An older run brought to the current results schema (migrate.hpp); the command is
// cli/cmd_migrate.cpp.
#include "experiments/run/migrate.hpp"

#include "experiments/record/record.hpp"
#include "experiments/run/pool_rounds.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "core/kernels.hpp"
#include "core/spread.hpp"
#include "experiments/io/spread_json.hpp"
#include "experiments/machine/limit.hpp"
#include "experiments/machine/roof_drift.hpp"
#include "experiments/machine/worker_causes.hpp"
#include "experiments/run/runner.hpp"

namespace parlab {

namespace {

using json = nlohmann::json;

// The schemas parlab has written. Schema 2 renamed two families; their old names, here only:
// records of schema 1 are read after `parlab migrate` has renamed them.
constexpr std::string_view kSchema1 = "parlab-results/1";
// Schema 3 gave time_s the whole spread of the repetitions (quartiles, CV, the median's interval)
// and the unstable mark; a record of 1 or 2 gets them from its reps_s, as the runner computes them.
constexpr std::string_view kSchema2 = "parlab-results/2";
// Schema 4 graded every record above its roof or its in-core bound with the note that says by how
// much (machine/limit.hpp), and holds no path of the machine that wrote it (io/portable_paths.hpp);
// a run of 3 or older gets both here, each from what the run itself kept.
constexpr std::string_view kSchema3 = "parlab-results/3";
// Schema 5 holds a run in rounds pooled where it is made (`pooled`, run/pool_rounds.hpp): a run of
// 4 or older in rounds is pooled here, from its own records.
constexpr std::string_view kSchema4 = "parlab-results/4";
// Appended to each note written here: the record was graded after its run, by today's rules.
constexpr std::string_view kGradedHere = " (graded by parlab migrate)";
const std::pair<std::string_view, std::string_view> kFamilyRenames[] = {{"seed", "basic"},
                                                                        {"study", "practice"}};

std::string text_of(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A measured record's time_s made the spread of its repetitions, and its unstable mark, as the
// runner makes them (runner.cpp, add_times). Only where the old time_s is that of the same
// repetitions (its median theirs): a record whose time came from elsewhere keeps it. True when done.
bool add_spread(json& r) {
  if (!r.is_object() || text_of(r, "status") != "ok" || !r.contains("reps_s") || !r["reps_s"].is_array()) return false;
  std::vector<double> reps;
  for (const json& x : r["reps_s"]) {
    if (!x.is_number()) return false;
    reps.push_back(x.get<double>());
  }
  const auto s = spread_of(reps);
  const json* t = r.contains("time_s") && r["time_s"].is_object() ? &r["time_s"] : nullptr;
  if (!s || t == nullptr || !t->contains("median") || !(*t)["median"].is_number()) return false;
  const double median = (*t)["median"].get<double>();
  if (std::abs(median - s->median) > 1e-9 * std::abs(s->median)) return false;
  r["time_s"] = spread_json(*s);
  if (const std::string why = unstable_reason(*s); !why.empty()) r["unstable"] = why;
  return true;
}

// The figures of a limit block: every number, flag and null in it by its path, and the roof and
// unit it names. What else it holds is text (a cause, a label, a note).
void figures_of(const json& j, const std::string& path, std::map<std::string, json>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if (v.is_string() && k != "roof" && k != "unit") continue;
      figures_of(v, path + "/" + k, out);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) figures_of(j[i], path + "/" + std::to_string(i), out);
  } else {
    out[path] = j;
  }
}
std::map<std::string, json> figures_of(const json& limit) {
  std::map<std::string, json> out;
  figures_of(limit, "", out);
  return out;
}

// Each record's causes and labels as this parlab's rules give them from the record's own
// measurements and its run's ceilings, where an older rule gave others (worker_causes.hpp,
// limit.cpp): its workers' `cause`, and its `limit` where grading it again gives every figure
// the same (its roof, value, share, interval and in-core bound) and only its text differs (the
// in-core cause, a residency label, a note). Where a figure would move (a rule of roof choice or
// residency changed since, or the kernel is one this build does not know), the limit is left.
void grade_causes(std::vector<Record>& records, const json& doc, Migration& m) {
  const json context = doc.value("context", json::object());
  for (Record& r : records) {
    if (r.workers && r.workers->accounting && r.workers->count > 1) {
      if (std::string now = worker_shortfall(r); now != r.workers->cause) {
        r.workers->cause = std::move(now);
        ++m.causes_graded;
      }
    }
    if (r.status != RecordStatus::ok || !r.limit.is_object()) continue;
    json again = graded_limit(r, context);
    if (!again.is_object() || figures_of(again) != figures_of(r.limit)) continue;
    // The notes of an excess stay the record's own; one it lacks is added by grade_excess, which
    // says that parlab migrate added it.
    const auto keep_note = [](json& to, const json& from, const char* key) {
      to.erase(key);
      if (from.contains(key)) to[key] = from[key];
    };
    keep_note(again, r.limit, "above_roof");
    if (again.contains("incore") && r.limit.contains("incore")) keep_note(again["incore"], r.limit["incore"], "above");
    if (again != r.limit) {
      r.limit = std::move(again);
      ++m.causes_graded;
    }
  }
}

// Each ok record above its roof or its in-core bound that lacks the note saying so (its run predates
// the note) given it, from the record's own share and the run's ceilings, as record_limit writes it
// for a new record: limit.cpp writes both notes, here and there. No fraction or roof is changed.
void grade_excess(std::vector<Record>& records, const json& doc, Migration& m) {
  static const json kNone;
  const json* ceilings = &kNone;  // what grading reads; a run without it gets a note that says so
  if (const auto ctx = doc.find("context"); ctx != doc.end() && ctx->is_object()) {
    if (const auto c = ctx->find("ceilings"); c != ctx->end() && c->is_object()) ceilings = &*c;
  }
  for (Record& r : records) {
    if (r.status != RecordStatus::ok || !r.limit.is_object()) continue;
    const auto limit = &r.limit;
    // A limit with an interval was graded at its run's end (roof_drift.hpp), which kept above_roof
    // only where the whole interval is above 1: nothing is missing.
    if (!limit->contains("above_roof") && !limit->contains("interval")) {
      if (const std::string note = above_roof_note(*limit, *ceilings); !note.empty()) {
        (*limit)["above_roof"] = note + std::string(kGradedHere);
        ++m.roof_notes_added;
      }
    }
    if (const auto incore = limit->find("incore");
        incore != limit->end() && incore->is_object() && !incore->contains("above")) {
      if (const std::string note = incore_above_note(*incore, incore_block(r, *ceilings)); !note.empty()) {
        (*incore)["above"] = note + std::string(kGradedHere);
        ++m.incore_notes_added;
      }
    }
  }
}

}  // namespace

Migration migrate_results(json doc, const Registry& registry, const std::string& where, const PathRoots& roots) {
  if (!doc.is_object()) throw UsageError(where + ": not a parlab results file (expected a JSON object)");
  Migration m;
  m.from_schema = text_of(doc, "schema");
  if (m.from_schema != kResultsSchema && m.from_schema != kSchema1 && m.from_schema != kSchema2 &&
      m.from_schema != kSchema3 && m.from_schema != kSchema4) {
    throw UsageError(where + ": schema is '" + m.from_schema + "', expected '" + kResultsSchema +
                     "' or an older one ('" + std::string(kSchema1) + "', '" + std::string(kSchema2) + "', '" +
                     std::string(kSchema3) + "', '" + std::string(kSchema4) + "')");
  }
  if (!doc.contains("records") || !doc["records"].is_array())
    throw UsageError(where + ": 'records' must be a list");
  const bool old = m.from_schema == kSchema1;
  const bool before_spread = m.from_schema == kSchema1 || m.from_schema == kSchema2;
  std::string unknown;  // the records this build cannot give a family, said together
  int n_unknown = 0;
  for (std::size_t i = 0; i < doc["records"].size(); ++i) {
    json& r = doc["records"][i];
    const std::string kernel = r.is_object() ? text_of(r, "kernel") : std::string();
    if (kernel.empty()) throw UsageError(where + ": record " + std::to_string(i) + " has no 'kernel'");
    if (r.contains("family") && r["family"].is_string()) {
      for (const auto& [was, is] : kFamilyRenames) {
        if (old && r["family"] == was) {
          r["family"] = is;
          ++m.families_renamed;
        }
      }
    } else if (std::string family = kernel_family(kernel, registry.find(text_of(r, "backend")));
               !family.empty()) {
      r["family"] = family;
      ++m.families_added;
    } else if (++n_unknown <= 3) {
      unknown += (unknown.empty() ? "" : "; ") + std::string("record ") + std::to_string(i) + " (kernel '" +
                 kernel + "' on backend '" + text_of(r, "backend") + "')";
    }
    // The arrays the workload allocated, as the runner records them today (runner.cpp): only on a
    // measured record (one with `work`), and only where the kernel allocates any.
    if (r.contains("work") && r["work"].is_object() && !r["work"].contains("footprint_bytes") &&
        r.contains("size") && r["size"].is_number_unsigned()) {
      const auto precision = precision_from_name(text_of(r, "precision"));
      const std::uint64_t size_y =
          r.value("size_y", json(0)).is_number_unsigned() ? r["size_y"].get<std::uint64_t>() : 0;
      if (precision && find_kernel(kernel) != nullptr) {
        if (const double bytes =
                kernel_host_bytes(kernel, *precision, r["size"].get<std::uint64_t>(), size_y);
            bytes > 0) {
          r["work"]["footprint_bytes"] = bytes;
          ++m.footprints_added;
        }
      }
    }
  }
  if (before_spread) {
    for (json& r : doc["records"]) m.spreads_added += add_spread(r) ? 1 : 0;
  }
  if (n_unknown > 0) {
    throw UsageError(
        where + ": " + std::to_string(n_unknown) + " record(s) of a kernel this build does not know, so " +
        "no family to give them: " + unknown + (n_unknown > 3 ? "; ..." : "") +
        " (a kernel of a wing this build lacks, such as CUDA's: migrate with a build that has it)");
  }
  // Every record read whole (record/record.hpp), so a record this parlab cannot read is refused
  // here, not by the next reader of the run; graded and pooled typed, and written by the one
  // serializer.
  std::vector<Record> records;
  for (std::size_t i = 0; i < doc["records"].size(); ++i) {
    try {
      records.push_back(read_record(doc["records"][i]));
    } catch (const UsageError& e) {
      throw UsageError(where + ": record " + std::to_string(i) + " cannot be read as a record: " + e.what());
    }
  }
  grade_causes(records, doc, m);
  grade_excess(records, doc, m);
  // A run in rounds: its measurements pooled as the runner pools them now (pool_rounds.hpp).
  if (has_rounds(records)) {
    json pooled;
    try {
      pooled = pool_rounds(records, doc.value("context", json::object()));
    } catch (const UsageError& e) {
      throw UsageError(where + ": " + e.what());
    }
    if (!doc.contains("pooled") || doc["pooled"] != pooled) {
      doc["pooled"] = std::move(pooled);
      m.rounds_pooled = static_cast<int>(doc["pooled"].size());
    }
  }
  json written = json::array();
  for (const Record& r : records) written.push_back(to_json(r));
  doc["records"] = std::move(written);
  // Last, so that whatever the steps above wrote is made portable too.
  m.paths_made_portable = make_portable(doc, roots);
  if (m.from_schema != kResultsSchema) {
    if (!doc.contains("migrated_from")) doc["migrated_from"] = m.from_schema;
    doc["schema"] = kResultsSchema;
  }
  m.doc = std::move(doc);
  return m;
}

}  // namespace parlab
