// A plan entry measured in another interpreter: in a child process of the parlab binary that
// embeds it (machine/interpreters.hpp finds them; docs/records.md, "Dimensions that compose").
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

#include "experiments/machine/interpreters.hpp"

namespace parlab {

// Measures `spec` (a plan entry naming `mode`) in a child process of mode.parlab with
// PYTHON_GIL set as the mode says, through measure_in_child_process (child_record.hpp): the
// child's record, a failed record naming the fault, or null when this process was interrupted.
// The child side is `parlab measure-spec` (cli/cmd_measure_spec.cpp).
nlohmann::json measure_in_child(const InterpreterMode& mode, const nlohmann::json& spec, std::size_t index,
                                double timeout_s);

}  // namespace parlab
