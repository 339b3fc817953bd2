#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <optional>

#include "policy/arrival_schedule.hpp"
#include "policy/trace_arrivals.hpp"
#include "scenario.hpp"

namespace stampede {

// One part of the open model's arrivals (a shard's, a live loop's): the steady schedule's, or,
// for the trace workload, a trace's, read from the file the caller opened (checked whole
// before the run: count_trace_arrivals) and handed in, or played back from the arrivals a pass
// over it kept (played: simulate reads the trace once).
class OpenArrivals {
 public:
  OpenArrivals(const ArrivalSchedule& schedule, const FleetConfig& fleet,
               std::unique_ptr<std::istream> trace, std::int64_t first, std::int64_t stride,
               std::unique_ptr<KeptArrivals> played = nullptr);

  // A trace workload never falls back to the steady schedule: a trace that can no longer be
  // read has no more arrivals, and its items stay unfinished for the checks to see.
  std::optional<WorkItem> peek() const {
    if (trace_) return trace_->peek();
    return file_ ? std::nullopt : steady_.peek();
  }
  // The trace line of peek()'s item, whose tenant and tokens are the item's; null for the
  // steady schedule's.
  const TraceRecord* peek_record() const {
    return trace_ && trace_->peek() ? &trace_->peek_record() : nullptr;
  }
  void pop() {
    if (trace_) return trace_->pop();
    if (!file_) steady_.pop();
  }

 private:
  ArrivalStream steady_;
  std::unique_ptr<std::istream> file_;
  std::unique_ptr<TraceArrivalStream> trace_;
};

// The trace workload's file, opened for one stream of its arrivals; none for other workloads.
// Each stream reads it from its start, and opening it is all the I/O there is here.
std::unique_ptr<std::istream> open_trace(const FleetConfig& fleet);

}  // namespace stampede
