// `parlab migrate RUN...` (commands.hpp): each run brought to the current schema in place by
// migrate_results (run/migrate.hpp), its paths made portable, written atomically.
#include <filesystem>
#include <ostream>
#include <sstream>

#include "core/error.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/io/interrupt.hpp"
#include "experiments/io/portable_paths.hpp"
#include "experiments/io/read.hpp"
#include "experiments/io/terminal.hpp"
#include "experiments/io/text.hpp"
#include "experiments/run/migrate.hpp"
#include "experiments/run/runner.hpp"

namespace parlab {

namespace {

using json = nlohmann::json;

// The results.json of `run` (a run directory or the file itself), through any symlinks: the file
// a migration rewrites in place is the one the link points to, and the link stays a link.
std::filesystem::path results_file(const std::string& run) {
  std::error_code ec;
  const std::filesystem::path p(run);
  const std::filesystem::path file = std::filesystem::is_directory(p, ec) ? p / "results.json" : p;
  if (!std::filesystem::exists(file, ec)) {
    throw UsageError("'" + valid_utf8(file.string()) + "': no such file (expected a parlab run directory or its results.json)");
  }
  const std::filesystem::path target = std::filesystem::canonical(file, ec);
  if (ec) throw UsageError("'" + valid_utf8(file.string()) + "' cannot be resolved: " + ec.message());
  return target;
}

}  // namespace

int cmd_migrate(const Registry& registry, const std::vector<std::string>& runs, bool dry_run,
                std::ostream& out, std::ostream& err) {
  int code = kExitOk;
  // SIGINT or SIGTERM: the run being migrated is finished (its file is written whole, by rename,
  // or left as it was), the rest are left, and migrate exits 130 as every command does. A second
  // signal ends it at once, removing the temporary file it was writing.
  install_interrupt_handler();
  for (const std::string& run : runs) {
    if (g_interrupted.load()) break;
    try {
      const std::filesystem::path file = results_file(run);
      ReadLimits limits;
      limits.exact_integers = true;  // an integer is never rounded into another value on its way
      json doc = read_json_file(file, "results file", limits);
      const Migration m =
          migrate_results(std::move(doc), registry, valid_utf8(file.string()), PathRoots::of_run(file.parent_path()));
      if (!m.changed()) {
        out << run << ": already " << kResultsSchema << ", nothing to do\n";
        continue;
      }
      std::ostringstream what;
      what << (m.from_schema != kResultsSchema ? m.from_schema + " -> " + kResultsSchema + "; "
                                               : std::string())
           << m.families_added << " record(s) given their family, " << m.families_renamed << " renamed, "
           << m.footprints_added << " given their footprint, " << m.spreads_added << " their spread, "
           << m.roof_notes_added << " given their above-roof note, " << m.incore_notes_added
           << " their above-in-core-bound note; " << m.causes_graded << " cause(s) or label(s) graded again; "
           << m.rounds_pooled << " measurement(s) of rounds pooled; "
           << m.paths_made_portable << " path(s) made portable";
      if (g_interrupted.load()) break;  // not started: left as it was
      if (!dry_run) write_results_file(file, m.doc);
      // Wrapped to the terminal, as every line parlab prints: the counts run past any width.
      out << hanging(run + ": " + (dry_run ? "would migrate (dry run): " : "migrated: "), what.str(), terminal_width())
          << "\n";
    } catch (const Error& e) {  // bad input, or a file that cannot be written: 2 either way
      err << "parlab: migrate: " << e.what() << " (left as it was)\n";
      code = kExitUsage;
    }
  }
  if (g_interrupted.load()) {
    err << "parlab: migrate: interrupted; the runs not reported above were left as they were\n";
    return 130;
  }
  return code;
}

}  // namespace parlab
