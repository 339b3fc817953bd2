#include "policy/trace_arrivals.hpp"

namespace stampede {

Parsed<TraceReadOptions> trace_read_options(const TraceSettings& settings) {
  const auto format = TraceFormat::parse(settings.format);
  if (!format) return Parsed<TraceReadOptions>::fail(format.error());
  return Parsed<TraceReadOptions>::ok({*format, settings.reorder_ns, settings.tenant});
}

Parsed<std::int64_t> count_trace_arrivals(std::istream& in, const TraceSettings& settings,
                                          std::uint64_t seed) {
  const auto read = trace_read_options(settings);
  if (!read) return Parsed<std::int64_t>::fail(read.error());
  TraceReader reader(in, *read);
  TracePlayer player(reader, settings.playback, seed);
  std::int64_t count = 0;
  while (player.next()) ++count;
  if (!player.error().empty()) return Parsed<std::int64_t>::fail(player.error());
  if (count == 0)
    return Parsed<std::int64_t>::fail(
        "the trace has records but none is played: widen --from/--to or raise --scale");
  return Parsed<std::int64_t>::ok(count);
}

TraceArrivalStream::TraceArrivalStream(std::istream& in, const TraceReadOptions& read,
                                       const TraceSettings& settings, std::uint64_t seed,
                                       std::int64_t total, std::int64_t first, std::int64_t stride)
    : reader_(in, read), player_(reader_, settings.playback, seed), total_(total), stride_(stride) {
  advance(first + 1);
}

void TraceArrivalStream::advance(std::int64_t steps) {
  next_.reset();
  std::optional<TraceArrival> arrival;
  for (; steps > 0; --steps) {
    arrival = player_.next();
    if (!arrival || ++index_ >= total_) return;
  }
  next_ = WorkItem{index_, arrival->at_ns};
  record_ = std::move(arrival->record);
}

}  // namespace stampede
