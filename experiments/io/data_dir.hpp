// Where parlab's data is: the suites, the figure and comparison scripts, the result schema and
// the embedded Python modules. One layout, found relative to the binary, so a built parlab can be
// installed, packaged or moved (docs/design.md, "Builds and dependencies"):
//
//   <prefix>/bin/parlab
//   <prefix>/share/parlab/{suites/, analysis/, schema/, python/}   (analysis/: plot.py, compare.py, figures/)
//
// A build tree mirrors it: CMake links build/<preset>/share/parlab/* to the source files, so the
// binary at build/<preset>/experiments/parlab finds build/<preset>/share/parlab the same way
// (../share/parlab, or ../../share/parlab for a binary one folder deeper).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace parlab {

// $PARLAB_DATA_DIR when set; else the first of <exe dir>/../share/parlab and
// <exe dir>/../../share/parlab that holds suites/. Throws FailureError naming where it looked.
std::filesystem::path data_dir();

// The parlab binaries of other interpreters a build tree knows of (its share/parlab/interpreters
// file, one path per line, written by CMake: the sibling release-ft build); empty when installed.
std::vector<std::string> default_interpreter_binaries();

}  // namespace parlab
