// Another project's kernels in the catalogue and on the CPU executors (core/user_kernels.hpp).
#include "user_kernels.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <deque>
#include <exception>
#include <limits>
#include <string>
#include <utility>

#include "aligned_buffer.hpp"
#include "stream.hpp"

namespace parlab {

namespace {

// A kernel as added, with the strings its catalogue row points into (a deque: rows never move).
struct UserKernel {
  Kernel def;
  std::string validation;  // the row's: the kernel's own words and the determinism rule
  std::string no_roof;
};

std::deque<UserKernel>& added() {
  static std::deque<UserKernel> kernels;
  return kernels;
}

bool& frozen() {
  static bool f = false;
  return f;
}

// The shortest text that reads back as the same double.
std::string exact(double x) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, x).ptr;
  return std::string(buf, end);
}

std::string determinism_rule(double tolerance) {
  return tolerance == 0 ? "every run equals the one-worker result bit for bit"
                        : "every run within relative " + exact(tolerance) + " of the one-worker result";
}

void check_well_formed(const Kernel& k) {
  const std::string who = "kernel '" + k.name + "'";
  if (k.name.empty()) throw UsageError("a kernel added to parlab has an empty name");
  if (!std::all_of(k.name.begin(), k.name.end(),
                   [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; })) {
    throw UsageError(who + ": a name is made of a-z, 0-9 and _ only");
  }
  for (const auto& s : builtin_kernel_specs()) {
    if (s.name == k.name) throw UsageError(who + ": parlab's own kernel has that name");
  }
  if (!k.setup) throw UsageError(who + ": no setup function");
  if (k.block == 0) throw UsageError(who + ": block must be at least 1 item");
  if (!std::isfinite(k.tolerance) || k.tolerance < 0) throw UsageError(who + ": tolerance must be finite and >= 0");
  const Work& w = k.work;
  for (double x : {w.bytes_per_item, w.flops_per_item, w.host_bytes_per_item}) {
    if (!std::isfinite(x) || x < 0) throw UsageError(who + ": work figures must be finite and >= 0");
  }
  if (w.bound == Bound::none && w.no_bound.empty()) {
    throw UsageError(who + ": bound is none, so no_bound must say why no roof applies");
  }
  if ((w.bound == Bound::memory_read || w.bound == Bound::memory_copy || w.bound == Bound::memory_triad) &&
      w.bytes_per_item <= 0) {
    throw UsageError(who + ": a memory bound needs bytes_per_item > 0");
  }
  if (w.bound == Bound::flops && w.flops_per_item <= 0) throw UsageError(who + ": a flops bound needs flops_per_item > 0");
}

RoofModel roof_of(const UserKernel& k) {
  switch (k.def.work.bound) {
    case Bound::memory_read: return RoofModel::bandwidth(MemoryRoof::read);
    case Bound::memory_copy: return RoofModel::bandwidth(MemoryRoof::copy);
    case Bound::memory_triad: return RoofModel::bandwidth(MemoryRoof::triad);
    case Bound::flops: return RoofModel::fma();
    case Bound::none: break;
  }
  return RoofModel::none(k.no_roof);
}

const UserKernel& find_added(const std::string& name) {
  for (const auto& k : added()) {
    if (k.def.name == name) return k;
  }
  throw UsageError("kernel '" + name + "' was not added by this binary");
}

// What a kernel's own code threw, as a failure of the record naming the kernel.
[[noreturn]] void rethrow_as_failure(const std::string& kernel, const char* where) {
  try {
    throw;
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw FailureError(kernel + ": " + where + " threw: " + e.what());
  } catch (...) {
    throw FailureError(kernel + ": " + where + " threw something not a std::exception");
  }
}

class UserWorkload final : public Workload {
 public:
  static constexpr std::size_t kMaxDistinct = 64;

  UserWorkload(std::unique_ptr<Executor> ex, const UserKernel& k, const Problem& p)
      : ex_(std::move(ex)), k_(k), n_(p.size), blocks_(n_ / k.def.block + (n_ % k.def.block != 0)), partials_(blocks_) {
    try {
      instance_ = k_.def.setup(n_, p.seed);
    } catch (...) {
      rethrow_as_failure(k_.def.name, "setup");
    }
    if (!instance_) throw FailureError(k_.def.name + ": setup returned no instance");
    distinct_.reserve(kMaxDistinct);
    // The one-worker result: every block in order on this thread, summed by the same tree.
    try {
      for (std::uint64_t b = 0; b < blocks_; ++b) partials_[b] = block_partial(instance_.get(), b);
    } catch (...) {
      rethrow_as_failure(k_.def.name, "body");
    }
    reference_ = dot_pairwise_inplace(partials_.data(), blocks_);
  }

  void run() override {
    Instance* in = instance_.get();
    double* part = partials_.data();
    const UserWorkload* self = this;
    try {
      ex_->parallel_for(blocks_, 1, [=](Index lo, Index hi) {
        for (Index b = lo; b < hi; ++b) part[b] = self->block_partial(in, b);
      });
    } catch (...) {
      rethrow_as_failure(k_.def.name, "body");
    }
    record(dot_pairwise_inplace(part, blocks_));
  }

  Validation validate() override {
    if (runs_ == 0) return Validation::never_ran();
    Validation v;
    v.checksum = last_;
    const auto metric = [&v](const char* name, double x) {
      if (std::isfinite(x)) v.metrics.emplace_back(name, x);
    };
    metric("runs", static_cast<double>(runs_));
    metric("runs_deviating", static_cast<double>(deviating_));
    metric("result_one_worker", reference_);
    metric("result_min", min_);
    metric("result_max", max_);
    metric("result_distinct", static_cast<double>(distinct_.size()));
    metric("result_max_rel_deviation", max_rel_dev_);
    const std::string rule = determinism_rule(k_.def.tolerance);
    if (deviating_ > 0) {
      v.pass = false;
      v.detail = "results differ from the one-worker result " + exact(reference_) + " in " + std::to_string(deviating_) +
                 " of " + std::to_string(runs_) + " runs: " + std::to_string(distinct_.size()) +
                 (distinct_.size() >= kMaxDistinct ? "+" : "") + " distinct values in [" + exact(min_) + ", " +
                 exact(max_) + "], largest relative deviation " + exact(max_rel_dev_) + " (allowed: " + rule +
                 "): the kernel races, or its body depends on how the range is cut";
      return v;
    }
    Verdict c;
    try {
      c = instance_->check(last_);
    } catch (const std::exception& e) {
      c = {false, std::string("check threw: ") + e.what()};
    } catch (...) {
      c = {false, "check threw something not a std::exception"};
    }
    v.pass = c.pass;
    v.detail = c.pass ? rule + " (" + exact(reference_) + "); " + c.detail : c.detail;
    return v;
  }

  WorkCount work() const override { return kernel_work(k_.def.name, Precision::f64, n_); }

 private:
  double block_partial(Instance* in, std::uint64_t b) const {
    const std::uint64_t begin = b * k_.def.block;
    const std::uint64_t end = n_ - begin > k_.def.block ? begin + k_.def.block : n_;
    return in->body(begin, end);
  }

  bool same(double x) const {
    if (k_.def.tolerance == 0) return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(reference_);
    return std::fabs(x - reference_) <= k_.def.tolerance * std::fabs(reference_);
  }

  // No allocation: the timed region calls it (distinct_ is reserved).
  void record(double x) {
    last_ = x;
    min_ = runs_ == 0 ? x : std::min(min_, x);
    max_ = runs_ == 0 ? x : std::max(max_, x);
    ++runs_;
    if (!same(x)) {
      ++deviating_;
      double dev = reference_ != 0 ? std::fabs(x - reference_) / std::fabs(reference_) : std::fabs(x);
      if (std::isnan(dev)) dev = std::numeric_limits<double>::infinity();  // a NaN result deviates without bound
      max_rel_dev_ = std::max(max_rel_dev_, dev);
    }
    const auto bits = std::bit_cast<std::uint64_t>(x);
    const auto at = std::lower_bound(distinct_.begin(), distinct_.end(), bits);
    if ((at == distinct_.end() || *at != bits) && distinct_.size() < kMaxDistinct) distinct_.insert(at, bits);
  }

  std::unique_ptr<Executor> ex_;
  const UserKernel& k_;
  std::uint64_t n_, blocks_;
  AlignedBuffer<double> partials_;
  std::unique_ptr<Instance> instance_;
  double reference_ = 0, last_ = 0, min_ = 0, max_ = 0, max_rel_dev_ = 0;
  std::uint64_t runs_ = 0, deviating_ = 0;
  std::vector<std::uint64_t> distinct_;  // the results' bits, sorted
};

}  // namespace

void add_user_kernels(std::vector<Kernel> kernels) {
  if (frozen()) throw FailureError("kernels can be added to parlab only before its catalogue is first read");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    check_well_formed(kernels[i]);
    for (std::size_t j = 0; j < i; ++j) {
      if (kernels[j].name == kernels[i].name) throw UsageError("kernel '" + kernels[i].name + "' is given twice");
    }
    for (const auto& k : added()) {
      if (k.def.name == kernels[i].name) throw UsageError("kernel '" + kernels[i].name + "' is given twice");
    }
  }
  for (auto& k : kernels) {
    UserKernel u;
    u.validation = (k.validation.empty() ? std::string("the kernel's check of the last result") : k.validation) + "; " +
                   determinism_rule(k.tolerance);
    u.no_roof = k.work.no_bound;
    u.def = std::move(k);
    added().push_back(std::move(u));
  }
}

std::vector<KernelSpec> user_kernel_specs() {
  std::vector<KernelSpec> specs;
  for (const auto& k : added()) {
    const Work& w = k.def.work;
    WorkModel m;
    m.shape = w.growth == Growth::triangular ? WorkShape::triangle : WorkShape::line;
    // A kernel that declares neither bytes nor flops is measured in items per second.
    m.samples = w.bytes_per_item == 0 && w.flops_per_item == 0 ? 1 : 0;
    m.words = w.bytes_per_item / word_bytes(Precision::f64);
    m.flops = w.flops_per_item;
    m.host_words = w.host_bytes_per_item / word_bytes(Precision::f64);
    specs.push_back({k.def.name, KernelFamily::own, {Precision::f64}, k.def.size_meaning, m, k.validation, roof_of(k)});
  }
  return specs;
}

void freeze_user_kernels() { frozen() = true; }

std::unique_ptr<Workload> make_user_workload(std::unique_ptr<Executor> ex, const Problem& p) {
  return std::make_unique<UserWorkload>(std::move(ex), find_added(p.kernel), p);
}

}  // namespace parlab
