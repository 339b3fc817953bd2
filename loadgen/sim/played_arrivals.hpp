#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "policy/trace_arrivals.hpp"

namespace stampede {

// A played trace's arrivals, kept by the pass that checks the trace, so the run plays them back
// without reading and parsing the trace again. Each arrival is a few bytes: its time since the
// one before, then its record's tenant and tokens when it has them (nothing else of the record
// is kept). Blocks go to an unnamed temporary file as they fill: memory is one block to write
// and one a reader, whatever the trace's length.
//
// One writer and any number of readers may work at once (simulate reads the trace on a thread
// of its own while the run plays what is kept so far): a reader that catches up with the
// writer waits for its next block, or for finish().
class PlayedArrivals final : public ArrivalKeeper {
 public:
  PlayedArrivals();
  ~PlayedArrivals() override;
  PlayedArrivals(const PlayedArrivals&) = delete;
  PlayedArrivals& operator=(const PlayedArrivals&) = delete;

  // The next arrival, never earlier than the one before (as TracePlayer plays them).
  void add(std::int64_t at_ns, const TraceRecord& record) override;
  // The writer's last call: no arrival follows. read_through: the trace was read to its end
  // without an error (else the arrivals kept are those before it). Waiting readers go on.
  void finish(bool read_through);
  // Waits for finish(): the arrivals' count when the trace was read through, every arrival
  // kept and every block a reader asked for read back; none otherwise (see kept()), so a run
  // that played fewer is never taken for the trace's.
  std::optional<std::int64_t> total() const;
  // The writer's view: false when the arrivals could not all be kept (no temporary file, a
  // write that failed, a gap between two arrivals wider than 146 years).
  bool kept() const { return !lost_; }
  std::int64_t size() const { return count_; }

  // The arrivals in the order they were added; each reader reads them on its own.
  class Reader final : public KeptArrivals {
   public:
    explicit Reader(const PlayedArrivals& played) : played_(played) {}
    // The next arrival: its time, and its tenant and tokens set in record (its other fields
    // untouched); false at the end.
    bool next(std::int64_t& at_ns, TraceRecord& record) override;

   private:
    bool load();

    const PlayedArrivals& played_;
    std::size_t block_ = 0;     // the next block to load; the spilled ones, then the last
    std::vector<char> buffer_;  // a spilled block read back
    const unsigned char* at_ = nullptr;
    const unsigned char* end_ = nullptr;
    std::int64_t last_ns_ = 0;
  };

 private:
  void spill();

  struct Close {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  std::unique_ptr<unsigned char[]> block_;  // the block being written: the last, at the end
  std::size_t size_ = 0;                    // its bytes written
  std::size_t filled_at_;                   // its bytes when it is spilled
  std::unique_ptr<std::FILE, Close> file_;
  std::int64_t last_ns_ = 0;
  std::int64_t count_ = 0;
  bool lost_ = false;
  // What readers share with the writer: the blocks spilled so far, and the end.
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<std::uint64_t> spilled_;  // each spilled block's end in the file
  bool finished_ = false;
  bool read_through_ = false;
  mutable bool unread_ = false;  // a reader could not read a spilled block back
};

}  // namespace stampede
