#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <optional>

#include "parsed.hpp"
#include "policy/trace_playback.hpp"
#include "policy/workload.hpp"
#include "trace_settings.hpp"

namespace stampede {

// Where a pass over a trace keeps the arrivals it plays (simulate's: sim/played_arrivals).
class ArrivalKeeper {
 public:
  virtual ~ArrivalKeeper() = default;
  // The next arrival, never earlier than the one before: its time and record.
  virtual void add(std::int64_t at_ns, const TraceRecord& record) = 0;
};

// Arrivals played back from where a pass kept them, in the order kept.
class KeptArrivals {
 public:
  virtual ~KeptArrivals() = default;
  // The next arrival: its time, and its tenant and tokens set in record (its other fields
  // untouched); false at the end.
  virtual bool next(std::int64_t& at_ns, TraceRecord& record) = 0;
};

// How to read a trace the settings name: the error is --trace-format's.
Parsed<TraceReadOptions> trace_read_options(const TraceSettings& settings);

// Reads the trace through to its end as the run will play it: every error it has, or its
// arrivals' count (the items of the run). Memory as the run's. With keep, the arrivals go there
// as they are played, for the run to play back (simulate's one pass).
Parsed<std::int64_t> count_trace_arrivals(std::istream& in, const TraceSettings& settings,
                                          std::uint64_t seed, ArrivalKeeper* keep = nullptr);

// One stream of a played trace's arrivals as the open model's items: arrival k is item k, and
// a stream takes first, first + stride, ... below the total (a sharded fleet's part, as
// ArrivalStream). Each stream reads the trace itself, so every one draws the same arrivals.
// Its records carry their times, tenants and tokens; with requests, their methods and paths too
// (exec tells each process its line's).
class TraceArrivalStream {
 public:
  TraceArrivalStream(std::istream& in, const TraceReadOptions& read, const TraceSettings& settings,
                     std::uint64_t seed, std::int64_t total, std::int64_t first,
                     std::int64_t stride, bool requests = false);
  // The same arrivals played back from what count_trace_arrivals kept, for the same settings
  // and seed: their records carry their tenants and tokens alone.
  TraceArrivalStream(std::unique_ptr<KeptArrivals> played, std::int64_t total, std::int64_t first,
                     std::int64_t stride);

  // The next arrival, or none: the stream is done. Never earlier than the one before.
  std::optional<WorkItem> peek() const { return next_; }
  // The trace line peek()'s item came from: its tenant and tokens are the item's.
  const TraceRecord& peek_record() const { return record_; }
  void pop() { advance(stride_); }

 private:
  void advance(std::int64_t steps);
  bool next_arrival(std::int64_t& at_ns);

  // The trace read and played, or the arrivals played back.
  std::optional<TraceReader> reader_;
  std::optional<TracePlayer> player_;
  std::unique_ptr<KeptArrivals> played_;
  std::int64_t index_ = -1;  // the arrival next_ is
  std::int64_t total_;
  std::int64_t stride_;
  std::optional<WorkItem> next_;
  TraceRecord record_;
};

}  // namespace stampede
