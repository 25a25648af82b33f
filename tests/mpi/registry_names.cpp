// Prints the name of every backend of one kind that make_registry() lists, one a line. Built twice
// (tests/mpi/CMakeLists.txt): linked with this build's MPI part, and with experiments/wiring/make_registry.cpp
// compiled again as a build without any optional part does it, so that mpi_backend_names_agree
// can compare the MPI backends that mpi/backends.cpp registers with the names experiments/
// lists as unavailable where the MPI part is not built.
#include <cstdio>
#include <string>

#include "experiments/wiring/make_registry.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s KIND\n", argv[0]);
    return 2;
  }
  const std::string kind = argv[1];
  const parlab::Registry registry = parlab::make_registry();
  for (const auto& e : registry.entries()) {
    if (parlab::to_string(e.kind) == kind) std::printf("%s\n", e.name.c_str());
  }
  return 0;
}
