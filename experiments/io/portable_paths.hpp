// A results document made portable: no path of the machine that wrote it. Runs are committed and
// read on other machines, and a ceilings cache under a home folder or "likwid-bench at <checkout>/
// build/offline-deps/usr/bin/likwid-bench" says where one user kept their files, which
// is nobody else's business and true nowhere else (docs/records.md, "No machine paths").
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace parlab {

// The folders a path is made relative to. Each absolute and lexically normal, without a trailing
// '/'; empty where there is none (a root of "/" would take every path, so it counts as none).
struct PathRoots {
  std::string results;  // the results root: a run's --out, the folder two above its directory
  std::string home;     // the user's home ($HOME)

  // The roots of the run in `run_dir` (<results root>/<host>/<timestamp>, as Runner::run_new
  // makes it) on this machine: its results root, and $HOME.
  static PathRoots of_run(const std::filesystem::path& run_dir);
};

// `text` with each absolute path in it made portable: one under roots.results relative to it ("."
// for the root itself), one under roots.home "~/...", one under a system prefix (/usr, /bin, /lib,
// /etc, /opt, /proc, /sys, /dev) kept as it is (it names the same thing on every machine), and any
// other "…/<its last component>". A path is a token that starts with one '/' at the start of the
// text or after whitespace, '(', '=', ':' or a quote, has at least two components, and ends at
// whitespace or one of ")],;:'\""; a trailing '.' ends a sentence, not the path. So unit strings
// ("GB/s", "samples/s") and ratios, whose '/' follows a letter or a digit, are never paths.
// `replaced` counts the paths changed. Idempotent: what it writes holds no path it would change.
std::string portable_text(std::string_view text, const PathRoots& roots, int& replaced);

// Every string value of `doc` (object keys are names, not data) made portable by portable_text,
// in place. Returns how many paths were replaced.
int make_portable(nlohmann::json& doc, const PathRoots& roots);

}  // namespace parlab
