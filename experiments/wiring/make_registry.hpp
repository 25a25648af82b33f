// Builds the runtime registry: every backend that was compiled registers itself through its
// wing's backends.hpp (cpu/, gpu/, embed/, mpi/, peers/); every one that was not is listed as
// unavailable by name with the configure-time reason.
#pragma once

#include <optional>
#include <string>

#include "core/ceilings_cpu.hpp"
#include "core/workload.hpp"

namespace parlab {

Registry make_registry();

// Where the external peers' binaries are (BabelStream's omp-stream and cuda-stream, peers/):
// `parlab run --peer-dir DIR`, which overrides $PARLAB_BABELSTREAM_DIR in the registries made
// after it. Empty: the environment's.
void set_peer_dir(const std::string& dir);

// The roofs of GPU 0 (gpu/ceilings.hpp) when the CUDA part was built; otherwise every GPU roof
// unavailable with the configure-time reason. Never throws for a missing device.
RoofSet measure_gpu_roofs(bool quick);

// Where `parlab ceilings` finds GPU pi's compiled code in `cuobjdump -sass` output
// (experiments/machine/incore.hpp): parts of the mangled names of the pi kernel launch_pi_hits
// runs and of the gpu_imul probe, and the pairs per thread and trip of pi's hot loop (gpu/ceilings.hpp).
// nullopt when the CUDA part was not built (no GPU record exists to hold against it).
struct GpuPiCode {
  std::string pi_function;
  int pairs_per_trip = 0;
  std::string imul_probe_function;
};
std::optional<GpuPiCode> gpu_pi_code();

// The timeout of one external peer invocation, in seconds (0: none): `parlab run --timeout`,
// which bounds every measurement made in another process. Read at each launch, so it may be set
// after the registry is made.
void set_peer_timeout(double seconds);

}  // namespace parlab
