// Kernels of an outside project that parlab must refuse or fail, each in its own way
// (tests/python/test_user_kernel_package.py):
//   stateful   its body's result depends on how often it ran before, as a racy kernel's depends on
//              the interleaving: every run differs from the one-worker result (FAILED, exit 1)
//   throwing   its body throws on one block (FAILED with the kernel's message, exit 1)
//   wrong      deterministic, but its check rejects the result (FAILED, exit 1)
//   tolerant   its result wobbles in the 1e-12th part from run to run, within the relative
//              tolerance 1e-9 it declares: it passes, and the record says within what
// With PARLAB_TEST_MALFORMED set, a kernel without setup is added: refused before anything runs
// (exit 2).
#include <parlab/kernel.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

class Stateful final : public parlab::Instance {
 public:
  double body(std::uint64_t, std::uint64_t) override { return static_cast<double>(calls_.fetch_add(1)); }
  parlab::Verdict check(double) override { return {true, "anything"}; }

 private:
  std::atomic<std::uint64_t> calls_{0};
};

class Throwing final : public parlab::Instance {
 public:
  explicit Throwing(std::uint64_t n) : n_(n) {}
  double body(std::uint64_t begin, std::uint64_t end) override {
    if (begin <= n_ / 2 && n_ / 2 < end) throw std::runtime_error("item " + std::to_string(n_ / 2) + " is poisoned");
    return static_cast<double>(end - begin);
  }
  parlab::Verdict check(double) override { return {true, "anything"}; }

 private:
  std::uint64_t n_;
};

class Wrong final : public parlab::Instance {
 public:
  double body(std::uint64_t begin, std::uint64_t end) override { return static_cast<double>(end - begin); }
  parlab::Verdict check(double result) override { return {false, "counted " + std::to_string(result) + ", wanted -1"}; }
};

class Tolerant final : public parlab::Instance {
 public:
  double body(std::uint64_t begin, std::uint64_t end) override {
    return static_cast<double>(end - begin) * (1 + 1e-13 * static_cast<double>(calls_.fetch_add(1) % 7));
  }
  parlab::Verdict check(double) override { return {true, "anything"}; }

 private:
  std::atomic<std::uint64_t> calls_{0};
};

parlab::Kernel kernel(const char* name, std::function<std::unique_ptr<parlab::Instance>(std::uint64_t)> make) {
  parlab::Kernel k;
  k.name = name;
  k.work.bound = parlab::Bound::none;
  k.work.no_bound = "a test kernel";
  k.block = 4;
  k.setup = [make](std::uint64_t n, std::uint64_t) { return make(n); };
  return k;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<parlab::Kernel> ks;
  ks.push_back(kernel("stateful", [](std::uint64_t) { return std::make_unique<Stateful>(); }));
  ks.push_back(kernel("throwing", [](std::uint64_t n) { return std::make_unique<Throwing>(n); }));
  ks.push_back(kernel("wrong", [](std::uint64_t) { return std::make_unique<Wrong>(); }));
  ks.push_back(kernel("tolerant", [](std::uint64_t) { return std::make_unique<Tolerant>(); }));
  ks.back().tolerance = 1e-9;
  if (std::getenv("PARLAB_TEST_MALFORMED") != nullptr) {
    parlab::Kernel bad;
    bad.name = "no_setup";
    bad.work.bound = parlab::Bound::flops;
    bad.work.flops_per_item = 1;
    ks.push_back(bad);
  }
  return parlab::main(argc, argv, std::move(ks));
}
