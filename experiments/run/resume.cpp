// Resuming a run: reading the results.json of an interrupted run, checking every key that
// resuming reads (the file may have been edited by hand), then handing the plan's missing
// records to Runner::execute (runner.cpp).
#include <cstdint>
#include <algorithm>
#include <filesystem>
#include <set>
#include <fstream>
#include <functional>
#include <string>
#include <utility>

#include "experiments/machine/context.hpp"
#include "core/error.hpp"
#include "experiments/io/read.hpp"
#include "experiments/record/record.hpp"
#include "experiments/run/runner.hpp"

namespace parlab {

using nlohmann::json;

namespace {

// The records of a run to resume: what the resumed run reads of them (the ids done, the summary,
// the pi check), then each whole through the record's one reader, as the run will keep them.
void check_resumable_records(const json& records, std::size_t plan_size,
                             const std::function<void(const std::string&, const std::string&)>& bad) {
  const auto type = [](const json& j) { return std::string(j.type_name()); };
  std::set<std::uint64_t> ids;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::string at = "records[" + std::to_string(i) + "]";
    const json& r = records[i];
    if (!r.is_object()) bad(at, "must be an object, not " + type(r));
    if (!r.contains("id") || !r["id"].is_number_unsigned() || r["id"].get<std::uint64_t>() >= plan_size) {
      bad(at + ".id", "must be a plan index (an unsigned integer below " + std::to_string(plan_size) + ")");
    }
    if (!ids.insert(r["id"].get<std::uint64_t>()).second) {
      bad(at + ".id", "repeats the id " + r["id"].dump() + " of an earlier record: each plan entry has one record");
    }
    for (const char* key : {"status", "kernel", "backend"}) {
      if (!r.contains(key) || !r[key].is_string()) bad(at + "." + key, "must be a string");
    }
    for (const char* key : {"interpreter", "python_gil", "reason"}) {
      if (r.contains(key) && !r[key].is_string()) bad(at + "." + key, "must be a string");
    }
    // The summary names a failed record by its validation's detail.
    const bool failed = r["status"] != "ok" && r["status"] != "unavailable";
    if ((failed || r.contains("validation")) && !(r.contains("validation") && r["validation"].is_object())) {
      bad(at + ".validation", "must be an object");
    }
    if (r.contains("validation") && r["validation"].contains("detail") && !r["validation"]["detail"].is_string()) {
      bad(at + ".validation.detail", "must be a string");
    }
    if (r["kernel"] == "pi" && r.contains("hits")) {
      for (const char* key : {"hits", "seed", "size"}) {
        if (!r.contains(key) || !r[key].is_number_unsigned()) bad(at + "." + key, "must be an unsigned integer");
      }
    }
    // The rest through the record's one reader, which the resumed run keeps them as.
    try {
      (void)read_record(r);
    } catch (const UsageError& e) {
      bad(at, std::string("cannot be read as a record: ") + e.what());
    }
  }
}

// A results.json to resume is the user's input, which may have been edited by hand: every key
// that resuming reads is checked here, so a wrong type is exit 2 naming the file and the key,
// not a JSON library's type_error halfway through the run (which names neither and was exit 1,
// the code for a failed measurement).
void check_resumable(const json& doc, const std::filesystem::path& file) {
  const auto bad = [&](const std::string& key, const std::string& what) {
    throw UsageError("--resume: '" + file.string() + "': key '" + key + "' " + what);
  };
  const auto type = [](const json& j) { return std::string(j.type_name()); };
  if (doc.contains("status") && !doc["status"].is_string()) bad("status", "must be a string, not " + type(doc["status"]));
  if (!doc["plan"].is_array()) bad("plan", "must be an array, not " + type(doc["plan"]));
  if (!doc["records"].is_array()) bad("records", "must be an array, not " + type(doc["records"]));
  if (doc.contains("resumed_utc") && !doc["resumed_utc"].is_array()) {
    bad("resumed_utc", "must be an array, not " + type(doc["resumed_utc"]));
  }
  if (!doc.contains("context") || !doc["context"].is_object()) {
    bad("context", doc.contains("context") ? "must be an object, not " + type(doc["context"]) : "is missing");
  }
  const json& ctx = doc["context"];
  if (ctx.contains("build") && !ctx["build"].is_object()) bad("context.build", "must be an object, not " + type(ctx["build"]));
  if (ctx.contains("warnings") && !ctx["warnings"].is_array()) {
    bad("context.warnings", "must be an array, not " + type(ctx["warnings"]));
  }
  // The plan: the keys spec_from_json reads, each named with its entry.
  const std::pair<const char*, const char*> spec_keys[] = {
      {"study", "string"},  {"scaling", "string"}, {"kernel", "string"}, {"backend", "string"},
      {"precision", "string"}, {"threads", "integer"}, {"size", "unsigned"}, {"size_y", "unsigned"},
      {"seed", "unsigned"}, {"reps", "integer"}, {"warmup", "integer"}, {"device", "integer"},
      {"min_rep_seconds", "number"}};
  const auto fits = [](const json& v, const std::string& kind) {
    if (kind == "string") return v.is_string();
    if (kind == "unsigned") return v.is_number_unsigned();
    if (kind == "integer") return v.is_number_integer();
    return v.is_number();
  };
  const json& plan = doc["plan"];
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const std::string at = "plan[" + std::to_string(i) + "]";
    if (!plan[i].is_object()) bad(at, "must be an object, not " + type(plan[i]));
    for (const auto& [key, kind] : spec_keys) {
      if (!plan[i].contains(key)) bad(at + "." + key, "is missing");
      if (!fits(plan[i][key], kind)) bad(at + "." + key, std::string("must be ") + kind + ", not " + type(plan[i][key]));
    }
    for (const char* key : {"interpreter", "python_gil"}) {
      if (plan[i].contains(key) && !plan[i][key].is_string()) bad(at + "." + key, "must be a string");
    }
    for (const char* key : {"ranks", "round"}) {
      if (plan[i].contains(key) && !plan[i][key].is_number_integer()) bad(at + "." + key, "must be an integer");
    }
    try {
      (void)spec_from_json(plan[i]);  // what the types above do not cover: a precision's name
    } catch (const UsageError& e) {
      bad(at, std::string("is malformed: ") + e.what());
    }
    // The values make_plan would have refused: an edited plan is refused as the flags would be.
    const auto at_least = [&](const char* key, long long lo) {
      if (plan[i][key].get<long long>() < lo) {
        bad(at + "." + key, "must be at least " + std::to_string(lo) + ", not " + quoted_json(plan[i][key]));
      }
    };
    at_least("threads", 1);
    at_least("reps", 1);
    at_least("warmup", 0);
    at_least("device", 0);
    if (const double s = plan[i]["min_rep_seconds"].get<double>(); !(s >= 0 && s < 1e6)) {
      bad(at + ".min_rep_seconds", "must be a number of seconds from 0");
    }
  }
  check_resumable_records(doc["records"], plan.size(), bad);
}

}  // namespace

void check_resume_input(const json& doc, const std::filesystem::path& dir, const Registry& registry) {
  // A run of another schema was planned by another parlab, whose records this one would not
  // write alike: it is finished by the parlab that started it.
  if (doc.is_object() && doc.contains("schema") && doc["schema"].is_string() && doc["schema"] != kResultsSchema) {
    throw UsageError("--resume: '" + dir.string() + "' holds a run of schema " + doc["schema"].get<std::string>() +
                     "; this parlab resumes runs of " + kResultsSchema + " only (finish it with the parlab that started it)");
  }
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != kResultsSchema || !doc.contains("plan") ||
      !doc.contains("records")) {
    throw UsageError("--resume: '" + dir.string() + "' does not hold a parlab run (schema " + kResultsSchema + ")");
  }
  check_resumable(doc, dir / "results.json");
  // A kernel or backend this parlab does not know is the user's edit (exit 2), not an error record.
  for (std::size_t i = 0; i < doc["plan"].size(); ++i) {
    const json& s = doc["plan"][i];
    const std::string at = "--resume: '" + (dir / "results.json").string() + "': key 'plan[" + std::to_string(i) + "]";
    const BackendEntry* entry = registry.find(s["backend"].get<std::string>());
    if (entry == nullptr) throw UsageError(at + ".backend' names no backend of this parlab: " + quoted_json(s["backend"]));
    const std::string kernel = s["kernel"].get<std::string>();
    // An entry unavailable in this build lists no kernels; its records say it is unavailable.
    if (entry->available && std::find(entry->kernels.begin(), entry->kernels.end(), kernel) == entry->kernels.end()) {
      throw UsageError(at + ".kernel' names no kernel that " + entry->name + " runs: " + quoted_json(s["kernel"]));
    }
  }
}

int Runner::resume(const std::filesystem::path& dir) {
  dir_ = dir;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw UsageError("--resume: '" + dir.string() + "' is not a run directory (give the folder that holds results.json)");
  }
  // The lock before the read: what this process reads is what no other writer is changing.
  lock_.emplace(dir);
  doc_ = read_json_file(dir / "results.json", "--resume: results file");
  check_resume_input(doc_, dir, registry_);
  if (doc_.value("status", "") == "complete") {
    if (!options_.quiet) log_ << "parlab: run in '" << dir.string() << "' is already complete\n";
    return 0;
  }
  const json now = collect_context(registry_, {});
  json& ctx = doc_["context"];
  if (now["host"] != ctx["host"] || now["build"]["git_commit"] != ctx["build"]["git_commit"]) {
    ctx["warnings"].push_back("resumed on host " + now["host"].get<std::string>() + " with build " +
                              now["build"]["git_commit"].dump() + ": records may come from two machines or builds");
  }
  doc_["resumed_utc"].push_back(now["started_utc"]);
  specs_.clear();
  for (const json& s : doc_["plan"]) specs_.push_back(spec_from_json(s));
  records_.clear();
  for (const json& r : doc_["records"]) records_.push_back(read_record(r));
  doc_["records"] = records_json();  // as this parlab's writer writes them
  if (!options_.quiet) log_ << "parlab: resuming " << (dir / "results.json").string() << "\n";
  return execute();
}

}  // namespace parlab
