#include "experiments/plan/cpus.hpp"

#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>

namespace parlab {

std::vector<std::string> cpu_warnings(int most_threads, int hardware, std::optional<double> load1) {
  std::vector<std::string> out;
  if (most_threads > hardware) {
    out.push_back("thread counts up to " + std::to_string(most_threads) + " on " + std::to_string(hardware) +
                  " hardware threads: oversubscribed points measure time-slicing");
    return out;
  }
  if (!load1 || !(*load1 >= 0)) return out;
  const int free_cpus = std::max(0, static_cast<int>(std::lround(hardware - *load1)));
  if (most_threads > free_cpus) {
    std::ostringstream os;
    os << "thread counts up to " << most_threads << " with about " << free_cpus << " of " << hardware
       << " hardware threads free (1-minute load average " << std::fixed << std::setprecision(2) << *load1
       << "): points above " << free_cpus << " share their CPUs with other work";
    out.push_back(os.str());
  }
  return out;
}

std::optional<double> load_average_1min() {
  double load[1];
  if (getloadavg(load, 1) != 1) return std::nullopt;
  return load[0];
}

}  // namespace parlab
