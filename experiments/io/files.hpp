// Files every layer writes: created whole or not at all (docs/design.md, "Failure semantics").
#pragma once

#include <filesystem>
#include <string>

namespace parlab {

// Creates `dir` and checks it is writable; throws UsageError naming it (as `what`) otherwise.
void ensure_writable_dir(const std::filesystem::path& dir, const std::string& what);

// Writes `text` to `path` atomically: a temporary file in the same directory, unique to this
// writer (so two writers never share one), flushed to disk, then renamed over `path`. On any
// failure the temporary file is removed and UsageError (the environment's error, exit 2) names
// the path; `path` is unchanged.
void write_atomically(const std::filesystem::path& path, const std::string& text);

// Makes `link` a symbolic link to `target` (a name relative to the link's folder), replacing any
// link there at once (a new link under a unique name, then rename()), so a reader never finds it
// missing. Returns the error, empty when done; a folder where links cannot be made (some network
// and FAT file systems) is not a reason to fail a run, so the caller only warns.
std::string point_link(const std::filesystem::path& link, const std::filesystem::path& target);

// A folder name made of `name` that stays where it is put: letters, digits, '.', '_' and '-' kept,
// anything else (a '/', a control character, a space) becomes '_', at most 64 characters, and a
// name of dots only ("." or "..") or an empty one becomes "host" with them replaced. The host name
// itself is kept where it belongs, in the run's context.
std::string host_slug(const std::string& name);

// Creates a new run directory under `parent` named `stamp`, or `stamp-1`, `stamp-2`, ... where
// that exists already: mkdir() decides, atomically, so two runs started in the same second never
// share one (a check with exists() then create_directory() let both through). Throws UsageError
// naming the folder when none can be made (unwritable, or 1000 taken).
std::filesystem::path make_run_dir(const std::filesystem::path& parent, const std::string& stamp);

}  // namespace parlab
