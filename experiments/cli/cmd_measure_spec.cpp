// `parlab measure-spec JSON` (commands.hpp): the child side of run/interpreter_child.hpp. One plan
// entry measured in this process, its record printed as one JSON line.
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/io/interrupt.hpp"
#include "experiments/run/runner.hpp"

namespace parlab {

using nlohmann::json;

int cmd_measure_spec(const Registry& registry, const std::string& spec_json, std::ostream& out) {
  json j;
  try {
    j = json::parse(spec_json);
  } catch (const json::exception& e) {
    throw UsageError(std::string("measure-spec: not JSON: ") + e.what());
  }
  const std::size_t index = j.value("id", std::size_t{0});
  MeasurementSpec spec = spec_from_json(j);
  // Measured here, in this process's own interpreter: the parent chose this binary for it.
  spec.interpreter.clear();
  spec.python_gil.clear();
  install_interrupt_handler();
  RunOptions options;
  options.in_child = true;
  Runner runner(registry, std::cerr, options);
  const std::optional<Record> r = runner.measure_one(spec, index);
  out << (r ? to_json(*r).dump() : std::string("null")) << "\n";
  return 0;
}

}  // namespace parlab
