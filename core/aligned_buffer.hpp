// An owning, 64-byte aligned, uninitialised array. Uninitialised on purpose: workloads write
// their first values from the executor's own threads (first touch), so pages land on the NUMA
// node of the thread that uses them, as in BabelStream.
//
// An array of kHugePage bytes or more is aligned to kHugePage (as BabelStream aligns its arrays)
// and, on Linux, advised MADV_HUGEPAGE: where transparent huge pages are in "madvise" mode (the GPU
// node's, results/README.md) only advised memory gets them,
// and a kernel streaming through 256 MiB arrays on 4 KiB pages takes a TLB miss every 512
// doubles. The advice is a request: where the kernel refuses it (THP "never", no THP) the array
// is used as it is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "error.hpp"

namespace parlab {

template <class T>
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  // Throws UsageError when n elements cannot be represented or allocated.
  explicit AlignedBuffer(std::uint64_t n) : size_(n) {
    if (n == 0) return;
    if (n > (std::numeric_limits<std::size_t>::max() - kHugePage) / sizeof(T)) {
      throw UsageError("array of " + std::to_string(n) + " elements is too large to allocate");
    }
    // aligned_alloc wants a size that is a multiple of the alignment.
    const std::size_t align = n * sizeof(T) >= kHugePage ? kHugePage : kLineAlign;
    const std::size_t bytes = ((n * sizeof(T) + align - 1) / align) * align;
    void* p = std::aligned_alloc(align, bytes);
    if (p == nullptr) {
      throw UsageError("could not allocate " + std::to_string(bytes) + " bytes for an array of " +
                       std::to_string(n) + " elements");
    }
    data_.reset(static_cast<T*>(p));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (align == kHugePage) (void)madvise(p, bytes, MADV_HUGEPAGE);  // advice only: see above
#endif
  }

  static constexpr std::size_t kLineAlign = 64;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;  // x86-64's and most arm64 kernels' PMD size

  T* data() noexcept { return data_.get(); }
  const T* data() const noexcept { return data_.get(); }
  std::uint64_t size() const noexcept { return size_; }
  T& operator[](std::uint64_t i) noexcept { return data_.get()[i]; }
  const T& operator[](std::uint64_t i) const noexcept { return data_.get()[i]; }

 private:
  struct Free {
    void operator()(T* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<T, Free> data_;
  std::uint64_t size_ = 0;
};

}  // namespace parlab
