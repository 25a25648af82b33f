#include "experiments/record/spec.hpp"

#include <string>

#include "core/error.hpp"

namespace parlab {

using nlohmann::json;

json to_json(const MeasurementSpec& s) {
  json j = {{"study", s.study}, {"scaling", s.scaling},     {"kernel", s.problem.kernel},
          {"backend", s.backend}, {"threads", s.problem.threads}, {"size", s.problem.size},
          {"size_y", s.problem.size_y}, {"precision", to_string(s.problem.precision)}, {"seed", s.problem.seed},
          {"reps", s.reps}, {"warmup", s.warmup}, {"min_rep_seconds", s.min_rep_seconds},
          {"device", s.problem.device}};
  if (!s.interpreter.empty()) j["interpreter"] = s.interpreter;
  if (!s.python_gil.empty()) j["python_gil"] = s.python_gil;
  if (s.ranks > 0) j["ranks"] = s.ranks;
  if (s.round > 0) j["round"] = s.round;
  return j;
}

MeasurementSpec spec_from_json(const json& j) {
  try {
    MeasurementSpec s;
    s.study = j.at("study").get<std::string>();
    s.scaling = j.at("scaling").get<std::string>();
    s.problem.kernel = j.at("kernel").get<std::string>();
    s.backend = j.at("backend").get<std::string>();
    s.problem.threads = j.at("threads").get<int>();
    s.problem.size = j.at("size").get<std::uint64_t>();
    s.problem.size_y = j.at("size_y").get<std::uint64_t>();
    const auto p = precision_from_name(j.at("precision").get<std::string>());
    if (!p) throw UsageError("bad precision");
    s.problem.precision = *p;
    s.problem.seed = j.at("seed").get<std::uint64_t>();
    s.reps = j.at("reps").get<int>();
    s.warmup = j.at("warmup").get<int>();
    s.min_rep_seconds = j.at("min_rep_seconds").get<double>();
    s.problem.device = j.at("device").get<int>();
    s.interpreter = j.value("interpreter", std::string());
    s.python_gil = j.value("python_gil", std::string());
    s.ranks = j.value("ranks", 0);
    s.round = j.value("round", 0);
    return s;
  } catch (const json::exception& e) {
    throw UsageError(std::string("malformed plan entry: ") + e.what());
  }
}

}  // namespace parlab
