// The `parlab` command line. run_cli is main() minus the process: tests call it in-process.
// Exit codes: 0 success, 1 failure (including a failed validation), 2 usage error.
#pragma once

#include <iosfwd>

namespace parlab {

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace parlab
