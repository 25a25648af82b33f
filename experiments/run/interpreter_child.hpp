// A plan entry measured in another interpreter: in a child process of the parlab binary that
// embeds it (machine/interpreters.hpp finds them; docs/records.md, "Dimensions that compose").
#pragma once

#include <cstddef>
#include <optional>

#include "experiments/machine/interpreters.hpp"
#include "experiments/record/record.hpp"
#include "experiments/run/child_record.hpp"

namespace parlab {

// Measures job.base (a plan entry naming `mode`, with its id) in a child process of mode.parlab
// with PYTHON_GIL set as the mode says, besides job.set_env, through measure_in_child_process
// (child_record.hpp): the child's record, a failed record naming the fault, or nullopt when this
// process was interrupted. The child side is `parlab measure-spec` (cli/cmd_measure_spec.cpp).
std::optional<Record> measure_in_child(const InterpreterMode& mode, ChildJob job);

}  // namespace parlab
