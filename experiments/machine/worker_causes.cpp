#include "experiments/machine/worker_causes.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "experiments/io/numbers.hpp"

namespace parlab {

namespace {

std::string cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (int c : cpus) {
    if (!out.empty()) out += ',';
    out += std::to_string(c);
  }
  return out;
}

// What the disturbance block says of the CPUs in `cpus` (a worker's): the highest steal share.
double steal_on(const Disturbance& d, const std::vector<int>& cpus) {
  double most = 0;
  if (d.cpus.size() != d.steal.size()) return 0;
  for (std::size_t i = 0; i < d.steal.size(); ++i) {
    if (d.cpus[i] >= 0 && std::find(cpus.begin(), cpus.end(), d.cpus[i]) != cpus.end()) most = std::max(most, d.steal[i]);
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
Useful useful_of(const Workers& w) {
  const std::vector<double>& busy = w.busy_s;
  Useful u;
  if (w.disturbance && !w.disturbance->runnable_source.empty()) {
    const std::vector<double>& runnable = w.disturbance->runnable_s;
    if (runnable.size() != busy.size()) return u;
    for (std::size_t k = 0; k < busy.size(); ++k) {
      u.useful.push_back(std::max(0.0, busy[k] - runnable[k]));
      u.waiting.push_back(runnable[k]);
    }
    return u;
  }
  u.useful = w.cpu_s;
  if (u.useful.size() != busy.size()) return u;
  for (std::size_t k = 0; k < busy.size(); ++k) u.waiting.push_back(std::max(0.0, busy[k] - u.useful[k]));
  return u;
}

// Load balance: the busiest worker against the mean, where it ran, and what kept it there.
std::string load_balance_cause(const Workers& w, double lb) {
  const std::vector<double>& busy = w.busy_s;
  const Useful u = useful_of(w);
  const std::vector<double>& cpu = u.useful;
  std::string text = "load balance " + fixed(lb, 2);
  if (cpu.empty()) return text;
  const auto top = static_cast<std::size_t>(std::max_element(cpu.begin(), cpu.end()) - cpu.begin());
  double mean = 0;
  for (double c : cpu) mean += c / static_cast<double>(cpu.size());
  text += ": worker " + std::to_string(top) + " computed " + fixed(mean > 0 ? cpu[top] / mean : 0, 2) + "x the mean";
  const std::vector<int> none;
  const std::vector<int>& cpus = top < w.cpus.size() ? w.cpus[top] : none;
  if (!cpus.empty()) text += ", on CPU " + cpu_list(cpus);
  // A file's block may lack busy_s or items (read as empty): no figure of them then.
  if (u.waiting.size() == busy.size() && top < busy.size() && busy[top] > 0) {
    const double waiting = u.waiting[top] / busy[top];
    if (waiting >= 0.05) text += ", runnable but not running " + fixed(waiting * 100, 0) + "% of that time";
  }
  if (const double steal = w.disturbance ? steal_on(*w.disturbance, cpus) : 0.0; steal >= 0.05) {
    text += " (" + fixed(steal * 100, 0) + "% of its CPU's time stolen by the hypervisor)";
  }
  const std::vector<double>& items = w.items;
  if (items.size() == busy.size() && top < items.size() && items[top] > 0) {
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
std::string disturbance_figures(const Disturbance& d) {
  std::string text;
  if (d.others && *d.others >= 0) text = "other processes used " + fixed(*d.others, 2) + " CPUs' worth of time while it ran";
  text += (text.empty() ? "" : "; ") + std::string("its workers were runnable but not running ") +
          fixed(d.runnable_share * 100, 1) + "% of their busy time";
  double steal = 0;
  for (double s : d.steal) steal = std::max(steal, s);
  if (steal >= 0.01) text += "; up to " + fixed(steal * 100, 0) + "% of a CPU's time was stolen by the hypervisor";
  return text;
}


}  // namespace

bool disturbed(const Workers& w, bool python) {
  if (!w.accounting || !w.disturbance) return false;
  const Disturbance& d = *w.disturbance;
  if (d.others.value_or(0) >= kOthersDisturb) return true;
  // A Python thread's chunk holds or seeks the GIL inside its wall time: its time off a CPU there
  // is the GIL's wait as much as the run queue's, so it does not say the machine was busy.
  return !python && d.runnable_share >= kRunnableDisturb;
}

std::string disturbance_text(const Workers& w) {
  if (!w.accounting) return {};
  return disturbance_figures(w.disturbance.value_or(Disturbance{}));
}

std::string worker_shortfall(const Workers& w, bool python, double gil_wait_share) {
  if (!w.accounting) return {};
  const PopFigures pop = w.pop.value_or(PopFigures{});
  const double lb = pop.load_balance, ce = pop.communication;
  // The evidence in a fixed order, the first that holds named with its figure: the record's own
  // disturbance figures (whatever the factors say, since other work on its CPUs lowers any of
  // them), the GIL's wait, then the factors. Oversubscription comes before all of them, where the
  // record is held against its bound (record_limit).
  if (disturbed(w, python)) return "disturbed: " + disturbance_text(w);
  if (gil_wait_share >= kRunnableDisturb) {
    // The machine's share apart: other processes' time, which the GIL's wait does not include.
    const std::optional<double> others = w.disturbance ? w.disturbance->others : std::nullopt;
    return "the GIL: its threads waited for it " + fixed(gil_wait_share * 100, 0) + "% of their time" +
           (others && *others >= 0 ? " (other processes used " + fixed(*others, 2) + " CPUs' worth of time meanwhile)" : "");
  }
  if (lb < kFactorExplains && lb <= ce) return load_balance_cause(w, lb);
  if (ce < kFactorExplains) return communication_cause(ce);
  if (lb < kFactorExplains) return load_balance_cause(w, lb);
  return {};
}

std::string computation_shortfall(const Workers& w, double share) {
  if (!w.accounting || w.count < 2) return {};
  const double pe = w.pop ? w.pop->parallel : 0;
  if (!(pe > 0) || !(share > 0)) return {};
  const double per_cpu_second = share / pe;
  if (per_cpu_second >= kFactorExplains) return {};
  std::string text = "computation " + fixed(per_cpu_second, 2) + ": its workers kept busy (parallel efficiency " +
                     fixed(pe, 2) + "), and each CPU-second of theirs did " + fixed(per_cpu_second, 2) +
                     " of what the bound allows a core";
  const WorkerCounters counters = w.counters.value_or(WorkerCounters{});
  const std::vector<double>& ins = counters.instructions;
  const std::vector<double>& cyc = counters.cycles;
  // The counters count inside the body: their clock is over the body's running time.
  const std::vector<double> cpu = useful_of(w).useful;
  if (counters.available && ins.size() == cyc.size() && cyc.size() == cpu.size() && !cpu.empty()) {
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

std::vector<int> worker_cpus(const Workers& w) {
  std::set<int> all;
  for (const auto& per : w.cpus) all.insert(per.begin(), per.end());
  return {all.begin(), all.end()};
}

std::string worker_shortfall(const Record& r) {
  if (!r.workers || !r.workers->accounting) return {};
  // The GIL's wait, where a Python backend measured it (metrics.gil_wait_share: the share of its
  // threads' wall time not on a CPU while they held or sought the GIL), apart from the kernel's
  // run-queue delay.
  const auto m = r.metrics.find("gil_wait_share");
  const double gil = m != r.metrics.end() && std::isfinite(m->second) ? std::clamp(m->second, 0.0, 1.0) : 0.0;
  return worker_shortfall(*r.workers, r.kind == "python", gil);
}

}  // namespace parlab
