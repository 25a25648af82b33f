// `parlab migrate RUN...` (commands.hpp): each run brought to the current schema in place by
// migrate_results (run/migrate.hpp), written atomically.
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "core/error.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/io/files.hpp"
#include "experiments/run/migrate.hpp"
#include "experiments/run/runner.hpp"

namespace parlab {

namespace {

using json = nlohmann::json;

std::filesystem::path results_file(const std::string& run) {
  const std::filesystem::path p(run);
  return std::filesystem::is_directory(p) ? p / "results.json" : p;
}

}  // namespace

int cmd_migrate(const Registry& registry, const std::vector<std::string>& runs, bool dry_run,
                std::ostream& out, std::ostream& err) {
  int code = kExitOk;
  for (const std::string& run : runs) {
    const std::filesystem::path file = results_file(run);
    try {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(file, ec)) {
        throw UsageError(file.string() +
                         ": no such file (expected a parlab run directory or its results.json)");
      }
      std::ifstream in(file);
      json doc = json::parse(in, nullptr, false);
      if (doc.is_discarded()) throw UsageError(file.string() + ": not valid JSON");
      const Migration m = migrate_results(std::move(doc), registry, file.string());
      if (!m.changed()) {
        out << run << ": already " << kResultsSchema << ", nothing to do\n";
        continue;
      }
      std::ostringstream what;
      what << (m.from_schema != kResultsSchema ? m.from_schema + " -> " + kResultsSchema + "; "
                                               : std::string())
           << m.families_added << " record(s) given their family, " << m.families_renamed << " renamed, "
           << m.footprints_added << " given their footprint";
      if (!dry_run) write_atomically(file, m.doc.dump(1) + "\n");  // the runner's own format
      out << run << ": " << (dry_run ? "would migrate (dry run): " : "migrated: ") << what.str() << "\n";
    } catch (const Error& e) {  // bad input, or a file that cannot be written: 2 either way
      err << "parlab: migrate: " << e.what() << " (left as it was)\n";
      code = kExitUsage;
    }
  }
  return code;
}

}  // namespace parlab
