// `parlab migrate RUN...`: a run written by an older parlab brought to the current results schema,
// in place. What an old record lacks that only the catalogue knows (its kernel's family, the
// footprint of its arrays) is taken from the catalogue and the registry, the one place they are
// written, so no list of kernel names is kept anywhere for old records (docs/records.md, "Runs of
// an older schema").
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/workload.hpp"
#include "experiments/io/portable_paths.hpp"

namespace parlab {

// What migrating one results document did (or would do).
struct Migration {
  nlohmann::json doc;           // the document as the current schema has it
  std::string from_schema;      // its schema before
  int families_added = 0;       // records given the family of their kernel
  int families_renamed = 0;     // records whose family had an older name
  int footprints_added = 0;     // records given work.footprint_bytes
  int spreads_added = 0;        // records given the whole spread of their repetitions
  int roof_notes_added = 0;     // records above their roof given limit.above_roof
  int incore_notes_added = 0;   // records above their in-core bound given limit.incore.above
  int causes_graded = 0;        // causes and labels an older rule gave (workers.cause, limit's text), graded again
  int paths_made_portable = 0;  // paths of the writing machine replaced (io/portable_paths.hpp)
  int rounds_pooled = 0;        // measurements of a run in rounds given (or given again) their pooled figures
  bool changed() const {
    const int records = families_added + families_renamed + footprints_added + spreads_added + roof_notes_added +
                        incore_notes_added + causes_graded + rounds_pooled;
    return from_schema != doc.value("schema", "") || records + paths_made_portable > 0;
  }
};

// `doc` brought to the current schema, its paths made portable against `roots` (the run's results
// root and home on this machine). Throws UsageError, naming `where` and the record, when the
// document is not a parlab results file or a record's kernel is unknown to this build (a kernel of
// a wing it was built without: nothing is changed then).
Migration migrate_results(nlohmann::json doc, const Registry& registry, const std::string& where,
                          const PathRoots& roots);

// Each RUN (a run directory or its results.json) migrated and rewritten atomically, or with
// dry_run only said. A run that cannot be migrated is left as it was and said; the others are
// still done. 0 when every run is current now (or would be), 2 when one could not be migrated.


}  // namespace parlab
