#include "sim/played_arrivals.hpp"

#include <unistd.h>

#include <algorithm>

namespace stampede {
namespace {

// A block's size: the reads back cost nothing beside the decoding, and a reader holds one.
constexpr std::size_t kBlock = std::size_t{256} << 10;
// The first block's: a reader playing as the arrivals are kept starts after it, so the first
// blocks are small and each twice the one before, up to kBlock.
constexpr std::size_t kFirstBlock = std::size_t{8} << 10;
// An arrival's bytes at most: its time and flags, its tenant's length and bytes, its tokens.
constexpr std::size_t kMaxArrival = 10 + 2 + kMaxTraceTenant + 10;
// The low bits of an arrival's first number: which of its record's fields follow.
constexpr std::uint64_t kHasTenant = 2, kHasTokens = 1, kFlagBits = 2;

unsigned char* put(unsigned char* out, std::uint64_t v) {
  for (; v >= 0x80; v >>= 7) *out++ = static_cast<unsigned char>(v | 0x80);
  *out++ = static_cast<unsigned char>(v);
  return out;
}

std::uint64_t get(const unsigned char*& at) {
  std::uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const unsigned char b = *at++;
    v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
    if (b < 0x80) return v;
  }
}

// Tokens are not negative in a trace, but a sign costs nothing to keep.
std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

}  // namespace

PlayedArrivals::PlayedArrivals() : block_(new unsigned char[kBlock]), filled_at_(kFirstBlock) {}
PlayedArrivals::~PlayedArrivals() = default;

void PlayedArrivals::add(std::int64_t at_ns, const TraceRecord& record) {
  if (lost_) return;
  // Earlier than the one before, or a gap too wide to share its number with the flags: none
  // are kept from here, and total() says so (the run's results are not written).
  if (at_ns < last_ns_ || static_cast<std::uint64_t>(at_ns - last_ns_) >> (64 - kFlagBits)) {
    lost_ = true;
    return;
  }
  if (size_ + kMaxArrival > filled_at_) spill();
  if (lost_) return;
  const auto delta = static_cast<std::uint64_t>(at_ns - last_ns_);
  unsigned char* out = block_.get() + size_;
  out = put(out, delta << kFlagBits | (record.tenant ? kHasTenant : 0) |
                     (record.tokens ? kHasTokens : 0));
  if (record.tenant) {
    out = put(out, record.tenant->size());
    out = std::copy(record.tenant->begin(), record.tenant->end(), out);
  }
  if (record.tokens) out = put(out, zigzag(*record.tokens));
  size_ = static_cast<std::size_t>(out - block_.get());
  last_ns_ = at_ns;
  ++count_;
}

// The full block goes to the file, at its end: reads back at an offset leave no position shared.
// Only this writer changes spilled_: it reads it unlocked.
void PlayedArrivals::spill() {
  if (!file_) file_.reset(std::tmpfile());
  const std::uint64_t from = spilled_.empty() ? 0 : spilled_.back();
  if (!file_ || ::pwrite(fileno(file_.get()), block_.get(), size_, static_cast<off_t>(from)) !=
                    static_cast<ssize_t>(size_)) {
    lost_ = true;
    return;
  }
  {
    const std::lock_guard lock(mutex_);
    spilled_.push_back(from + size_);
  }
  changed_.notify_all();
  size_ = 0;
  filled_at_ = std::min(filled_at_ * 2, kBlock);
}

void PlayedArrivals::finish(bool read_through) {
  {
    const std::lock_guard lock(mutex_);
    finished_ = true;
    read_through_ = read_through;
  }
  changed_.notify_all();
}

std::optional<std::int64_t> PlayedArrivals::total() const {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return finished_; });
  if (!read_through_ || lost_ || unread_) return std::nullopt;
  return count_;
}

bool PlayedArrivals::Reader::next(std::int64_t& at_ns, TraceRecord& record) {
  if (at_ == end_ && !load()) return false;
  const std::uint64_t head = get(at_);
  last_ns_ += static_cast<std::int64_t>(head >> kFlagBits);
  at_ns = last_ns_;
  if (head & kHasTenant) {
    const auto size = static_cast<std::size_t>(get(at_));
    // Assigned into the string already there: no allocation once it is long enough.
    if (!record.tenant) record.tenant.emplace();
    record.tenant->assign(reinterpret_cast<const char*>(at_), size);
    at_ += size;
  } else {
    record.tenant.reset();
  }
  if (head & kHasTokens)
    record.tokens = unzigzag(get(at_));
  else
    record.tokens.reset();
  return true;
}

// The next block with arrivals in it: a spilled one read back, then, once the writer has
// finished, the one it kept in memory. Waits while the writer is behind.
bool PlayedArrivals::Reader::load() {
  while (at_ == end_) {
    std::unique_lock lock(played_.mutex_);
    played_.changed_.wait(lock,
                          [&] { return block_ < played_.spilled_.size() || played_.finished_; });
    if (block_ < played_.spilled_.size()) {
      const std::uint64_t from = block_ == 0 ? 0 : played_.spilled_[block_ - 1];
      buffer_.resize(played_.spilled_[block_] - from);
      lock.unlock();
      const auto got = ::pread(fileno(played_.file_.get()), buffer_.data(), buffer_.size(),
                               static_cast<off_t>(from));
      if (got != static_cast<ssize_t>(buffer_.size())) {
        lock.lock();
        played_.unread_ = true;
        return false;
      }
      at_ = reinterpret_cast<const unsigned char*>(buffer_.data());
      end_ = at_ + buffer_.size();
    } else if (block_ == played_.spilled_.size()) {
      at_ = played_.block_.get();
      end_ = at_ + played_.size_;
    } else {
      return false;
    }
    ++block_;
  }
  return true;
}

}  // namespace stampede
