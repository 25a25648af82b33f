// The built-in module `parlab`: the canonical pi stream from Python (split over Python threads
// it must still give the canonical count), triad/dot over buffers, spin, and the argument errors.
#include <cstdint>
#include <string>
#include <vector>

#include "core/pi.hpp"
#include "core/stream.hpp"
#include "embed/subinterpreter.hpp"
#include "embed_test_support.hpp"

namespace parlab {
namespace {

using embed::GilAcquire;
using embed::PythonError;

class ParlabModule : public test::SharedPython {
 protected:
  void SetUp() override {
    SharedPython::SetUp();
    gil_.emplace();
    ns_ = test::new_namespace();
    test::exec("import parlab, threading, array, time", ns_.get());
  }
  void TearDown() override {
    ns_.reset();
    gil_.reset();
  }
  std::optional<GilAcquire> gil_;
  embed::PyRef ns_;
};

TEST_F(ParlabModule, PiIsTheCanonicalStreamForAnyRange) {
  const std::uint64_t seeds[] = {0, 42, 0xFFFFFFFFFFFFFFFFull, 0x123456789ABCDEFull};
  const std::pair<std::uint64_t, std::uint64_t> ranges[] = {{0, 0},    {0, 1},    {1, 1}, {1, 2},  {0, 10007},
                                                            {3, 5000}, {4, 4097}, {5, 1}, {999, 0}};
  for (std::uint64_t seed : seeds) {
    for (auto [start, samples] : ranges) {
      for (const char* release : {"True", "False"}) {
        const std::string call = "parlab.pi(" + std::to_string(samples) + ", " + std::to_string(seed) +
                                 ", start=" + std::to_string(start) + ", release_gil=" + release + ")";
        EXPECT_EQ(test::eval_u64(call, ns_.get()), pi_hits_points(seed, start, start + samples)) << call;
      }
    }
  }
  EXPECT_EQ(test::eval_u64("parlab.pi(1000, 9)", ns_.get()), pi_hits_points(9, 0, 1000)) << "defaults";
}

// The issue's check: Python threads splitting one stream by start offsets, GIL held or released,
// add up to exactly the canonical count, for any thread count.
TEST_F(ParlabModule, SplitStreamFromPythonThreadsEqualsTheCanonicalCount) {
  test::exec(R"(
def split_count(samples, seed, threads, release):
    bounds = [samples * t // threads for t in range(threads + 1)]
    hits = [0] * threads
    def part(t):
        b, e = bounds[t], bounds[t + 1]
        step = 1237  # many calls per thread, odd boundaries
        hits[t] = sum(parlab.pi(min(step, e - s), seed, s, release) for s in range(b, e, step))
    workers = [threading.Thread(target=part, args=(t,)) for t in range(threads)]
    for w in workers: w.start()
    for w in workers: w.join()
    return sum(hits)
)",
             ns_.get());
  const std::uint64_t samples = 200003, seed = 0xDEADBEEFCAFEull;
  const std::uint64_t expect = pi_hits_points(seed, 0, samples);
  for (int threads : {1, 2, 3, 7}) {
    for (const char* release : {"True", "False"}) {
      const std::string call = "split_count(" + std::to_string(samples) + ", " + std::to_string(seed) + ", " +
                               std::to_string(threads) + ", " + release + ")";
      EXPECT_EQ(test::eval_u64(call, ns_.get()), expect) << call;
    }
  }
}

TEST_F(ParlabModule, PurePythonPhiloxMatchesTheKnownAnswers) {
  // Random123's known-answer vectors (docs/design.md, "The pi stream"), through the pure-Python
  // generator the GIL-bound workloads use: its counts are canonical only if its Philox is.
  test::exec("import parlab_philox as p", ns_.get());
  EXPECT_EQ(test::eval_u64("p.philox(0, p.round_keys(0))[0]", ns_.get()), 0x6627e8d5u);
  EXPECT_EQ(test::eval_u64("p.philox(0, p.round_keys(0))[3]", ns_.get()), 0x9b00dbd8u);
  // All-ones counter: counter {ffffffff, ffffffff, 0, 0} is not reachable from j alone, so the
  // general vector is checked through a 4-word helper.
  test::exec(R"(
def philox4(c, k):
    x0, x1, x2, x3 = c
    keys = p.round_keys(k[0] | k[1] << 32)
    for k0, k1 in keys:
        p0 = p.MUL0 * x0; p1 = p.MUL1 * x2
        x0, x1, x2, x3 = (p1 >> 32) ^ x1 ^ k0, p1 & p.MASK32, (p0 >> 32) ^ x3 ^ k1, p0 & p.MASK32
    return (x0, x1, x2, x3)
)",
             ns_.get());
  EXPECT_EQ(
      test::eval_u64(
          "philox4((0xffffffff,)*4, (0xffffffff,)*2) == (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)",
          ns_.get()),
      1u);
  EXPECT_EQ(test::eval_u64("philox4((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, "
                           "0x299f31d0)) == (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)",
                           ns_.get()),
            1u);
  for (auto [seed, b, e] : {std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>{0, 0, 3001},
                            {42, 1, 2002},
                            {0xFFFFFFFFFFFFFFFFull, 7, 1500}}) {
    const std::string call =
        "p.hits_points(" + std::to_string(seed) + ", " + std::to_string(b) + ", " + std::to_string(e) + ")";
    EXPECT_EQ(test::eval_u64(call, ns_.get()), pi_hits_points(seed, b, e)) << call;
  }
}

struct BadCall {
  const char* code;
  const char* type;
  const char* says;  // the message must contain this
};

TEST_F(ParlabModule, ArgumentErrorsRaiseWithClearMessages) {
  const BadCall cases[] = {
      {"parlab.pi(-1, 0)", "ValueError", "samples must be >= 0"},
      {"parlab.pi(10, -1)", "ValueError", "seed must be >= 0"},
      {"parlab.pi(10, 2**64)", "ValueError", "seed must be < 2**64"},
      {"parlab.pi(10, 0, start=-5)", "ValueError", "start must be >= 0"},
      {"parlab.pi(2**64 - 1, 0, start=2)", "ValueError", "start + samples"},
      {"parlab.pi(1.5, 0)", "TypeError", "samples must be an int, got float"},
      {"parlab.pi('10', 0)", "TypeError", "samples must be an int, got str"},
      {"parlab.pi(10)", "TypeError", "missing required argument 'seed'"},
      {"parlab.pi(10, 0, bogus=1)", "TypeError", "unexpected keyword argument 'bogus'"},
      {"parlab.pi(10, 0, 0, True, 5)", "TypeError", "at most 4 arguments"},
      {"parlab.pi(10, 0, samples=3)", "TypeError", "multiple values for argument 'samples'"},
      {"parlab.triad([1.0], [1.0], [1.0], 2.0)", "TypeError", "a must support the buffer protocol"},
      {"parlab.triad(array.array('f', [1]), array.array('d', [1]), array.array('d', [1]), 2.0)", "TypeError",
       "a must hold float64 (format 'd'), got format 'f'"},
      {"parlab.triad(array.array('d', [1, 2]), array.array('d', [1]), array.array('d', [1, 2]), 2.0)",
       "ValueError", "a and b differ in length (2 and 1 elements)"},
      {"parlab.triad(bytes(16), array.array('d', [1, 2]), array.array('d', [1, 2]), 2.0)", "ValueError",
       "a must be a C-contiguous, writable buffer"},
      {"parlab.triad(array.array('d', [1]), array.array('d', [1]), array.array('d', [1]), 'x')", "TypeError",
       "scalar must be a real number"},
      {"parlab.dot(array.array('d', [1]), array.array('d', [1, 2]))", "ValueError", "differ in length"},
      {"parlab.dot(array.array('i', [1]), array.array('d', [1]))", "TypeError", "a must hold float64"},
      {"parlab.dot(memoryview(array.array('d', [1, 2, 3, 4]))[::2], array.array('d', [1, 2]))", "ValueError",
       "a must be a C-contiguous buffer"},
      {"parlab.spin(-1)", "ValueError", "seconds must be >= 0"},
      {"parlab.spin(float('nan'))", "ValueError", "seconds must be finite"},
      {"parlab.spin(None)", "TypeError", "seconds must be a real number"},
  };
  for (const BadCall& c : cases) {
    try {
      test::eval(c.code, ns_.get());
      ADD_FAILURE() << c.code << " did not raise";
    } catch (const PythonError& e) {
      EXPECT_EQ(e.type_name(), c.type) << c.code << ": " << e.message();
      EXPECT_NE(e.message().find(c.says), std::string::npos) << c.code << ": " << e.message();
    }
  }
}

TEST_F(ParlabModule, TriadAndDotMatchTheCppKernels) {
  constexpr std::uint64_t n = 20011;  // several dot blocks and a ragged tail
  test::exec("n = " + std::to_string(n) + R"(
a = array.array('d', [0.1] * n)
b = array.array('d', [0.2] * n)
c = array.array('d', [(i % 7) * 0.25 for i in range(n)])
parlab.triad(a, b, c, 0.4)
d = parlab.dot(a, b)
)",
             ns_.get());
  std::vector<double> a(n), b(n, 0.2), c(n), partials(dot_block_count(n));
  for (std::uint64_t i = 0; i < n; ++i) c[i] = static_cast<double>(i % 7) * 0.25;
  stream_range<double>(StreamKernel::triad, a.data(), b.data(), c.data(), 0.4, 0, n);
  for (std::uint64_t i : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{6}, n - 1}) {
    auto ai = test::eval("a[" + std::to_string(i) + "]", ns_.get());
    EXPECT_EQ(PyFloat_AsDouble(ai.get()), a[i]) << i;
  }
  for (std::uint64_t blk = 0; blk < partials.size(); ++blk)
    partials[blk] = dot_block(a.data(), b.data(), n, blk);
  const double expect = dot_pairwise_inplace(partials.data(), partials.size());
  auto d = test::eval("d", ns_.get());
  EXPECT_EQ(PyFloat_AsDouble(d.get()), expect) << "bit for bit: the same deterministic reduction";
}

TEST_F(ParlabModule, NumpyArraysAreBuffersToo) {
  if (test::eval("__import__('importlib.util').util.find_spec('numpy') is None", ns_.get()).get() ==
      Py_True) {
    GTEST_SKIP() << "NumPy is not importable by the embedded interpreter";
  }
  test::exec(R"(
import numpy as np
a = np.zeros(1000); b = np.full(1000, 0.2); c = np.arange(1000.0)
parlab.triad(a, b, c, 0.5)
ok = bool(np.array_equal(a, b + 0.5 * c))
d = parlab.dot(b, c)
try:
    parlab.triad(a[::2], b[::2], c[::2], 1.0)
    strided = 'accepted'
except ValueError as e:
    strided = str(e)
)",
             ns_.get());
  EXPECT_EQ(test::eval("ok", ns_.get()).get(), Py_True);
  EXPECT_DOUBLE_EQ(PyFloat_AsDouble(test::eval("d", ns_.get()).get()), 0.2 * 999.0 * 1000.0 / 2.0);
  EXPECT_NE(std::string(PyUnicode_AsUTF8(test::eval("strided", ns_.get()).get())).find("C-contiguous"),
            std::string::npos);
}

// spin holds the GIL or not, as asked. Held, two 0.3 s spins exclude each other, so both
// threads together take at least 0.6 s (guaranteed by the GIL); released, the second thread gets
// the GIL as soon as the first starts spinning, so the spins overlap. Ordering properties, not a
// speed measurement.
TEST_F(ParlabModule, SpinHoldsOrReleasesTheGilAsAsked) {
  PARLAB_SKIP_WITHOUT_GIL();
  test::exec(R"(
def spans(release):
    out = [None, None]
    barrier = threading.Barrier(2)
    def part(t):
        barrier.wait()
        t0 = time.perf_counter()
        parlab.spin(0.3, release)
        out[t] = (t0, time.perf_counter())
    workers = [threading.Thread(target=part, args=(t,)) for t in range(2)]
    for w in workers: w.start()
    for w in workers: w.join()
    (a0, a1), (b0, b1) = out
    return (a0 < b1 and b0 < a1), max(a1, b1) - min(a0, b0)
)",
             ns_.get());
  test::exec("released = spans(True)\nheld = spans(False)", ns_.get());
  EXPECT_EQ(test::eval("released[0]", ns_.get()).get(), Py_True) << "released: the spins overlap";
  EXPECT_GE(PyFloat_AsDouble(test::eval("held[1]", ns_.get()).get()), 0.6)
      << "held: one spin after the other";
}

TEST_F(ParlabModule, GilWaitCounterIsPerThreadAndMonotonic) {
  const std::uint64_t before = test::eval_u64("parlab.gil_wait_ns()", ns_.get());
  test::eval("parlab.pi(100000, 1)", ns_.get());
  EXPECT_GE(test::eval_u64("parlab.gil_wait_ns()", ns_.get()), before);
  auto mode = test::eval("parlab.gil_mode", ns_.get());
  EXPECT_EQ(std::string(PyUnicode_AsUTF8(mode.get())),
            embed::python_info().free_threaded_build ? "free-threaded" : "gil");
}

}  // namespace
}  // namespace parlab
