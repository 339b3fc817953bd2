#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace stampede {

// Rows kept for the whole run, a row per request, in blocks of 512 KiB that are mapped and
// faulted in by one call when the first row lands in them. Grown a row at a time from the
// heap, the log touches a new page every 40-odd rows and each touch is a page fault: 13 us a
// page on the paravirtualised machine of bench/provider/README.md, against 1 us a page for
// MADV_POPULATE_WRITE. Not huge pages: that machine takes 4.3 ms to fault one in, a pause
// of the loop that records. A row never moves, so its index stays good.
template <typename T>
class RowBlocks {
 public:
  static constexpr std::size_t kBlockBytes = std::size_t{512} << 10;
  static constexpr std::size_t kPerBlock = kBlockBytes / sizeof(T);
  static_assert(kPerBlock > 0);

  RowBlocks() = default;
  ~RowBlocks() {
    clear();
    for (T* block : blocks_) munmap(block, kBlockBytes);
  }
  RowBlocks(const RowBlocks&) = delete;
  RowBlocks& operator=(const RowBlocks&) = delete;

  void push_back(T row) {
    if (size_ == blocks_.size() * kPerBlock) blocks_.push_back(map_block());
    new (&blocks_[size_ / kPerBlock][size_ % kPerBlock]) T(std::move(row));
    ++size_;
  }
  T& operator[](std::size_t i) { return blocks_[i / kPerBlock][i % kPerBlock]; }
  const T& operator[](std::size_t i) const { return blocks_[i / kPerBlock][i % kPerBlock]; }
  std::size_t size() const { return size_; }

  // Every row gone; the first block is kept for the rows to come, the others are given back.
  void clear() {
    for (std::size_t i = 0; i < size_; ++i) (*this)[i].~T();
    size_ = 0;
    while (blocks_.size() > 1) {
      munmap(blocks_.back(), kBlockBytes);
      blocks_.pop_back();
    }
  }

 private:
  static T* map_block() {
    void* p =
        mmap(nullptr, kBlockBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_POPULATE_WRITE
    // Only a saving: a kernel without it (before 5.14) faults the pages in as they are touched.
    madvise(p, kBlockBytes, MADV_POPULATE_WRITE);
#endif
    return static_cast<T*>(p);
  }

  std::vector<T*> blocks_;
  std::size_t size_ = 0;
};

}  // namespace stampede
