#include "policy/trace_reader.hpp"

#include "saturating.hpp"

namespace stampede {
TraceReader::TraceReader(std::istream& in, TraceReadOptions options)
    : lines_(in), options_(std::move(options)) {
  detected_ = options_.format.kind() != TraceFormat::Kind::kAuto;
  if (options_.times_only) options_.format.times_only();
  if (detected_ && !options_.format.header_pending()) choose_fields();
}

// Once the format is known, before its first record: a field it does not have is refused
// before any line is played.
bool TraceReader::choose_fields() {
  auto error = options_.format.choose(TraceFormat::Field::kTenant, options_.tenant);
  if (!error) error = options_.format.choose(TraceFormat::Field::kTokens, options_.tokens);
  if (error) error_ = *error;
  return error_.empty();
}

std::optional<TraceRecord> TraceReader::next() {
  while (error_.empty()) {
    if (!pending_.empty() && (done_ || settled())) return pop();
    if (done_) {
      if (!first_ns_) no_records();
      return std::nullopt;
    }
    done_ = !read_line();
  }
  return std::nullopt;
}

std::optional<std::int64_t> TraceReader::count() {
  counting_ = true;
  // A --trace-tenant or --trace-tokens the given format lacks was found before the first line.
  while (error_.empty() && read_line()) {
  }
  if (error_.empty() && records_ == 0) no_records();
  if (!error_.empty()) return std::nullopt;
  return records_;
}

void TraceReader::no_records() {
  error_ = "line " + std::to_string(lines_.line()) +
           ": the trace has no records: give a file with at least one timed line";
}

// The earliest record can come before none read later: every later one is at most
// reorder_ns before the latest so far.
bool TraceReader::settled() const {
  return pending_.earliest_ns() <= saturating_add(latest_ns_, -options_.reorder_ns);
}

std::optional<TraceRecord> TraceReader::pop() {
  auto r = pending_.pop();
  if (!first_ns_) first_ns_ = r->time_ns;
  r->time_ns -= *first_ns_;
  return r;
}

bool TraceReader::read_line() {
  const auto line = lines_.next();
  if (!line) {
    error_ = lines_.error();
    return false;
  }
  const std::int64_t n = lines_.line();
  if (!detected_) {
    if (line->find_first_not_of(" \t") == std::string_view::npos) return true;
    auto format = TraceFormat::detect(*line, n);
    if (!format) {
      error_ = format.error();
      return false;
    }
    options_.format = *format;
    if (options_.times_only) options_.format.times_only();
    detected_ = true;
    if (!options_.format.header_pending() && !choose_fields()) return false;
  }
  if (options_.format.header_pending()) {
    if (auto error = options_.format.read_header(*line, n)) error_ = *error;
    return error_.empty() && choose_fields();
  }
  parsed_.clear();
  if (auto error = options_.format.read(*line, n, parsed_)) {
    error_ = *error;
    return false;
  }
  if (auto error = take(parsed_)) {
    error_ = *error;
    return false;
  }
  return true;
}

std::optional<std::string> TraceReader::take(std::vector<TraceRecord>& records) {
  for (auto& r : records) {
    if (records_ > 0 && r.time_ns < saturating_add(latest_ns_, -options_.reorder_ns))
      return trace_position(r.line, r.column) + "the time goes back " +
             format_duration_rounded(latest_ns_ - r.time_ns) + " before line " +
             std::to_string(latest_line_) + "'s, more than --trace-reorder " +
             format_duration(options_.reorder_ns) +
             " allows: sort the trace by time, or raise --trace-reorder to at least that";
    if (records_ == 0 || r.time_ns > latest_ns_) {
      latest_ns_ = r.time_ns;
      latest_line_ = r.line;
    }
    ++records_;
    const std::int64_t t_ns = r.time_ns;
    if (!counting_) pending_.push(t_ns, std::move(r));
  }
  return std::nullopt;
}

}  // namespace stampede
