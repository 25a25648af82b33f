#include "experiments/wiring/make_registry.hpp"

#include <cstdlib>
#include <sstream>

#include "experiments/io/child_process.hpp"
#include "experiments/io/interrupt.hpp"
#include "cpu/backends.hpp"
#include "gpu/backend_names.hpp"
#include "embed/backend_names.hpp"
#include "parlab/build_info.hpp"
#include "peers/backends.hpp"

#if defined(PARLAB_HAVE_CUDA)
#include "gpu/backends.hpp"
#include "gpu/ceilings.hpp"
#endif
#if defined(PARLAB_HAVE_PYTHON)
#include "embed/backends.hpp"
#endif
#if defined(PARLAB_HAVE_MPI)
#include "mpi/backends.hpp"
#endif

namespace parlab {
namespace {

std::string& peer_dir_override() {
  static std::string dir;
  return dir;
}

// A peer invocation that runs longer than this is stopped and its record fails: `parlab run
// --timeout` (set_peer_timeout), 1800 s (the option's default) where nothing set it.
double& peer_timeout_s() {
  static double seconds = 1800;
  return seconds;
}

std::string format_seconds(double s) {
  std::ostringstream o;
  o << s;
  return o.str();
}

// The external peers run their binaries through parlab's one spawn helper, watching this
// process's interruption (a Ctrl-C stops the binary and leaves the measurement to --resume).
PeerProcess launch_peer(const std::vector<std::string>& argv, const PeerEnv& env) {
  PeerProcess p;
  if (g_interrupted.load()) {
    p.interrupted = true;
    p.ended = "not started: parlab was interrupted";
    return p;
  }
  SpawnOptions o;
  o.set_env = env;
  o.capture_stdout = true;
  o.timeout_s = peer_timeout_s();
  o.own_process_group = true;  // a peer's background children end with it (SpawnOptions)
  o.interrupted = &g_interrupted;
  ChildOutput c = run_child(argv, o);
  p.started = c.exit_code != -1;
  p.interrupted = c.interrupted;
  p.exit_code = c.exit_code;
  p.ended = c.describe_end() + (c.timed_out ? " (--timeout " + format_seconds(peer_timeout_s()) + " s)" : "");
  p.out = std::move(c.out);
  p.err_tail = std::move(c.err_tail);
  return p;
}

PeerOptions peer_options() {
  PeerOptions o;
  o.launch = launch_peer;
  if (!peer_dir_override().empty()) {
    o.babelstream_dir = peer_dir_override();
    o.dir_from = "--peer-dir";
  } else if (const char* d = std::getenv("PARLAB_BABELSTREAM_DIR"); d != nullptr && *d != '\0') {
    o.babelstream_dir = d;
    o.dir_from = "PARLAB_BABELSTREAM_DIR";
  }
  return o;
}

}  // namespace

void set_peer_dir(const std::string& dir) { peer_dir_override() = dir; }

void set_peer_timeout(double seconds) { peer_timeout_s() = seconds; }

Registry make_registry() {
  Registry r;
  add_serial_backends(r);
  add_threads_backends(r);
  add_pool_backends(r);
#if defined(PARLAB_HAVE_TBB)
  add_tbb_backends(r);
#else
  r.add_unavailable("tbb", BackendKind::cpu, build_info::kTbbWhy);
#endif
#if defined(PARLAB_HAVE_OPENMP)
  add_openmp_backends(r);
#else
  r.add_unavailable("openmp", BackendKind::cpu, build_info::kOpenMpWhy);
#endif
#if defined(PARLAB_HAVE_CUDA)
  add_cuda_backends(r);
#else
  for (const std::string_view name : cuda::kBackendNames) {
    r.add_unavailable(std::string(name), BackendKind::gpu, build_info::kCudaWhy);
  }
#endif
#if defined(PARLAB_HAVE_PYTHON)
  add_python_backends(r);
#else
  for (const std::string_view name : embed::kPythonBackendNames) {
    r.add_unavailable(std::string(name), BackendKind::python, build_info::kPythonWhy);
  }
#endif
  add_peers_backends(r, peer_options());  // after the CUDA part: babelstream-cuda reads its device verdict
#if defined(PARLAB_HAVE_MPI)
  add_mpi_backends(r);  // after the CPU and GPU parts: it composes with their factories
#else
  for (const char* name : {"mpi+serial", "mpi+pool", "mpi+tbb", "mpi+openmp", "mpi+cuda"}) {
    r.add_unavailable(name, BackendKind::mpi, build_info::kMpiWhy);
  }
#endif
  return r;
}

std::optional<GpuPiCode> gpu_pi_code() {
#if defined(PARLAB_HAVE_CUDA)
  const GpuPiLoop loop = gpu_pi_loop();
  return GpuPiCode{loop.function_fragment, loop.pairs_per_trip, gpu_imul_probe_function()};
#else
  return std::nullopt;
#endif
}

RoofSet measure_gpu_roofs(bool quick) {
#if defined(PARLAB_HAVE_CUDA)
  return measure_gpu_ceilings(0, quick);
#else
  (void)quick;
  RoofSet set;
  for (const RoofKey k : kGpuRoofKeys) {
    set.unavailable.emplace_back(k, std::string("CUDA part not built: ") + build_info::kCudaWhy);
  }
  return set;
#endif
}

}  // namespace parlab
