// The perf `power` PMU's package-energy counter (energy.hpp's open_perf_power): the kernel's own
// reading of the RAPL energy-status MSRs, for machines whose powercap files are absent or root-only
// while perf events are allowed (perf_event_paranoid <= 0, CAP_PERFMON or CAP_SYS_ADMIN).
#include "experiments/machine/energy.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "experiments/io/read.hpp"

namespace parlab {
namespace {

namespace fs = std::filesystem;

// One perf event's file descriptor, closed when its owner goes.
class PerfFd {
 public:
  explicit PerfFd(int fd) noexcept : fd_(fd) {}
  ~PerfFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  PerfFd(PerfFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  PerfFd& operator=(PerfFd&& o) noexcept {
    if (this != &o) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  PerfFd(const PerfFd&) = delete;
  PerfFd& operator=(const PerfFd&) = delete;
  // The event's count (its own 64-bit total: the kernel folds the MSR's 32-bit wraps into it).
  std::optional<std::uint64_t> count() const {
    std::uint64_t v = 0;
    if (::read(fd_, &v, sizeof v) != static_cast<ssize_t>(sizeof v)) return std::nullopt;
    return v;
  }

 private:
  int fd_;
};

// A sysfs file's first line, without its newline; nullopt when it cannot be read.
std::optional<std::string> read_line(const fs::path& p) {
  std::string s;
  try {
    std::istringstream in(read_regular_file(p, "perf PMU file", std::size_t{1} << 16));  // never waited on
    if (!std::getline(in, s)) return std::nullopt;
  } catch (const UsageError&) {
    return std::nullopt;
  }
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// An errno as its name and text: "EACCES (Permission denied)". The names perf_event_open gives
// are spelled here (glibc's strerrorname_np is 2.32 and later, and not in every C library).
std::string errno_text(int e) {
  std::string name;
  switch (e) {
    case EACCES: name = "EACCES"; break;
    case EPERM: name = "EPERM"; break;
    case ENOENT: name = "ENOENT"; break;
    case EINVAL: name = "EINVAL"; break;
    case ENODEV: name = "ENODEV"; break;
    case EOPNOTSUPP: name = "EOPNOTSUPP"; break;
    case EBUSY: name = "EBUSY"; break;
    case EMFILE: name = "EMFILE"; break;
    case ENOSYS: name = "ENOSYS"; break;
    case E2BIG: name = "E2BIG"; break;
    default: name = "errno " + std::to_string(e);
  }
  return name + " (" + std::strerror(e) + ")";
}

// perf_event_paranoid, which decides whether a process without CAP_PERFMON may count system-wide.
std::string paranoid_text() {
  const auto v = read_line("/proc/sys/kernel/perf_event_paranoid");
  return v ? "perf_event_paranoid is " + *v + "; system-wide events need <= 0, CAP_PERFMON or CAP_SYS_ADMIN"
           : "/proc/sys/kernel/perf_event_paranoid is not readable";
}

// An event's encoding in its sysfs file, "event=0x02", as perf_event_attr.config; the power PMU's
// format puts `event` in config:0-7 and has no other term, so any other term is refused.
std::optional<std::uint64_t> parse_event(const std::string& s) {
  constexpr std::string_view kKey = "event=";
  if (s.rfind(kKey, 0) != 0 || s.find(',') != std::string::npos) return std::nullopt;
  const std::string v = s.substr(kKey.size());
  if (v.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(v.c_str(), &end, 0);
  if (errno != 0 || end == nullptr || *end != '\0') return std::nullopt;
  return n;
}

// One CPU of each package from the CPUs' topology files, when the PMU has no cpumask file.
std::vector<int> one_cpu_per_package() {
  std::set<long> packages;
  std::vector<int> cpus;
  std::error_code ec;
  std::set<int> present;
  for (const auto& e : fs::directory_iterator("/sys/devices/system/cpu", ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() < 4 || name.rfind("cpu", 0) != 0 ||
        name.find_first_not_of("0123456789", 3) != std::string::npos)
      continue;
    if (name.size() > 9) continue;  // no machine has a billion CPUs: not a CPU's directory
    present.insert(std::stoi(name.substr(3)));
  }
  // An offline CPU has no topology directory and is passed over.
  for (const int cpu : present) {  // ascending, so each package gets its lowest CPU
    const auto id =
        read_line("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/physical_package_id");
    if (id && packages.insert(std::strtol(id->c_str(), nullptr, 10)).second) cpus.push_back(cpu);
  }
  return cpus;
}

class PerfPowerMeter final : public EnergyMeter {
 public:
  // PRECONDITION: one open fd per CPU of `cpus`, in that order, and `base` their sum at opening.
  PerfPowerMeter(std::vector<PerfFd> fds, std::vector<int> cpus, double scale, double base, std::string dir,
                 std::string event)
      : fds_(std::move(fds)),
        cpus_(std::move(cpus)),
        scale_(scale),
        base_(base),
        dir_(std::move(dir)),
        event_(std::move(event)) {}
  std::optional<double> joules() override {
    const auto now = total(fds_);
    if (!now) return std::nullopt;
    return (*now - base_) * scale_;
  }
  std::string describe() const override {
    std::string list;
    for (const int c : cpus_) {
      if (!list.empty()) list += ',';
      list += std::to_string(c);
    }
    // psys counts the whole platform (the SoC, and on some the memory), more than the CPU: said.
    const std::string what = event_ == "energy-psys" ? "energy-psys (the platform's, more than the CPU's)" : event_;
    return "perf power PMU: " + what + " on " + std::to_string(cpus_.size()) + " package(s) (CPU " + list +
           ") under " + dir_;
  }
  // The counts of `fds` summed; nullopt when one cannot be read.
  static std::optional<double> total(const std::vector<PerfFd>& fds) {
    double sum = 0;
    for (const auto& f : fds) {
      const auto c = f.count();
      if (!c) return std::nullopt;
      sum += static_cast<double>(*c);
    }
    return sum;
  }

 private:
  std::vector<PerfFd> fds_;
  std::vector<int> cpus_;
  double scale_;
  double base_;
  std::string dir_;
  std::string event_;
};

}  // namespace

std::vector<int> parse_cpu_list(const std::string& s) {
  std::vector<int> cpus;
  std::size_t at = 0;
  while (at < s.size()) {
    std::size_t next = s.find(',', at);
    if (next == std::string::npos) next = s.size();
    const std::string part = s.substr(at, next - at);
    at = next + 1;
    // A CPU number has at most 6 digits (sysfs lists no more than the kernel's NR_CPUS, 8192).
    if (part.empty() || part.size() > 13 || part.find_first_not_of("0123456789-") != std::string::npos)
      return {};
    const std::size_t dash = part.find('-');
    if (dash == 0 || dash == part.size() - 1 ||
        (dash != std::string::npos && part.find('-', dash + 1) != std::string::npos))
      return {};
    const std::string first = part.substr(0, dash);
    const std::string last = dash == std::string::npos ? first : part.substr(dash + 1);
    if (first.size() > 6 || last.size() > 6) return {};
    const int lo = std::stoi(first);
    const int hi = std::stoi(last);
    if (hi < lo) return {};
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

std::unique_ptr<EnergyMeter> open_perf_power(std::string& why) {
  const char* env = std::getenv("PARLAB_EVENT_SOURCE_ROOT");
  const fs::path root = env != nullptr && *env != '\0' ? env : "/sys/bus/event_source/devices";
  const fs::path dir = root / "power";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    why = "no perf power PMU (" + dir.string() + " missing)";
    return nullptr;
  }
  const auto type_text = read_line(dir / "type");
  char* end = nullptr;
  const unsigned long type = type_text ? std::strtoul(type_text->c_str(), &end, 10) : 0;
  if (!type_text || type_text->empty() || *end != '\0' || type > UINT32_MAX) {
    why = (dir / "type").string() + " is not a PMU type number";
    return nullptr;
  }
  // The package counter, as RAPL's domains; where a PMU has none (some virtual machines expose
  // only psys), the platform's, which the context then names.
  std::string event = "energy-pkg";
  fs::path event_file = dir / "events" / event;
  auto event_text = read_line(event_file);
  if (!event_text) {
    event = "energy-psys";
    event_file = dir / "events" / event;
    event_text = read_line(event_file);
  }
  if (!event_text) {
    why = "the perf power PMU has no package or platform counter (" + (dir / "events" / "energy-pkg").string() +
          " and energy-psys missing)";
    return nullptr;
  }
  const auto config = parse_event(*event_text);
  if (!config) {
    why = event_file.string() + " is \"" + *event_text + "\", not event=<number>";
    return nullptr;
  }
  // The scale turns counts into the unit; the kernel has always said Joules, but a PMU that says
  // anything else would make every record's joules wrong, so it is refused.
  const auto scale_text = read_line(event_file.string() + ".scale");
  const double scale = scale_text ? std::strtod(scale_text->c_str(), nullptr) : 0;
  if (!(scale > 0)) {
    why = event_file.string() + ".scale is missing or not a positive number";
    return nullptr;
  }
  if (const auto unit = read_line(event_file.string() + ".unit"); unit && *unit != "Joules") {
    why = event_file.string() + ".unit is \"" + *unit + "\", not Joules";
    return nullptr;
  }
  // The PMU's cpumask names one CPU of each package, exactly those it counts on.
  std::vector<int> cpus;
  if (const auto mask = read_line(dir / "cpumask"))
    cpus = parse_cpu_list(*mask);
  else
    cpus = one_cpu_per_package();
  if (cpus.empty()) {
    why = "no CPU to count the perf power PMU on (" + (dir / "cpumask").string() + " unreadable or empty)";
    return nullptr;
  }
  std::vector<PerfFd> fds;
  for (const int cpu : cpus) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = static_cast<std::uint32_t>(type);
    attr.config = *config;
    // pid -1 and a CPU: the whole package, every process. CLOEXEC: the external peers and MPI jobs
    // parlab starts need no counter of their parent's.
    const long fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
      const int e = errno;
      why = "perf_event_open of the power PMU's " + event + " (type " + *type_text + ", config " + *event_text +
            ") on CPU " + std::to_string(cpu) + " failed: " + errno_text(e) + "; " + paranoid_text();
      return nullptr;
    }
    fds.emplace_back(static_cast<int>(fd));
  }
  const auto base = PerfPowerMeter::total(fds);
  if (!base) {
    why = "the perf power PMU's " + event + " counter opened but could not be read";
    return nullptr;
  }
  return std::make_unique<PerfPowerMeter>(std::move(fds), std::move(cpus), scale, *base, dir.string(), event);
}

}  // namespace parlab
