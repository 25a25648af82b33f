// parlab's command line in another project's binary, with that project's kernels in the
// catalogue (core/include/parlab/kernel.hpp, the contract; core/user_kernels.hpp, the adapter). The
// library target parlab_harness, installed as the CMake package's parlab::harness.
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <utility>

#include "core/error.hpp"
#include "core/user_kernels.hpp"
#include "experiments/cli/cli.hpp"
#include "experiments/cli/commands.hpp"
#include "core/include/parlab/kernel.hpp"

namespace parlab::harness {

int run_main(int argc, char** argv, std::vector<Kernel> kernels, const char* data_dir, int api_version) {
  // The signal policy of parlab's own main (experiments/cli/main.cpp, which says why).
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
  if (api_version != kKernelApiVersion) {
    std::cerr << "parlab: this binary was compiled against parlab/kernel.hpp version " << api_version
              << ", but links the harness of version " << kKernelApiVersion << ": rebuild it against one installation\n";
    return kExitUsage;
  }
  // The binary lies in the person's build tree, not beside share/parlab: the package's own data
  // directory serves unless PARLAB_DATA_DIR names another (io/data_dir.hpp). Children inherit it.
  if (data_dir != nullptr && *data_dir != '\0') ::setenv("PARLAB_DATA_DIR", data_dir, 0);
  try {
    add_user_kernels(std::move(kernels));
  } catch (const Error& e) {
    std::cerr << "parlab: " << e.what() << "\n";
    return e.category() == ErrorCategory::usage ? kExitUsage : kExitFailure;
  }
  return run_cli(argc, argv, std::cout, std::cerr);
}

}  // namespace parlab::harness
