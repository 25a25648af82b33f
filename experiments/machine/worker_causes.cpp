#include "experiments/machine/worker_causes.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "experiments/io/numbers.hpp"

namespace parlab {

using nlohmann::json;

namespace {

// The numbers of `a` (an array of numbers), or empty where it is anything else.
std::vector<double> numbers(const json& a) {
  std::vector<double> v;
  if (!a.is_array()) return v;
  for (const json& x : a) {
    if (!x.is_number() || !std::isfinite(x.get<double>())) return {};
    v.push_back(x.get<double>());
  }
  return v;
}

double number(const json& o, const char* key, double fallback) {
  if (!o.is_object() || !o.contains(key) || !o[key].is_number()) return fallback;
  const double v = o[key].get<double>();
  return std::isfinite(v) ? v : fallback;
}

std::string cpu_list(const json& cpus) {
  std::string out;
  if (!cpus.is_array()) return out;
  for (const json& c : cpus) {
    if (!c.is_number_integer()) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(c.get<int>());
  }
  return out;
}

// What the disturbance block says of the CPUs in `cpus` (a worker's): the highest steal share.
double steal_on(const json& disturbance, const json& cpus) {
  const std::vector<double> steal = numbers(disturbance.value("steal", json()));
  const json ids = disturbance.value("cpus", json());
  double most = 0;
  if (!ids.is_array() || ids.size() != steal.size() || !cpus.is_array()) return 0;
  for (std::size_t i = 0; i < steal.size(); ++i) {
    if (std::find(cpus.begin(), cpus.end(), ids[i]) != cpus.end()) most = std::max(most, steal[i]);
  }
  return most;
}

// Each worker's useful time per run and the part of its time in the body it waited runnable: the
// body's running time (busy_s less disturbance.runnable_s, from schedstat) where the record says
// where runnable_s came from; in a record made before that, its CPU time in the body (cpu_s) and
// busy_s less it. Empty where the record's arrays do not fit together.
struct Useful {
  std::vector<double> useful, waiting;
};
Useful useful_of(const json& w) {
  const std::vector<double> busy = numbers(w.value("busy_s", json()));
  const json d = w.value("disturbance", json::object());
  Useful u;
  if (d.is_object() && d.contains("runnable_source")) {
    const std::vector<double> runnable = numbers(d.value("runnable_s", json()));
    if (runnable.size() != busy.size()) return u;
    for (std::size_t k = 0; k < busy.size(); ++k) {
      u.useful.push_back(std::max(0.0, busy[k] - runnable[k]));
      u.waiting.push_back(runnable[k]);
    }
    return u;
  }
  u.useful = numbers(w.value("cpu_s", json()));
  if (u.useful.size() != busy.size()) return u;
  for (std::size_t k = 0; k < busy.size(); ++k) u.waiting.push_back(std::max(0.0, busy[k] - u.useful[k]));
  return u;
}

// Load balance: the busiest worker against the mean, where it ran, and what kept it there.
std::string load_balance_cause(const json& w, double lb) {
  const std::vector<double> busy = numbers(w.value("busy_s", json()));
  const Useful u = useful_of(w);
  const std::vector<double>& cpu = u.useful;
  std::string text = "load balance " + fixed(lb, 2);
  if (cpu.empty()) return text;
  const auto top = static_cast<std::size_t>(std::max_element(cpu.begin(), cpu.end()) - cpu.begin());
  double mean = 0;
  for (double c : cpu) mean += c / static_cast<double>(cpu.size());
  text += ": worker " + std::to_string(top) + " computed " + fixed(mean > 0 ? cpu[top] / mean : 0, 2) + "x the mean";
  const json cpus = w.value("cpus", json::array());
  if (cpus.is_array() && top < cpus.size() && !cpu_list(cpus[top]).empty()) {
    text += ", on CPU " + cpu_list(cpus[top]);
  }
  if (u.waiting.size() == busy.size() && busy[top] > 0) {
    const double waiting = u.waiting[top] / busy[top];
    if (waiting >= 0.05) text += ", runnable but not running " + fixed(waiting * 100, 0) + "% of that time";
  }
  const json d = w.value("disturbance", json::object());
  if (const double steal = steal_on(d, cpus.is_array() && top < cpus.size() ? cpus[top] : json()); steal >= 0.05) {
    text += " (" + fixed(steal * 100, 0) + "% of its CPU's time stolen by the hypervisor)";
  }
  const std::vector<double> items = numbers(w.value("items", json()));
  if (items.size() == busy.size() && items[top] > 0) {
    double mean_items = 0;
    for (double x : items) mean_items += x / static_cast<double>(items.size());
    text += "; it did " + fixed(mean_items > 0 ? items[top] / mean_items : 0, 2) + "x the mean work";
  }
  return text;
}

std::string communication_cause(double ce) {
  return "communication efficiency " + fixed(ce, 2) + ": the busiest worker was in the kernel's body " +
         fixed(ce * 100, 0) + "% of the run; the rest went to starting, waking and joining the workers and the "
         "serial part of a run";
}

// "other processes used 1.90 CPUs' worth of time while it ran; its workers were runnable but not
// running 9.8% of their busy time": the record's own two disturbance figures, whichever it has.
std::string disturbance_figures(const json& d) {
  std::string text;
  if (const double others = number(d, "others", -1); others >= 0) {
    text = "other processes used " + fixed(others, 2) + " CPUs' worth of time while it ran";
  }
  const double runnable = number(d, "runnable_share", 0);
  text += (text.empty() ? "" : "; ") + std::string("its workers were runnable but not running ") +
          fixed(runnable * 100, 1) + "% of their busy time";
  double steal = 0;
  for (double s : numbers(d.value("steal", json()))) steal = std::max(steal, s);
  if (steal >= 0.01) text += "; up to " + fixed(steal * 100, 0) + "% of a CPU's time was stolen by the hypervisor";
  return text;
}

// The GIL's wait, where a Python backend measured it (metrics.gil_wait_share: the share of its
// threads' wall time not on a CPU while they held or sought the GIL), apart from the kernel's
// run-queue delay above.
double gil_wait(const json& r) {
  const json m = r.value("metrics", json::object());
  return m.is_object() ? std::clamp(number(m, "gil_wait_share", 0), 0.0, 1.0) : 0.0;
}

}  // namespace

std::string computation_shortfall(const json& r, double share) {
  if (!r.is_object() || !r.contains("workers") || !r["workers"].is_object()) return {};
  const json& w = r["workers"];
  if (w.value("accounting", "") != "on" || number(w, "count", 0) < 2) return {};
  const json pop = w.value("pop", json::object());
  const double pe = number(pop, "parallel", 0);
  if (!(pe > 0) || !(share > 0)) return {};
  const double per_cpu_second = share / pe;
  if (per_cpu_second >= kFactorExplains) return {};
  std::string text = "computation " + fixed(per_cpu_second, 2) + ": its workers kept busy (parallel efficiency " +
                     fixed(pe, 2) + "), and each CPU-second of theirs did " + fixed(per_cpu_second, 2) +
                     " of what the bound allows a core";
  const json counters = w.value("counters", json::object());
  const std::vector<double> ins = numbers(counters.value("instructions", json()));
  const std::vector<double> cyc = numbers(counters.value("cycles", json()));
  // The counters count inside the body: their clock is over the body's running time.
  const std::vector<double> cpu = useful_of(w).useful;
  if (counters.value("available", false) && ins.size() == cyc.size() && cyc.size() == cpu.size() && !cpu.empty()) {
    double i = 0, c = 0, t = 0;
    for (std::size_t k = 0; k < cpu.size(); ++k) {
      i += ins[k];
      c += cyc[k];
      t += cpu[k];
    }
    if (c > 0 && t > 0) text += ": " + fixed(i / c, 2) + " instructions a cycle at " + fixed(c / t * 1e-9, 2) + " GHz";
  } else {
    text += " (no counters here to split it into instructions, IPC and clock)";
  }
  return text;
}

std::vector<int> worker_cpus(const json& r) {
  std::set<int> all;
  const json w = r.is_object() ? r.value("workers", json::object()) : json::object();
  const json cpus = w.is_object() ? w.value("cpus", json::array()) : json::array();
  if (!cpus.is_array()) return {};
  for (const json& per : cpus) {
    if (!per.is_array()) continue;
    for (const json& c : per) {
      if (c.is_number_integer() && c.get<int>() >= 0) all.insert(c.get<int>());
    }
  }
  return {all.begin(), all.end()};
}

bool disturbed(const json& r) {
  if (!r.is_object() || !r.contains("workers") || !r["workers"].is_object()) return false;
  const json& w = r["workers"];
  if (w.value("accounting", "") != "on") return false;
  const json d = w.value("disturbance", json::object());
  if (number(d, "others", 0) >= kOthersDisturb) return true;
  // A Python thread's chunk holds or seeks the GIL inside its wall time: its time off a CPU there
  // is the GIL's wait as much as the run queue's, so it does not say the machine was busy.
  return !python_threads(r) && number(d, "runnable_share", 0) >= kRunnableDisturb;
}

bool python_threads(const json& r) { return r.is_object() && r.value("kind", "") == "python"; }

std::string disturbance_text(const json& r) {
  if (!r.is_object() || !r.contains("workers") || !r["workers"].is_object()) return {};
  const json& w = r["workers"];
  if (w.value("accounting", "") != "on") return {};
  return disturbance_figures(w.value("disturbance", json::object()));
}

std::string worker_shortfall(const json& r) {
  if (!r.is_object() || !r.contains("workers") || !r["workers"].is_object()) return {};
  const json& w = r["workers"];
  if (w.value("accounting", "") != "on") return {};
  const json pop = w.value("pop", json::object());
  const double lb = number(pop, "load_balance", 1), ce = number(pop, "communication", 1);
  const json d = w.value("disturbance", json::object());
  // The evidence in a fixed order, the first that holds named with its figure: the record's own
  // disturbance figures (whatever the factors say, since other work on its CPUs lowers any of
  // them), the GIL's wait, then the factors. Oversubscription comes before all of them, where the
  // record is held against its bound (record_limit).
  if (disturbed(r)) return "disturbed: " + disturbance_figures(d);
  if (const double gil = gil_wait(r); gil >= kRunnableDisturb) {
    // The machine's share apart: other processes' time, which the GIL's wait does not include.
    const double others = number(d, "others", -1);
    return "the GIL: its threads waited for it " + fixed(gil * 100, 0) + "% of their time" +
           (others >= 0 ? " (other processes used " + fixed(others, 2) + " CPUs' worth of time meanwhile)" : "");
  }
  if (lb < kFactorExplains && lb <= ce) return load_balance_cause(w, lb);
  if (ce < kFactorExplains) return communication_cause(ce);
  if (lb < kFactorExplains) return load_balance_cause(w, lb);
  return {};
}

}  // namespace parlab
