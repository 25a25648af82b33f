// A kernel whose items cost more the later they come: item i sums j over 0 <= j <= i, so the work
// is triangular (n (n + 1) / 2 additions) and a static partition that gives each thread an equal
// count of items gives the last thread the most work. parlab runs it on every CPU executor and its
// efficiency hierarchy shows where the static schedules lose (README.md).
#include <parlab/kernel.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace {

class Triangular final : public parlab::Instance {
 public:
  explicit Triangular(std::uint64_t n) : n_(n) {}

  // Items [begin, end): the partial sum over them. A pure function of the range: no shared state.
  double body(std::uint64_t begin, std::uint64_t end) override {
    double partial = 0;
    for (std::uint64_t i = begin; i < end; ++i) {
      double row = 0;
      for (std::uint64_t j = 0; j <= i; ++j) row += static_cast<double>(j);
      partial += row;
    }
    return partial;
  }

  // Every partial is an integer below 2^53, so the sum is exact whatever the order: it must equal
  // the closed form sum over i < n of i (i + 1) / 2 = (n - 1) n (n + 1) / 6.
  parlab::Verdict check(double result) override {
    const double n = static_cast<double>(n_);
    const double expect = (n - 1) * n * (n + 1) / 6;
    if (result == expect) return {true, "equals (n-1) n (n+1) / 6"};
    return {false, "sum " + std::to_string(result) + " is not (n-1) n (n+1) / 6 = " + std::to_string(expect)};
  }

 private:
  std::uint64_t n_;
};

parlab::Kernel triangular() {
  parlab::Kernel k;
  k.name = "triangular";
  k.size_meaning = "rows (row i adds i + 1 numbers)";
  k.validation = "the sum equals (n-1) n (n+1) / 6";
  k.work.flops_per_item = 1;  // one addition per unit of row i's i + 1
  k.work.growth = parlab::Growth::triangular;
  k.work.bound = parlab::Bound::flops;
  k.block = 16;  // rows per block: enough blocks for 16 threads at a few thousand rows
  k.setup = [](std::uint64_t n, std::uint64_t) { return std::make_unique<Triangular>(n); };
  return k;
}

}  // namespace

int main(int argc, char** argv) { return parlab::main(argc, argv, {triangular()}); }
