// This process's interruption by SIGINT or SIGTERM (docs/design.md, "Failure semantics").
// In io/, the bottom layer, because every layer that waits watches it: the runner stops between
// repetitions, and run_child (child_process.hpp) forwards it to a child, the external peers'
// included (make_registry hands them a run_child that watches it).
#pragma once

#include <atomic>

namespace parlab {

// Set by the handlers install_interrupt_handler installs; false until then.
extern std::atomic<bool> g_interrupted;

// Clears g_interrupted and installs the SIGINT and SIGTERM handlers that set it. A second signal
// of the same kind ends the process at once (the handler restores the default action).
void install_interrupt_handler();

}  // namespace parlab
