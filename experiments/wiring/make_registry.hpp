// Builds the runtime registry: every backend that was compiled registers itself through its
// wing's backends.hpp (cpu/, gpu/, embed/, mpi/, peers/); every one that was not is listed as
// unavailable by name with the configure-time reason.
#pragma once

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

// The timeout of one external peer invocation, in seconds (0: none): `parlab run --timeout`,
// which bounds every measurement made in another process. Read at each launch, so it may be set
// after the registry is made.
void set_peer_timeout(double seconds);

}  // namespace parlab
