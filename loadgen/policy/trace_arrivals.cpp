#include "policy/trace_arrivals.hpp"

namespace stampede {

Parsed<TraceReadOptions> trace_read_options(const TraceSettings& settings) {
  const auto format = TraceFormat::parse(settings.format);
  if (!format) return Parsed<TraceReadOptions>::fail(format.error());
  return Parsed<TraceReadOptions>::ok(
      {*format, settings.reorder_ns, settings.tenant, settings.tokens});
}

namespace {
// An item carries its arrival's time alone: the lines' other fields are not kept.
TraceReadOptions times_only(TraceReadOptions read) {
  read.times_only = true;
  return read;
}
}  // namespace

Parsed<std::int64_t> count_trace_arrivals(std::istream& in, const TraceSettings& settings,
                                          std::uint64_t seed, ArrivalKeeper* keep) {
  const auto read = trace_read_options(settings);
  if (!read) return Parsed<std::int64_t>::fail(read.error());
  TraceReader reader(in, times_only(*read));
  // Every record played once, none cut, none kept: the count is the records', read without
  // sorting.
  const auto& play = settings.playback;
  if (!keep && play.scale == 1 && play.from_ns == 0 && !play.to_ns) {
    const auto records = reader.count();
    if (!records) return Parsed<std::int64_t>::fail(reader.error());
    return Parsed<std::int64_t>::ok(*records);
  }
  TracePlayer player(reader, settings.playback, seed);
  std::int64_t count = 0;
  for (; auto arrival = player.next(); ++count)
    if (keep) keep->add(arrival->at_ns, arrival->record);
  if (!player.error().empty()) return Parsed<std::int64_t>::fail(player.error());
  if (count == 0)
    return Parsed<std::int64_t>::fail(
        "the trace has records but none is played: widen --from/--to or raise --scale");
  return Parsed<std::int64_t>::ok(count);
}

TraceArrivalStream::TraceArrivalStream(std::istream& in, const TraceReadOptions& read,
                                       const TraceSettings& settings, std::uint64_t seed,
                                       std::int64_t total, std::int64_t first, std::int64_t stride,
                                       bool requests)
    : total_(total), stride_(stride) {
  reader_.emplace(in, requests ? read : times_only(read));
  player_.emplace(*reader_, settings.playback, seed);
  advance(first + 1);
}

TraceArrivalStream::TraceArrivalStream(std::unique_ptr<KeptArrivals> played, std::int64_t total,
                                       std::int64_t first, std::int64_t stride)
    : played_(std::move(played)), total_(total), stride_(stride) {
  advance(first + 1);
}

// The next arrival into record_, from the trace or played back; false at the end.
bool TraceArrivalStream::next_arrival(std::int64_t& at_ns) {
  if (played_) return played_->next(at_ns, record_);
  auto arrival = player_->next();
  if (!arrival) return false;
  at_ns = arrival->at_ns;
  record_ = std::move(arrival->record);
  return true;
}

void TraceArrivalStream::advance(std::int64_t steps) {
  next_.reset();
  std::int64_t at_ns = 0;
  for (; steps > 0; --steps) {
    if (!next_arrival(at_ns) || ++index_ >= total_) return;
  }
  next_ = WorkItem{index_, at_ns};
}

}  // namespace stampede
