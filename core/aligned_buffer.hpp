// An owning, 64-byte aligned, uninitialised array. Uninitialised on purpose: workloads write
// their first values from the executor's own threads (first touch), so pages land on the NUMA
// node of the thread that uses them, as in BabelStream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>
#include <string>

#include "error.hpp"

namespace parlab {

template <class T>
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  // Throws UsageError when n elements cannot be represented or allocated.
  explicit AlignedBuffer(std::uint64_t n) : size_(n) {
    if (n == 0) return;
    constexpr std::uint64_t kAlign = 64;
    if (n > (std::numeric_limits<std::size_t>::max() - kAlign) / sizeof(T)) {
      throw UsageError("array of " + std::to_string(n) + " elements is too large to allocate");
    }
    const std::size_t bytes = ((n * sizeof(T) + kAlign - 1) / kAlign) * kAlign;
    void* p = std::aligned_alloc(kAlign, bytes);
    if (p == nullptr) {
      throw UsageError("could not allocate " + std::to_string(bytes) + " bytes for an array of " +
                       std::to_string(n) + " elements");
    }
    data_.reset(static_cast<T*>(p));
  }

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
