#include "backends.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <system_error>

#include "babelstream.hpp"
#include "likwid.hpp"
#include "core/error.hpp"

namespace parlab {
namespace {

namespace fs = std::filesystem;

struct PeerBinary {
  const char* backend;
  const char* file;  // BabelStream's executable name for the model: <model>-stream
  bool gpu;
};

constexpr PeerBinary kBinaries[] = {{"babelstream-omp", "omp-stream", false},
                                    {"babelstream-cuda", "cuda-stream", true}};

// The commit scripts/build-babelstream.sh recorded beside the binaries, if any.
std::string recorded_commit(const fs::path& dir) {
  std::ifstream in(dir / "BABELSTREAM_COMMIT");
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line.substr(0, 80);
}

BackendEntry peer_entry(const PeerBinary& b, const PeerOptions& o, const Registry& registry) {
  BackendEntry e;
  e.name = b.backend;
  e.kind = BackendKind::peer;
  e.processor = b.gpu ? Processor::gpu : Processor::cpu;  // the model the binary was built for
  e.in_default_set = false;    // measured where a suite or --backend names it
  e.sweeps_threads = !b.gpu;   // the CUDA model runs on one host thread
  e.kernels = babelstream::kernel_table().names();
  const std::string from = o.dir_from.empty() ? std::string("PARLAB_BABELSTREAM_DIR") : o.dir_from;
  const std::string build_hint = std::string("build it with scripts/build-babelstream.sh BABELSTREAM_SRC DIR") +
                                 (b.gpu ? " where nvcc is found" : "");
  std::string reason;
  const fs::path dir = o.babelstream_dir;
  const fs::path binary = dir / b.file;
  std::error_code ec;
  if (o.babelstream_dir.empty()) {
    reason = std::string("no BabelStream directory: set PARLAB_BABELSTREAM_DIR (or parlab run --peer-dir DIR) to where ") +
             b.file + " is; " + build_hint;
  } else if (!fs::is_directory(dir, ec)) {
    reason = from + " " + dir.string() + " is not a directory (" + b.file + " is looked for there; " + build_hint + ")";
  } else if (!fs::exists(binary, ec)) {
    reason = std::string("no ") + b.file + " in " + dir.string() + " (" + from + "; " + build_hint + ")";
  } else if (fs::is_directory(binary, ec) ||
             (fs::status(binary, ec).permissions() & (fs::perms::owner_exec | fs::perms::group_exec |
                                                      fs::perms::others_exec)) == fs::perms::none) {
    reason = binary.string() + " is not an executable file";
  } else if (!o.launch) {
    reason = "this build has no process launcher for external peers";
  } else if (b.gpu) {
    // No device here: the binary would fail, as parlab's own CUDA entry already found.
    if (const std::string none = no_gpu_reason(registry); !none.empty()) {
      reason = none + " (" + binary.string() + " needs one)";
    }
  }
  if (!reason.empty()) {
    e.available = false;
    e.reason = reason;
    e.make = [reason, name = e.name](const Problem&) -> std::unique_ptr<Workload> {
      throw UnavailableError(name + ": " + reason);
    };
    return e;
  }
  e.available = true;
  const std::string commit = recorded_commit(dir);
  e.detail = "BabelStream " + std::string(b.file) + " at " + fs::absolute(binary, ec).string() + " (" + from +
             (commit.empty() ? std::string("; commit not recorded") : "; commit " + commit) + "), --numtimes " +
             std::to_string(babelstream::kNumTimes) + (b.gpu ? ", --device = the record's device" : ", OMP_NUM_THREADS = threads");
  e.make = [name = e.name, path = fs::absolute(binary, ec).string(), gpu = b.gpu, launch = o.launch,
            kernels = e.kernels](const Problem& p) {
    if (std::find(kernels.begin(), kernels.end(), p.kernel) == kernels.end()) {
      std::string accepted;
      for (const auto& k : kernels) accepted += (accepted.empty() ? "" : ", ") + k;
      throw UsageError("backend '" + name + "' does not run kernel '" + p.kernel + "' (accepted: " + accepted + ")");
    }
    return babelstream::make_workload(name, path, gpu, launch, p);
  };
  return e;
}

}  // namespace

void add_peers_backends(Registry& registry, const PeerOptions& options) {
  for (const PeerBinary& b : kBinaries) registry.add(peer_entry(b, options, registry));
  likwid::add_likwid_backends(registry, options.launch);
}

}  // namespace parlab
