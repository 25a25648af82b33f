#include "runtime.hpp"

#include "job_ledger.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

namespace parlab::mpi {

namespace {

// A command from rank 0, broadcast as bytes (every rank runs the same executable).
enum class Op : std::int32_t { make = 1, run, validate, destroy, stop, account };

struct Command {
  Op op = Op::stop;
  std::int32_t threads = 1, device = 0, precision = 0;
  std::uint64_t size = 0, size_y = 0, seed = 0;
  char kernel[48] = {};
  char backend[48] = {};
  std::int32_t ledger_op = 0;  // Op::account: a LedgerOp, and its value
  double value = 0;
};

void copy_name(char (&dst)[48], const std::string& src, const char* what) {
  if (src.size() >= sizeof dst) throw UsageError(std::string(what) + " name '" + src + "' is too long for the MPI protocol");
  std::memcpy(dst, src.c_str(), src.size() + 1);
}

// A Problem on the wire: its one encoding (rank 0) and its one decoding (every rank, rank 0
// included, so that all build from the same bytes). `first` is not sent: each rank's builder sets
// its own share.
void encode_problem(Command& c, const Problem& p) {
  copy_name(c.kernel, p.kernel, "kernel");
  c.threads = p.threads;
  c.device = p.device;
  c.precision = static_cast<std::int32_t>(p.precision);
  c.size = p.size;
  c.size_y = p.size_y;
  c.seed = p.seed;
}

Problem decode_problem(const Command& c) {
  Problem p;
  p.kernel = c.kernel;
  p.precision = static_cast<Precision>(c.precision);
  p.size = c.size;
  p.size_y = c.size_y;
  p.seed = c.seed;
  p.threads = c.threads;
  p.device = c.device;
  return p;
}

// The rank whose link to rank 0 a record's link_latency_s is: the lowest rank on another host
// than rank 0's (by processor name, as the layout counts hosts), else rank 1; -1 for one rank.
// Collective.
int link_partner(const char* host, std::size_t size, int rank, int ranks) {
  if (ranks < 2) return -1;
  std::vector<char> first(host, host + size);
  MPI_Bcast(first.data(), static_cast<int>(size), MPI_CHAR, 0, MPI_COMM_WORLD);
  const int elsewhere = std::strncmp(first.data(), host, size) != 0 ? rank : ranks;
  int partner = ranks;
  MPI_Allreduce(&elsewhere, &partner, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return partner < ranks ? partner : 1;
}

// Half the median round trip of a 1-byte message between rank 0 and `partner`, on rank 0 (0
// elsewhere): a few trips first, so that a transport that connects lazily has connected. Before
// any command, so no broadcast is in flight beside it.
double link_latency_s(int rank, int partner) {
  constexpr int kWarmup = 10, kTrips = 51, kTag = 7301;
  if (partner < 0 || (rank != 0 && rank != partner)) return 0;
  const int other = rank == 0 ? partner : 0;
  char byte = 0;
  std::vector<double> trips;
  for (int i = 0; i < kWarmup + kTrips; ++i) {
    const double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(&byte, 1, MPI_CHAR, other, kTag, MPI_COMM_WORLD);
      MPI_Recv(&byte, 1, MPI_CHAR, other, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&byte, 1, MPI_CHAR, other, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&byte, 1, MPI_CHAR, other, kTag, MPI_COMM_WORLD);
    }
    if (i >= kWarmup) trips.push_back(MPI_Wtime() - t0);
  }
  if (rank != 0) return 0;
  std::nth_element(trips.begin(), trips.begin() + kTrips / 2, trips.end());
  return trips[kTrips / 2] / 2;
}

// Rank 0's side of a command broadcast.
void send(const Command& c) {
  Command copy = c;
  MPI_Request req;
  MPI_Ibcast(&copy, sizeof copy, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

// A follower's side. A nonblocking broadcast polled with growing sleeps, so an idle follower
// costs almost no CPU while rank 0 measures a single-process backend (a blocking MPI_Bcast
// busy-polls a core); for 20 ms after a command it only yields, so back-to-back runs of a
// timing loop are not delayed by a sleep.
Command receive() {
  Command c;
  MPI_Request req;
  MPI_Ibcast(&c, sizeof c, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
  const auto since = std::chrono::steady_clock::now();
  auto nap = std::chrono::microseconds(50);
  for (int done = 0;;) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) return c;
    if (std::chrono::steady_clock::now() - since < std::chrono::milliseconds(20)) {
      sched_yield();
    } else {
      std::this_thread::sleep_for(nap);
      nap = std::min(nap * 2, std::chrono::microseconds(2000));
    }
  }
}

// This process's CPU affinity as a list ("0-3,8").
std::string affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "?";
  std::ostringstream os;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int e = c;
    while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set)) ++e;
    os << (os.tellp() > 0 ? "," : "") << c;
    if (e > c) os << "-" << e;
    c = e;
  }
  return os.str();
}

}  // namespace

bool launched_by_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (const char* s = std::getenv(v); s != nullptr && *s != '\0') return true;
  }
  return false;
}

std::string library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<std::size_t>(std::max(0, len)));
  s = s.substr(0, s.find('\n'));
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

Communicator::~Communicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

void abort_job(const std::string& what) noexcept {
  int init = 0, fin = 0, rank = 0, size = 1;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  std::fprintf(stderr, "parlab: rank %d of %d: %s; aborting the MPI job\n", rank, size, what.c_str());
  std::fflush(stderr);
  if (init && !fin) MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

Runtime& Runtime::instance() {
  static Runtime runtime;
  return runtime;
}

void Runtime::start() {
  if (started_) return;
  if (finished_) throw FailureError("MPI was already finalized in this process; it cannot start again");
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    throw FailureError("MPI_Init_thread failed");
  }
  started_ = true;
  if (provided < MPI_THREAD_FUNNELED) {
    throw FailureError("the MPI library provides thread level " + std::to_string(provided) +
                       ", below MPI_THREAD_FUNNELED (executor threads beside MPI)");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &layout_.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &layout_.ranks);
  MPI_Comm node_comm = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, layout_.rank, MPI_INFO_NULL, &node_comm);
  const Communicator node(node_comm);
  int on_node = 1;
  MPI_Comm_rank(node.get(), &layout_.node_rank);
  MPI_Comm_size(node.get(), &on_node);
  MPI_Allreduce(&on_node, &layout_.ranks_per_node, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const int leads_node = layout_.node_rank == 0 ? 1 : 0;
  MPI_Allreduce(&leads_node, &layout_.hosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

  // Every rank's affinity, gathered on rank 0 for the context block.
  char mine[256] = {};
  const std::string a = affinity();
  std::snprintf(mine, sizeof mine, "%s", a.c_str());
  std::vector<char> all(layout_.rank == 0 ? sizeof mine * static_cast<std::size_t>(layout_.ranks) : 1);
  MPI_Gather(mine, sizeof mine, MPI_CHAR, all.data(), sizeof mine, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (layout_.rank == 0) {
    std::ostringstream os;
    for (int r = 0; r < layout_.ranks; ++r) {
      os << (r ? " " : "") << "r" << r << ":" << std::string(all.data() + sizeof mine * static_cast<std::size_t>(r));
    }
    layout_.binding = os.str();
  }

  // Every rank's host name, gathered on rank 0: the record's `host_names` and `ranks_per_host`
  // come from the job's own view (what a rank's host calls itself), not from a hostfile or a name.
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int host_len = 0;
  if (MPI_Get_processor_name(host, &host_len) != MPI_SUCCESS) {
    throw FailureError("MPI_Get_processor_name failed on rank " + std::to_string(layout_.rank));
  }
  std::vector<char> hosts_all(layout_.rank == 0 ? sizeof host * static_cast<std::size_t>(layout_.ranks) : 1);
  MPI_Gather(host, sizeof host, MPI_CHAR, hosts_all.data(), sizeof host, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (layout_.rank == 0) {
    for (int r = 0; r < layout_.ranks; ++r) {
      const char* at = hosts_all.data() + sizeof host * static_cast<std::size_t>(r);
      const std::string name(at, strnlen(at, sizeof host));
      const auto it = std::find(layout_.host_names.begin(), layout_.host_names.end(), name);
      if (it == layout_.host_names.end()) {
        layout_.host_names.push_back(name);
        layout_.ranks_per_host.push_back(1);
      } else {
        ++layout_.ranks_per_host[static_cast<std::size_t>(it - layout_.host_names.begin())];
      }
      layout_.host_of_rank.push_back(static_cast<int>(
          std::find(layout_.host_names.begin(), layout_.host_names.end(), name) - layout_.host_names.begin()));
    }
  }
  // How far apart the job's ranks are: what a delayed or slow link adds to every message.
  layout_.link_latency_s = link_latency_s(layout_.rank, link_partner(host, sizeof host, layout_.rank, layout_.ranks));
}

void Runtime::finish() noexcept {
  if (!started_ || finished_) return;
  finished_ = true;
  if (layout_.rank == 0) send(Command{});  // Op::stop
  MPI_Finalize();
}

void Runtime::add_builder(const std::string& backend, RankBuilder builder) { builders_[backend] = std::move(builder); }

const RankBuilder& Runtime::builder(const std::string& backend) const {
  const auto it = builders_.find(backend);
  if (it == builders_.end()) throw FailureError("no MPI backend '" + backend + "' registered on this rank");
  return it->second;
}

// Rank 0's handle on a distributed workload: each call is broadcast to the followers first, so
// every rank enters the same collective.
class LeaderWorkload final : public Workload {
 public:
  LeaderWorkload(Runtime& rt, const std::string& backend, const Problem& p) : rt_(rt) {
    Command c;
    c.op = Op::make;
    copy_name(c.backend, backend, "backend");
    encode_problem(c, p);
    const RankBuilder& build = rt_.builder(backend);
    if (rt_.leader_live_) throw FailureError("one distributed workload at a time: the previous one is still alive");
    send(c);
    rt_.leader_live_ = true;
    try {
      rank_ = build(decode_problem(c), rt_.layout());
    } catch (const std::exception& e) {
      abort_job(std::string("making ") + backend + " " + p.kernel + ": " + e.what());
    }
    if (WorkerLedger* mine = rank_->ledger()) {
      rank_ledger_ = std::make_unique<RankLedger>(*mine);
      job_ledger_ = std::make_unique<JobLedger>(*rank_ledger_, [](LedgerOp op, double value) {
        Command a = command(Op::account);
        a.ledger_op = static_cast<std::int32_t>(op);
        a.value = value;
        send(a);
      }, rt_.layout());
    }
  }
  ~LeaderWorkload() override {
    send(command(Op::destroy));
    job_ledger_.reset();
    rank_ledger_.reset();
    rank_.reset();
    rt_.leader_live_ = false;
  }
  void run() override {
    send(command(Op::run));
    try {
      rank_->run();
    } catch (const std::exception& e) {
      abort_job(std::string("run: ") + e.what());
    }
  }
  Validation validate() override {
    send(command(Op::validate));
    try {
      return rank_->validate();
    } catch (const std::exception& e) {
      abort_job(std::string("validate: ") + e.what());
    }
  }
  WorkCount work() const override { return rank_->work(); }
  std::optional<ProcessLayout> layout() const override { return rt_.layout().process(); }
  WorkerAccounting* worker_ledger() override { return job_ledger_.get(); }

 private:
  static Command command(Op op) {
    Command c;
    c.op = op;
    return c;
  }
  Runtime& rt_;
  std::unique_ptr<RankWorkload> rank_;
  std::unique_ptr<RankLedger> rank_ledger_;  // rank 0's own executor's, when accounted
  std::unique_ptr<JobLedger> job_ledger_;    // the runner's handle on every rank's
};

std::unique_ptr<Workload> Runtime::make_leader(const std::string& backend, const Problem& problem) {
  start();
  if (layout_.rank != 0) throw FailureError("only rank 0 makes distributed workloads; the others serve");
  return std::make_unique<LeaderWorkload>(*this, backend, problem);
}

int Runtime::serve() {
  std::unique_ptr<RankWorkload> current;
  std::unique_ptr<RankLedger> accounts;  // current's executor's ledger, when accounted
  for (;;) {
    const Command c = receive();
    try {
      switch (c.op) {
        case Op::make:
          accounts.reset();
          current.reset();
          current = builder(c.backend)(decode_problem(c), layout_);
          if (WorkerLedger* mine = current->ledger()) accounts = std::make_unique<RankLedger>(*mine);
          break;
        case Op::run:
          current->run();
          break;
        case Op::validate:
          current->validate();
          break;
        case Op::account: {
          if (!accounts) throw FailureError("an accounting command for a workload that keeps no ledger");
          const auto op = static_cast<LedgerOp>(c.ledger_op);
          accounts->apply(op, c.value);
          if (op == LedgerOp::view) accounts->gather_view(layout_);
          break;
        }
        case Op::destroy:
          accounts.reset();
          current.reset();
          break;
        case Op::stop:
          accounts.reset();
          current.reset();
          finished_ = true;
          MPI_Finalize();
          return 0;
      }
    } catch (const std::exception& e) {
      abort_job(e.what());
    }
  }
}

}  // namespace parlab::mpi
