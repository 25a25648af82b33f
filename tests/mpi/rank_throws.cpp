// A rank that throws inside a distributed workload ends the whole job with a clear message
// (MPI_Abort after printing), instead of leaving the other ranks waiting in a collective.
// Run under mpirun with 2 ranks: rank 0 drives a leader, rank 1 serves and throws in run().
#include <memory>
#include <stdexcept>

#include "mpi/runtime.hpp"

namespace {

class ThrowsOnRankOne final : public parlab::mpi::RankWorkload {
 public:
  explicit ThrowsOnRankOne(int rank) : rank_(rank) {}
  void run() override {
    if (rank_ == 1) throw std::runtime_error("planted failure in rank 1's share");
    MPI_Barrier(MPI_COMM_WORLD);  // rank 0 would wait here forever without the abort
  }
  parlab::Validation validate() override { return {}; }
  parlab::WorkCount work() const override { return {}; }

 private:
  int rank_;
};

}  // namespace

int main() {
  auto& rt = parlab::mpi::Runtime::instance();
  rt.start();
  rt.add_builder("planted", [](const parlab::Problem&, const parlab::mpi::Layout& l) {
    return std::make_unique<ThrowsOnRankOne>(l.rank);
  });
  if (rt.layout().rank != 0) return rt.serve();
  parlab::Problem p;
  p.kernel = "pi";
  auto w = rt.make_leader("planted", p);
  w->run();
  rt.finish();
  return 0;  // not reached: the job is aborted
}
