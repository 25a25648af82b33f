#include "embed/subinterpreter_team.hpp"

#include <time.h>

#include <chrono>
#include <system_error>

#include "core/error.hpp"
#include "core/worker_ledger.hpp"
#include "embed/interpreter.hpp"
#include "embed/subinterpreter.hpp"

namespace parlab::embed {
namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The exception being handled, its message prefixed with the team's name: an UnavailableError
// stays one (the record says why the backend cannot run), anything else is the run's failure.
// PRECONDITION: called inside a catch block.
std::exception_ptr named(const std::string& name) {
  try {
    throw;
  } catch (const UnavailableError& e) {
    return std::make_exception_ptr(UnavailableError(name + ": " + e.what()));
  } catch (const std::exception& e) {
    return std::make_exception_ptr(FailureError(name + ": " + e.what()));
  } catch (...) {
    return std::make_exception_ptr(FailureError(name + ": an error that is not a std::exception"));
  }
}

}  // namespace

SubinterpreterTeam::SubinterpreterTeam(std::string name, std::size_t workers, Setup setup) : name_(std::move(name)) {
  threads_.reserve(workers);
  try {
    for (std::size_t i = 0; i < workers; ++i) {
      threads_.emplace_back([this, i, &setup] { worker(i, setup); });
    }
  } catch (const std::system_error&) {
    // The threads already started read `setup` until ready: wait for them before it goes.
    {
      std::unique_lock<std::mutex> lock(m_);
      done_.wait(lock, [&] { return ready_ == threads_.size(); });
    }
    shut_down();
    throw FailureError(name_ + ": could not start " + std::to_string(workers) + " threads");
  }
  std::unique_lock<std::mutex> lock(m_);
  done_.wait(lock, [&] { return ready_ == threads_.size(); });
  if (error_) {
    const std::exception_ptr e = error_;
    lock.unlock();
    shut_down();
    std::rethrow_exception(e);
  }
}

SubinterpreterTeam::~SubinterpreterTeam() { shut_down(); }

void SubinterpreterTeam::run() {
  {
    std::lock_guard<std::mutex> lock(m_);
    pending_ = threads_.size();
    error_ = nullptr;
    ++generation_;
  }
  work_.notify_all();
  std::unique_lock<std::mutex> lock(m_);
  done_.wait(lock, [&] { return pending_ == 0; });
  if (error_) std::rethrow_exception(error_);
}

double SubinterpreterTeam::wall_s() const {
  std::lock_guard<std::mutex> lock(m_);
  return wall_s_;
}

double SubinterpreterTeam::cpu_s() const {
  std::lock_guard<std::mutex> lock(m_);
  return cpu_s_;
}

void SubinterpreterTeam::worker(std::size_t i, const Setup& setup) {
  bool started = false;
  try {
    SubInterpreter interpreter;  // this thread now holds the new interpreter's own GIL
    const Job job = setup(i);
    report_ready(nullptr);
    started = true;
    serve(i, job);
    // serve() returns holding this interpreter's GIL: the job's Python objects and the
    // interpreter are released with it held, as their preconditions require.
  } catch (...) {
    if (!started) {
      report_ready(named(name_));
    } else {
      std::lock_guard<std::mutex> lock(m_);
      if (!error_) error_ = named(name_);
    }
  }
}

// Runs jobs until shut_down(). Errors in a job are recorded for run() to throw, never thrown
// here, so every job decrements `pending_` and run() cannot wait forever.
void SubinterpreterTeam::serve(std::size_t i, const Job& job) {
  const WorkerScope scope(static_cast<int>(i));
  std::uint64_t seen = 0;
  for (;;) {
    {
      // Waiting for work holds no GIL: this interpreter's GIL is free while idle.
      GilRelease idle;
      std::unique_lock<std::mutex> lock(m_);
      work_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    std::exception_ptr error;
    const auto w0 = std::chrono::steady_clock::now();
    const double c0 = thread_cpu_seconds();
    try {
      job();
    } catch (...) {
      error = named(name_);
    }
    const double cpu = thread_cpu_seconds() - c0;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    std::lock_guard<std::mutex> lock(m_);
    wall_s_ += wall;
    cpu_s_ += cpu;
    if (error && !error_) error_ = error;
    if (--pending_ == 0) done_.notify_all();
  }
}

// Counts a worker as started, or as failed to start.
void SubinterpreterTeam::report_ready(std::exception_ptr error) {
  std::lock_guard<std::mutex> lock(m_);
  if (error && !error_) error_ = error;
  ++ready_;
  done_.notify_all();
}

void SubinterpreterTeam::shut_down() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  work_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

}  // namespace parlab::embed
