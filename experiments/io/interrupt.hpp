// This process's interruption by SIGINT or SIGTERM (docs/design.md, "Failure semantics").
// In io/, the bottom layer, because every layer that waits watches it: the runner stops between
// repetitions, and run_child (child_process.hpp) forwards it to a child, the external peers'
// included (make_registry hands them a run_child that watches it).
#pragma once

#include <atomic>
#include <string>

namespace parlab {

// Set by the handlers install_interrupt_handler installs; false until then.
extern std::atomic<bool> g_interrupted;

// Clears g_interrupted and installs the SIGINT and SIGTERM handlers that set it. A second signal
// of the same kind ends the process at once (by that signal's default action), removing the
// temporary file noted by note_temporary_file first.
void install_interrupt_handler();

// SIGINT and SIGTERM back to their default action (end the process), for a stretch that watches
// no interruption; g_interrupted keeps what it holds.
void restore_default_interrupt_action();

// The temporary file being written now (write_atomically), removed if a second signal ends the
// process meanwhile. Returns whether it was noted (one at a time); forget_temporary_file once it
// is renamed or removed.
bool note_temporary_file(const std::string& path);
void forget_temporary_file();

}  // namespace parlab
