#include "embed/module.hpp"

#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/pi.hpp"
#include "core/pi_simd.hpp"
#include "core/stream.hpp"
#include "core/worker_ledger.hpp"
#include "embed/interpreter.hpp"

namespace parlab::embed {
namespace {

// Per OS thread, so Python threads and sub-interpreter threads each read their own figure.
thread_local std::uint64_t t_gil_wait_ns = 0;

// The ledger of the workload running now (AccountingLedger), for the whole process: one workload
// runs at a time, and its threads are the only ones with a worker index.
std::atomic<WorkerLedger*> g_ledger{nullptr};
// This OS thread's worker index in that ledger (set_worker), -1 for none: unlike current_worker(),
// which reads 0 outside an executor's loop, a thread no team enrolled accounts nothing.
thread_local int t_worker = -1;

// One accounted chunk on this thread, when a ledger is installed and the thread is one of its
// workers; else nothing. The chunk protocol is the C++ executors' (core/worker_ledger.hpp), each
// worker on its own slot.
class AccountedChunk {
 public:
  AccountedChunk() noexcept {
    if (t_worker < 0) return;
    ledger_ = g_ledger.load(std::memory_order_acquire);
    if (ledger_ == nullptr) return;
    WorkerScope scope(t_worker);
    chunk_ = ledger_->begin_chunk();
  }
  void end(std::uint64_t items) noexcept {
    if (ledger_ != nullptr) ledger_->end_chunk(chunk_, items);
    ledger_ = nullptr;
  }

 private:
  WorkerLedger* ledger_ = nullptr;
  WorkerLedger::Chunk chunk_;
};

// ---------------------------------------------------------------- argument parsing
// METH_FASTCALL | METH_KEYWORDS: positional values in args[0..nargs), keyword values after them,
// named by the tuple kwnames. Fills out[i] (borrowed) for names[i]; the first `required` names
// are mandatory. Returns false with a TypeError set on a bad call.
bool parse_args(const char* fn, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                const char* const* names, Py_ssize_t count, Py_ssize_t required, PyObject** out) {
  for (Py_ssize_t i = 0; i < count; ++i) out[i] = nullptr;
  if (nargs > count) {
    PyErr_Format(PyExc_TypeError, "parlab.%s() takes at most %zd arguments (%zd given)", fn, count, nargs);
    return false;
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) out[i] = args[i];
  const Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    Py_ssize_t j = 0;
    while (j < count && PyUnicode_CompareWithASCIIString(key, names[j]) != 0) ++j;
    if (j == count) {
      PyErr_Format(PyExc_TypeError, "parlab.%s() got an unexpected keyword argument '%U'", fn, key);
      return false;
    }
    if (out[j] != nullptr) {
      PyErr_Format(PyExc_TypeError, "parlab.%s() got multiple values for argument '%s'", fn, names[j]);
      return false;
    }
    out[j] = args[nargs + k];
  }
  for (Py_ssize_t i = 0; i < required; ++i) {
    if (out[i] == nullptr) {
      PyErr_Format(PyExc_TypeError, "parlab.%s() missing required argument '%s' (pos %zd)", fn, names[i],
                   i + 1);
      return false;
    }
  }
  return true;
}

// An integer in [0, 2**64): TypeError for a non-integer (floats included: a silently truncated
// sample count or seed would change the stream), ValueError outside the range.
bool to_u64(PyObject* o, const char* fn, const char* name, std::uint64_t* out) {
  if (!PyIndex_Check(o)) {
    PyErr_Format(PyExc_TypeError, "parlab.%s(): %s must be an int, got %.200s", fn, name,
                 Py_TYPE(o)->tp_name);
    return false;
  }
  PyObject* index = PyNumber_Index(o);
  if (index == nullptr) return false;
  int overflow = 0;
  const long long signed_value = PyLong_AsLongLongAndOverflow(index, &overflow);
  if (signed_value == -1 && PyErr_Occurred()) {
    Py_DECREF(index);
    return false;
  }
  if (overflow < 0 || (overflow == 0 && signed_value < 0)) {
    PyErr_Format(PyExc_ValueError, "parlab.%s(): %s must be >= 0, got %R", fn, name, index);
    Py_DECREF(index);
    return false;
  }
  const unsigned long long value = PyLong_AsUnsignedLongLong(index);
  if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "parlab.%s(): %s must be < 2**64, got %R", fn, name, index);
    Py_DECREF(index);
    return false;
  }
  Py_DECREF(index);
  *out = value;
  return true;
}

bool to_bool(PyObject* o, bool* out) {
  const int t = PyObject_IsTrue(o);
  if (t < 0) return false;
  *out = t == 1;
  return true;
}

bool to_finite_double(PyObject* o, const char* fn, const char* name, double* out) {
  if (!PyFloat_Check(o) && !PyIndex_Check(o)) {
    PyErr_Format(PyExc_TypeError, "parlab.%s(): %s must be a real number, got %.200s", fn, name,
                 Py_TYPE(o)->tp_name);
    return false;
  }
  const double v = PyFloat_AsDouble(o);
  if (v == -1.0 && PyErr_Occurred()) return false;
  if (!std::isfinite(v)) {
    PyErr_Format(PyExc_ValueError, "parlab.%s(): %s must be finite, got %R", fn, name, o);
    return false;
  }
  *out = v;
  return true;
}

// f() as one accounted chunk of `items` items (AccountedChunk), for call_maybe_released: inside
// it, so with the GIL released its release and re-acquisition fall outside the chunk, and with the
// GIL held the wait for it came before the call. Either way a worker's useful time is the kernel's.
template <class F>
auto as_chunk(std::uint64_t items, F&& f) {
  return [items, &f] {
    AccountedChunk chunk;
    f();
    chunk.end(items);
  };
}

// Runs f() with the GIL released when `release` is true. A C++ exception must not cross into
// CPython: GilRelease's precondition failure becomes RuntimeError (it cannot happen here, since
// CPython calls module functions with the GIL held, but the check is cheap and states the rule).
template <class F>
bool call_maybe_released(bool release, F&& f) {
  // A C++ exception must not cross into the interpreter, released or not: it becomes a
  // RuntimeError (GilRelease's destructor has re-taken the GIL before the handler runs).
  try {
    if (release) {
      GilRelease nogil(&t_gil_wait_ns);
      f();
    } else {
      f();
    }
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return false;
  }
  return true;
}

// ---------------------------------------------------------------- buffers
// A float64 buffer held for the duration of a call (the export pins its memory and size).
class DoubleBuffer {
 public:
  DoubleBuffer() = default;
  ~DoubleBuffer() {
    if (held_) PyBuffer_Release(&view_);
  }
  DoubleBuffer(const DoubleBuffer&) = delete;
  DoubleBuffer& operator=(const DoubleBuffer&) = delete;

  bool get(PyObject* o, const char* fn, const char* name, bool writable) {
    if (!PyObject_CheckBuffer(o)) {
      PyErr_Format(PyExc_TypeError,
                   "parlab.%s(): %s must support the buffer protocol (array.array('d'), "
                   "numpy.ndarray of float64, ...), got %.200s",
                   fn, name, Py_TYPE(o)->tp_name);
      return false;
    }
    const int flags = PyBUF_ND | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, &view_, flags | PyBUF_C_CONTIGUOUS) != 0) {
      // The exporter's own message says what it lacks (read-only, not contiguous, ...).
      PyObject* cause = PyErr_Occurred() ? fetch_message() : nullptr;
      PyErr_Format(PyExc_ValueError, "parlab.%s(): %s must be a C-contiguous%s buffer: %S", fn, name,
                   writable ? ", writable" : "", cause != nullptr ? cause : Py_None);
      Py_XDECREF(cause);
      return false;
    }
    held_ = true;
    const char* f = view_.format != nullptr ? view_.format : "B";
    // Native or explicitly little-endian doubles ('<d' on this little-endian target).
    const bool native_double = std::strcmp(f, "d") == 0 || std::strcmp(f, "@d") == 0 ||
                               std::strcmp(f, "=d") == 0 ||
                               (std::strcmp(f, "<d") == 0 && std::endian::native == std::endian::little);
    if (!native_double || view_.itemsize != static_cast<Py_ssize_t>(sizeof(double))) {
      PyErr_Format(PyExc_TypeError, "parlab.%s(): %s must hold float64 (format 'd'), got format '%s'", fn,
                   name, f);
      return false;
    }
    return true;
  }
  double* data() const { return static_cast<double*>(view_.buf); }
  std::uint64_t size() const { return static_cast<std::uint64_t>(view_.len) / sizeof(double); }

 private:
  static PyObject* fetch_message() {
#if PY_VERSION_HEX >= 0x030C0000
    PyObject* exc = PyErr_GetRaisedException();
#else
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
#endif
    PyObject* s = exc != nullptr ? PyObject_Str(exc) : nullptr;
    Py_XDECREF(exc);
    if (s == nullptr) PyErr_Clear();
    return s;
  }

  Py_buffer view_{};
  bool held_ = false;
};

bool same_length(const char* fn, const DoubleBuffer& x, const char* xn, const DoubleBuffer& y,
                 const char* yn) {
  if (x.size() == y.size()) return true;
  PyErr_Format(PyExc_ValueError, "parlab.%s(): %s and %s differ in length (%llu and %llu elements)", fn, xn,
               yn, static_cast<unsigned long long>(x.size()), static_cast<unsigned long long>(y.size()));
  return false;
}

// ---------------------------------------------------------------- functions
PyObject* py_pi(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const kNames[] = {"samples", "seed", "start", "release_gil"};
  PyObject* v[4];
  if (!parse_args("pi", args, nargs, kwnames, kNames, 4, 2, v)) return nullptr;
  std::uint64_t samples = 0, seed = 0, start = 0;
  bool release = true;
  if (!to_u64(v[0], "pi", "samples", &samples) || !to_u64(v[1], "pi", "seed", &seed)) return nullptr;
  if (v[2] != nullptr && !to_u64(v[2], "pi", "start", &start)) return nullptr;
  if (v[3] != nullptr && !to_bool(v[3], &release)) return nullptr;
  if (samples > std::numeric_limits<std::uint64_t>::max() - start) {
    PyErr_Format(PyExc_ValueError, "parlab.pi(): start + samples must be <= 2**64 (start %llu, samples %llu)",
                 static_cast<unsigned long long>(start), static_cast<unsigned long long>(samples));
    return nullptr;
  }
  std::uint64_t hits = 0;
  if (!call_maybe_released(release, as_chunk(samples, [&] { hits = pi_hits_points_fast(seed, start, start + samples); }))) {
    return nullptr;
  }
  return PyLong_FromUnsignedLongLong(hits);
}

PyObject* py_triad(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const kNames[] = {"a", "b", "c", "scalar"};
  PyObject* v[4];
  if (!parse_args("triad", args, nargs, kwnames, kNames, 4, 4, v)) return nullptr;
  DoubleBuffer a, b, c;
  double s = 0;
  if (!a.get(v[0], "triad", "a", true) || !b.get(v[1], "triad", "b", false) ||
      !c.get(v[2], "triad", "c", false) || !to_finite_double(v[3], "triad", "scalar", &s)) {
    return nullptr;
  }
  if (!same_length("triad", a, "a", b, "b") || !same_length("triad", a, "a", c, "c")) return nullptr;
  const std::uint64_t n = a.size();
  if (!call_maybe_released(true, as_chunk(n, [&] {
        stream_range<double>(StreamKernel::triad, a.data(), b.data(), c.data(), s, 0, n);
      }))) {
    return nullptr;
  }
  Py_RETURN_NONE;
}

PyObject* py_dot(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const kNames[] = {"a", "b"};
  PyObject* v[2];
  if (!parse_args("dot", args, nargs, kwnames, kNames, 2, 2, v)) return nullptr;
  DoubleBuffer a, b;
  if (!a.get(v[0], "dot", "a", false) || !b.get(v[1], "dot", "b", false)) return nullptr;
  if (!same_length("dot", a, "a", b, "b")) return nullptr;
  const std::uint64_t n = a.size();
  std::vector<double> partials;
  try {
    partials.resize(dot_block_count(n));
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
  double sum = 0;
  if (!call_maybe_released(true, as_chunk(n, [&] {
        for (std::uint64_t blk = 0; blk < partials.size(); ++blk) {
          partials[blk] = dot_block(a.data(), b.data(), n, blk);
        }
        sum = dot_pairwise_inplace(partials.data(), partials.size());
      }))) {
    return nullptr;
  }
  return PyFloat_FromDouble(sum);
}

PyObject* py_spin(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const kNames[] = {"seconds", "release_gil"};
  PyObject* v[2];
  if (!parse_args("spin", args, nargs, kwnames, kNames, 2, 1, v)) return nullptr;
  double seconds = 0;
  bool release = true;
  if (!to_finite_double(v[0], "spin", "seconds", &seconds)) return nullptr;
  if (seconds < 0) {
    PyErr_Format(PyExc_ValueError, "parlab.spin(): seconds must be >= 0, got %R", v[0]);
    return nullptr;
  }
  if (v[1] != nullptr && !to_bool(v[1], &release)) return nullptr;
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  // A calibration, not a kernel: never a chunk.
  if (!call_maybe_released(release, [&] {
        while (std::chrono::steady_clock::now() < deadline) {
        }
      })) {
    return nullptr;
  }
  Py_RETURN_NONE;
}

PyObject* py_gil_wait_ns(PyObject*, PyObject*) {
  return PyLong_FromUnsignedLongLong(t_gil_wait_ns);
}

PyObject* py_set_worker(PyObject*, PyObject* arg) {
  const long index = PyLong_AsLong(arg);
  if (index == -1 && PyErr_Occurred()) return nullptr;
  if (index < -1 || index >= WorkerLedger::kMaxCpus) {  // a team of more threads than that is a bug
    PyErr_Format(PyExc_ValueError, "parlab.set_worker(): index must be -1 or in [0, %d), got %ld",
                 WorkerLedger::kMaxCpus, index);
    return nullptr;
  }
  t_worker = static_cast<int>(index);
  Py_RETURN_NONE;
}

// accounted(items, fn, *args): fn(*args) as one chunk, the GIL as fn leaves it (a pure-Python
// block holds it, and drops it where the interpreter switches threads: that wait is inside the
// chunk's wall time, not its CPU time).
PyObject* py_accounted(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs < 2) {
    PyErr_Format(PyExc_TypeError, "parlab.accounted() takes items, fn and fn's arguments (%zd given)", nargs);
    return nullptr;
  }
  std::uint64_t items = 0;
  if (!to_u64(args[0], "accounted", "items", &items)) return nullptr;
  AccountedChunk chunk;
  PyObject* r = PyObject_Vectorcall(args[1], args + 2, static_cast<std::size_t>(nargs - 2), nullptr);
  chunk.end(items);  // a chunk that raised is still work done (its items are what it was given)
  return r;
}

// The fast-call signature is not PyCFunction's; CPython calls through ml_meth according to
// ml_flags, so the cast is the documented idiom (through void(*)() to say it is deliberate).
template <class F>
PyCFunction as_cfunction(F* f) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f));
}

PyMethodDef kMethods[] = {
    {"pi", as_cfunction(&py_pi), METH_FASTCALL | METH_KEYWORDS,
     "pi(samples, seed, start=0, release_gil=True) -> int\n\nHits of the points "
     "[start, start+samples) of parlab's canonical Philox pi stream for `seed`."},
    {"triad", as_cfunction(&py_triad), METH_FASTCALL | METH_KEYWORDS,
     "triad(a, b, c, scalar) -> None\n\na[i] = b[i] + scalar * c[i] over float64 buffers."},
    {"dot", as_cfunction(&py_dot), METH_FASTCALL | METH_KEYWORDS,
     "dot(a, b) -> float\n\nparlab's deterministic dot product of two float64 buffers."},
    {"spin", as_cfunction(&py_spin), METH_FASTCALL | METH_KEYWORDS,
     "spin(seconds, release_gil=True) -> None\n\nBusy-waits, for calibration."},
    {"gil_wait_ns", &py_gil_wait_ns, METH_NOARGS,
     "gil_wait_ns() -> int\n\nNanoseconds this thread spent re-acquiring the GIL after parlab "
     "released it."},
    {"set_worker", &py_set_worker, METH_O,
     "set_worker(index) -> None\n\nDeclares this thread worker `index` of the running workload's "
     "per-worker accounting (-1: none). Its team sets it once per thread."},
    {"accounted", as_cfunction(&py_accounted), METH_FASTCALL,
     "accounted(items, fn, *args) -> fn(*args)\n\nCalls fn(*args) as one accounted chunk of `items` "
     "items of this thread's worker (nothing is accounted outside a workload, or on a thread that "
     "is no worker)."},
    {nullptr, nullptr, 0, nullptr}};

int module_exec(PyObject* m) {
#if defined(Py_GIL_DISABLED)
  const char* mode = "free-threaded";
#else
  const char* mode = "gil";
#endif
  return PyModule_AddStringConstant(m, "gil_mode", mode);
}

// Slots: Py_mod_exec always; per-interpreter GIL support where the runtime asks (3.12+); and
// "this module needs no GIL" where free-threading exists (3.13+), so importing it never
// re-enables the GIL. The module keeps no state, which is what both declarations promise: the
// installed ledger is an atomic pointer and the worker index thread-local, each chunk written to
// its own worker's slot.
PyModuleDef_Slot kSlots[] = {{Py_mod_exec, reinterpret_cast<void*>(&module_exec)},
#if defined(Py_mod_multiple_interpreters)
                             {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#if defined(Py_mod_gil)
                             {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
                             {0, nullptr}};

PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT,
    "parlab",
    "parlab's kernels for Python: the canonical pi stream, STREAM triad and dot, a calibrated spin.",
    0,  // no module state: nothing to share or isolate between interpreters
    kMethods,
    kSlots,
    nullptr,
    nullptr,
    nullptr};

}  // namespace

extern "C" PyObject* parlab_module_init() {
  return PyModuleDef_Init(&kModule);
}

AccountingLedger::AccountingLedger(WorkerLedger* ledger) noexcept
    : previous_(g_ledger.exchange(ledger, std::memory_order_acq_rel)) {}

AccountingLedger::~AccountingLedger() { g_ledger.store(previous_, std::memory_order_release); }

}  // namespace parlab::embed
