// libFuzzer target of the hostfile reader: the bytes are a hostfile's text (parse_hostfile, what
// hostfile_hosts reads from the file), and then, as the launcher's messages, are searched for the
// hosts it named (hosts_named, the names_host search that names a lost host in a failed record).
// Contract: the hosts, or a UsageError (exit 2). Anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "experiments/run/rank_sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> hosts;
  try {
    hosts = parlab::parse_hostfile(text, "fuzz-hostfile");
  } catch (const parlab::UsageError&) {
    return 0;
  }
  (void)parlab::hosts_named(hosts, text);
  return 0;
}
