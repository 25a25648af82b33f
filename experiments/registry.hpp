// Builds the runtime registry: every backend that was compiled registers itself through its
// wing's backends.hpp (cpu/, gpu/, embed/, mpi/, peers/); every one that was not is listed as
// unavailable by name with the configure-time reason.
#pragma once

#include <string>

#include "core/workload.hpp"

namespace parlab {

Registry make_registry();

// Where the external peers' binaries are (BabelStream's omp-stream and cuda-stream, peers/):
// `parlab run --peer-dir DIR`, which overrides $PARLAB_BABELSTREAM_DIR in the registries made
// after it. Empty: the environment's.
void set_peer_dir(const std::string& dir);

}  // namespace parlab
