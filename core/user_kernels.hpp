// Kernels another project adds to the catalogue through the installed package: the public
// contract (core/include/parlab/kernel.hpp, installed as <parlab/kernel.hpp>) turned into
// catalogue rows and CPU workloads, so that such a kernel is listed, planned, run on every CPU
// executor, accounted and held against its roof by the same code as parlab's own
// (docs/your-kernel.md).
#pragma once

#include <memory>
#include <vector>

#include "include/parlab/kernel.hpp"
#include "workload.hpp"

namespace parlab {

// Adds `kernels` to the catalogue. Throws UsageError naming the kernel and what is wrong for one
// that is not well formed (a name not of [a-z0-9_], empty, parlab's or given twice; no setup; block
// 0; a negative or non-finite tolerance or work figure; no bound and no reason), adding none of
// them; FailureError once the catalogue has been read (kernel_specs()), whose size every wing's
// kernel table is made with.
void add_user_kernels(std::vector<Kernel> kernels);

// The catalogue rows of the kernels added so far (family own, double precision), whose strings
// live as long as the process: kernel_specs() appends them.
std::vector<KernelSpec> user_kernel_specs();
// Called by kernel_specs() when it first builds the catalogue: later additions are refused.
void freeze_user_kernels();

// The CPU workload of an added kernel on `ex` (the CPU wing's row of family own): setup outside
// the timed region, then the one-worker result; each run the fixed blocks on the executor, summed
// pairwise in block order; validate() holds every run against the one-worker result (bit for bit,
// or within the kernel's tolerance), then asks the kernel's check. UsageError for a kernel not added.
std::unique_ptr<Workload> make_user_workload(std::unique_ptr<Executor> ex, const Problem& p);

}  // namespace parlab
