// Builds the runtime registry: every backend that was compiled registers itself; every one
// that was not is listed as unavailable with the configure-time reason.
#pragma once

#include "core/workload.hpp"

namespace parlab {

Registry make_registry();

}  // namespace parlab
