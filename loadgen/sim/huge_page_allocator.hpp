#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace stampede {

// For large arrays read at random, such as a million simulated clients' state: asks the kernel
// to back them with 2 MiB pages, so that a random access misses the cache but not also the TLB
// (a third of the simulator's time went on page walks without it). Only a hint: where huge
// pages are not to be had the memory is ordinary. Small arrays are allocated as usual.
template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <class U>
  explicit HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes, alignment()));
    void* p = std::aligned_alloc(kHugePage, rounded(bytes));
    if (!p) throw std::bad_alloc();
    madvise(p, rounded(bytes), MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }

  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < kHugePage) {
      ::operator delete(p, alignment());
    } else {
      std::free(p);
    }
  }

  bool operator==(const HugePageAllocator&) const = default;

 private:
  static std::align_val_t alignment() { return std::align_val_t{alignof(T)}; }
  static std::size_t rounded(std::size_t bytes) {
    return (bytes + kHugePage - 1) / kHugePage * kHugePage;
  }
};

}  // namespace stampede
