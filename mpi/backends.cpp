#include "backends.hpp"

#include <algorithm>

#include "job_ledger.hpp"
#include "runtime.hpp"
#include "workloads.hpp"

namespace parlab {

namespace {

// The entry's factory: refuses what it does not run before any rank is involved, then makes
// rank 0's leader of the distributed workload.
// `processor`: where each rank's share runs (the GPU for mpi+cuda, the CPU for the executors).
BackendEntry mpi_entry(const std::string& name, std::vector<std::string> kernels, std::string detail, bool sweeps_threads,
                       Processor processor) {
  BackendEntry e;
  e.name = name;
  e.kind = BackendKind::mpi;
  e.processor = processor;
  e.own_kernels = true;  // each rank runs the cpu or cuda wing's kernels
  e.available = true;
  e.detail = std::move(detail);
  e.in_default_set = false;
  e.sweeps_threads = sweeps_threads;
  e.kernels = std::move(kernels);
  e.make = [name, kernels = e.kernels](const Problem& p) {
    if (std::find(kernels.begin(), kernels.end(), p.kernel) == kernels.end()) {
      std::string accepted;
      for (const auto& k : kernels) accepted += (accepted.empty() ? "" : ", ") + k;
      throw UsageError("backend '" + name + "' does not run kernel '" + p.kernel + "' (accepted: " + accepted + ")");
    }
    const KernelSpec* spec = find_kernel(p.kernel);
    if (spec != nullptr && std::find(spec->precisions.begin(), spec->precisions.end(), p.precision) == spec->precisions.end()) {
      throw UsageError("kernel '" + p.kernel + "' does not support precision " + to_string(p.precision));
    }
    Executor::check_threads(p.threads);
    return mpi::Runtime::instance().make_leader(name, p);
  };
  return e;
}

}  // namespace

void add_mpi_backends(Registry& registry) {
  mpi::Runtime& rt = mpi::Runtime::instance();
  const std::string library = mpi::library_version();
  for (const std::string executor : {"serial", "pool", "tbb", "openmp"}) {
    const std::string name = "mpi+" + executor;
    const BackendEntry* cpu = registry.find(executor);
    if (cpu == nullptr || !cpu->available || !cpu->make_executor) {
      registry.add_unavailable(name, BackendKind::mpi, "the " + executor + " executor is unavailable: " +
                                                (cpu ? cpu->reason : "not registered"));
      continue;
    }
    mpi::ExecutorFactory make_executor = cpu->make_executor;
    rt.add_builder(name, [make_executor](const Problem& p, const mpi::Layout& l) {
      return mpi::make_accounted_cpu_rank_workload(make_executor, p, l);
    });
    registry.add(mpi_entry(name, mpi::rank_kernel_table().names([](const mpi::RankRow& r) { return r.cpu != nullptr; }), library + "; each rank runs its share on " + executor,
                           cpu->sweeps_threads, Processor::cpu));
  }
  const BackendEntry* cuda = registry.find("cuda");
  if (cuda == nullptr || !cuda->available) {
    registry.add_unavailable("mpi+cuda", BackendKind::mpi, "the cuda backend is unavailable: " + (cuda ? cuda->reason : std::string("not registered")));
    return;
  }
  mpi::WorkloadFactory make_gpu = cuda->make;
  rt.add_builder("mpi+cuda", [make_gpu](const Problem& p, const mpi::Layout& l) {
    return mpi::make_gpu_rank_workload(make_gpu, p, l);
  });
  registry.add(mpi_entry("mpi+cuda", mpi::rank_kernel_table().names([](const mpi::RankRow& r) { return r.gpu != nullptr; }), library + "; one rank per GPU (device = rank on its host)", false, Processor::gpu));
}

namespace mpi_job {

void start_if_launched() {
  if (mpi::launched_by_launcher()) mpi::Runtime::instance().start();
}

bool is_follower() {
  const mpi::Runtime& rt = mpi::Runtime::instance();
  return rt.started() && rt.layout().rank != 0;
}

int serve() { return mpi::Runtime::instance().serve(); }

void finish() noexcept { mpi::Runtime::instance().finish(); }

Facts facts() {
  const mpi::Runtime& rt = mpi::Runtime::instance();
  Facts f;
  f.library = mpi::library_version();
  f.in_job = rt.started();
  if (f.in_job) {
    f.ranks = rt.layout().ranks;
    f.ranks_per_node = rt.layout().ranks_per_node;
    f.hosts = rt.layout().hosts;
    f.binding = rt.layout().binding;
  }
  return f;
}

}  // namespace mpi_job

}  // namespace parlab
