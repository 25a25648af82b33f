#include "experiments/record/workers.hpp"

#include <cmath>

namespace parlab {

using nlohmann::json;

namespace {

json range_json(const FactorRange& r) { return json::array({r.lo, r.hi}); }

json pop_json(const PopFigures& p) {
  json j = {{"load_balance", p.load_balance}, {"communication", p.communication}, {"parallel", p.parallel}};
  if (p.per_execution) {
    j["definition"] = "per-execution";
    j["rep"] = p.rep;
    j["runtime_s"] = p.runtime_s;
    j["useful_s"] = p.useful_s;
    j["range"] = {{"load_balance", range_json(p.load_balance_range)},
                  {"communication", range_json(p.communication_range)},
                  {"parallel", range_json(p.parallel_range)}};
  }
  return j;
}

json disturbance_json(const Disturbance& d) {
  json j = {{"window_s", d.window_s}, {"runnable_s", d.runnable_s}, {"runnable_share", d.runnable_share},
            {"switches", d.switches},  {"cpus", d.cpus},             {"steal", d.steal},
            {"busy", d.busy}};
  if (!d.runnable_source.empty()) j["runnable_source"] = d.runnable_source;
  if (d.run_delay_s) j["run_delay_s"] = *d.run_delay_s;
  if (d.others) j["others"] = *d.others;
  return j;
}

json counters_json(const WorkerCounters& c) {
  if (!c.available) return {{"available", false}, {"why", c.why}};
  return {{"available", true}, {"instructions", c.instructions}, {"cycles", c.cycles}};
}

json trace_json(const WorkersTrace& t) {
  json events = json::array();
  for (const auto& e : t.events) events.push_back({e.worker, e.start_s, e.end_s, e.cpu});
  return {{"rep", t.rep}, {"runtime_s", t.runtime_s}, {"events", events}, {"truncated", t.truncated}};
}

// The reader's rules: what is not of the expected type and finite reads as absent.
std::optional<double> number(const json& o, const char* key) {
  if (!o.is_object()) return std::nullopt;
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

double number_or(const json& o, const char* key, double fallback) { return number(o, key).value_or(fallback); }

int integer_or(const json& o, const char* key, int fallback) {
  const std::optional<double> v = number(o, key);
  return v && *v >= -2147483648.0 && *v <= 2147483647.0 ? static_cast<int>(*v) : fallback;
}

const json& member(const json& o, const char* key) {
  static const json none;
  if (!o.is_object()) return none;
  const auto it = o.find(key);
  return it == o.end() ? none : *it;
}

std::optional<std::vector<double>> numbers_of(const json& a) {
  if (!a.is_array()) return std::nullopt;
  std::vector<double> v;
  v.reserve(a.size());
  for (const json& x : a) {
    if (!x.is_number() || !std::isfinite(x.get<double>())) return std::nullopt;
    v.push_back(x.get<double>());
  }
  return v;
}

std::vector<double> numbers(const json& a) { return numbers_of(a).value_or(std::vector<double>{}); }

// A CPU, worker, rank or host index: a non-negative integer that fits an int with room to spare.
bool is_id(const json& x) {
  if (x.is_number_unsigned()) return x.get<std::uint64_t>() <= (std::uint64_t{1} << 30);
  return x.is_number_integer() && x.get<std::int64_t>() >= 0 && x.get<std::int64_t>() <= (std::int64_t{1} << 30);
}

// Ids that keep their places (a CPU list's position is a worker's, or a steal share's): -1 for
// an entry that is no id.
std::vector<int> ids_in_place(const json& a) {
  std::vector<int> v;
  if (!a.is_array()) return v;
  for (const json& x : a) v.push_back(is_id(x) ? x.get<int>() : -1);
  return v;
}

std::string text_or_empty(const json& o, const char* key) {
  const json& x = member(o, key);
  return x.is_string() ? x.get<std::string>() : std::string();
}

FactorRange range_of(const json& r) {
  const std::vector<double> v = numbers(r);
  return v.size() == 2 ? FactorRange{v[0], v[1]} : FactorRange{};
}

PopFigures pop_of(const json& p) {
  PopFigures f;
  f.load_balance = number_or(p, "load_balance", 1);
  f.communication = number_or(p, "communication", 1);
  f.parallel = number_or(p, "parallel", 1);
  f.per_execution = text_or_empty(p, "definition") == "per-execution";
  if (f.per_execution) {
    f.rep = integer_or(p, "rep", 0);
    f.runtime_s = number_or(p, "runtime_s", 0);
    f.useful_s = number_or(p, "useful_s", 0);
    const json& range = member(p, "range");
    f.load_balance_range = range_of(member(range, "load_balance"));
    f.communication_range = range_of(member(range, "communication"));
    f.parallel_range = range_of(member(range, "parallel"));
  }
  return f;
}

Disturbance disturbance_of(const json& d) {
  Disturbance x;
  x.window_s = number_or(d, "window_s", 0);
  x.runnable_s = numbers(member(d, "runnable_s"));
  x.runnable_share = number_or(d, "runnable_share", 0);
  x.runnable_source = text_or_empty(d, "runnable_source");
  x.run_delay_s = numbers_of(member(d, "run_delay_s"));
  x.switches = number_or(d, "switches", 0);
  x.cpus = ids_in_place(member(d, "cpus"));
  x.steal = numbers(member(d, "steal"));
  x.busy = numbers(member(d, "busy"));
  x.others = number(d, "others");
  return x;
}

WorkerCounters counters_of(const json& c) {
  WorkerCounters x;
  const json& available = member(c, "available");
  x.available = available.is_boolean() && available.get<bool>();
  x.why = text_or_empty(c, "why");
  x.instructions = numbers(member(c, "instructions"));
  x.cycles = numbers(member(c, "cycles"));
  return x;
}

std::optional<WorkersTrace> trace_of(const json& t) {
  if (!t.is_object()) return std::nullopt;
  WorkersTrace x;
  x.rep = integer_or(t, "rep", 0);
  x.runtime_s = number_or(t, "runtime_s", 0);
  const json& truncated = member(t, "truncated");
  x.truncated = truncated.is_boolean() && truncated.get<bool>();
  const json& events = member(t, "events");
  if (!events.is_array()) return x;
  for (const json& e : events) {
    const std::vector<double> times = e.is_array() && e.size() == 4 ? numbers(json::array({e[1], e[2]})) : std::vector<double>{};
    if (times.size() != 2 || !is_id(e[0]) || !e[3].is_number_integer()) continue;
    x.events.push_back({e[0].get<int>(), times[0], times[1], is_id(e[3]) ? e[3].get<int>() : -1});
  }
  return x;
}

}  // namespace

json to_json(const Workers& w) {
  json j = {{"accounting", w.accounting ? "on" : "off"}, {"count", w.count}};
  if (w.overhead) j["overhead"] = *w.overhead;
  if (!w.accounting) {
    j["why"] = w.why;
    return j;
  }
  j["runtime_s"] = w.runtime_s;
  j["busy_s"] = w.busy_s;
  j["cpu_s"] = w.cpu_s;
  j["items"] = w.items;
  j["chunks"] = w.chunks;
  j["switches"] = w.switches;
  j["cpus"] = w.cpus;
  if (!w.ranks.empty()) {
    j["ranks"] = w.ranks;
    j["hosts"] = w.hosts;
  }
  j["load_balance"] = w.load_balance;
  j["communication"] = w.communication;
  if (w.pop) j["pop"] = pop_json(*w.pop);
  if (w.disturbance) j["disturbance"] = disturbance_json(*w.disturbance);
  if (w.counters) j["counters"] = counters_json(*w.counters);
  if (w.trace) j["trace"] = trace_json(*w.trace);
  if (w.unattributed_chunks > 0) j["unattributed_chunks"] = w.unattributed_chunks;
  if (!w.cause.empty()) j["cause"] = w.cause;
  return j;
}

std::optional<Workers> workers_of(const json& record) {
  const json& b = member(record, "workers");
  if (!b.is_object()) return std::nullopt;
  Workers w;
  w.accounting = text_or_empty(b, "accounting") == "on";
  w.overhead = number(b, "overhead");
  w.count = integer_or(b, "count", 0);
  w.why = text_or_empty(b, "why");
  w.runtime_s = number_or(b, "runtime_s", 0);
  w.busy_s = numbers(member(b, "busy_s"));
  w.cpu_s = numbers(member(b, "cpu_s"));
  w.items = numbers(member(b, "items"));
  w.chunks = numbers(member(b, "chunks"));
  w.switches = numbers(member(b, "switches"));
  if (const json& cpus = member(b, "cpus"); cpus.is_array()) {
    for (const json& per : cpus) {
      std::vector<int> ids;
      if (per.is_array()) {
        for (const json& c : per) {
          if (is_id(c)) ids.push_back(c.get<int>());
        }
      }
      w.cpus.push_back(std::move(ids));
    }
  }
  w.ranks = ids_in_place(member(b, "ranks"));
  w.hosts = ids_in_place(member(b, "hosts"));
  w.load_balance = numbers(member(b, "load_balance"));
  w.communication = numbers(member(b, "communication"));
  if (const json& p = member(b, "pop"); p.is_object()) w.pop = pop_of(p);
  if (const json& d = member(b, "disturbance"); d.is_object()) w.disturbance = disturbance_of(d);
  if (const json& c = member(b, "counters"); c.is_object()) w.counters = counters_of(c);
  w.trace = trace_of(member(b, "trace"));
  if (const json& u = member(b, "unattributed_chunks"); u.is_number_unsigned()) w.unattributed_chunks = u.get<std::uint64_t>();
  w.cause = text_or_empty(b, "cause");
  return w;
}

}  // namespace parlab
