#include "experiments/machine/cpu_stat.hpp"

#include <algorithm>

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace parlab {

CpuTicks CpuTicks::read() {
  CpuTicks t;
  std::ifstream in("/proc/stat");
  std::string line;
  while (std::getline(in, line)) {
    // "cpuN user nice system idle iowait irq softirq steal guest guest_nice"; the "cpu " line is the sum.
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    Cpu c;
    std::uint64_t v[8] = {};
    fields >> c.id;
    for (auto& x : v) fields >> x;
    if (!fields && !fields.eof()) continue;
    c.busy = v[0] + v[1] + v[2] + v[5] + v[6];
    c.steal = v[7];
    for (auto x : v) c.total += x;
    t.cpus.push_back(c);
  }
  return t;
}

double CpuTicks::tick_s() {
  const long hz = sysconf(_SC_CLK_TCK);
  return hz > 0 ? 1.0 / static_cast<double>(hz) : 0.01;
}

double process_cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

std::optional<double> others_cpus_between(const CpuTicks& before, const CpuTicks& after, double ours, double wall_s) {
  if (after.cpus.empty() || !(wall_s > 0)) return std::nullopt;
  double busy_ticks = 0;
  for (const auto& a : after.cpus) {
    const auto b = std::find_if(before.cpus.begin(), before.cpus.end(), [&](const auto& c) { return c.id == a.id; });
    if (b == before.cpus.end() || a.total < b->total) continue;
    busy_ticks += static_cast<double>(a.busy - b->busy);
  }
  return std::clamp((busy_ticks * CpuTicks::tick_s() - ours) / wall_s, 0.0, static_cast<double>(after.cpus.size()));
}

}  // namespace parlab
