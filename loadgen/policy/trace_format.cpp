#include "policy/trace_format.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "policy/time_text.hpp"
#include "policy/trace_lines.hpp"

namespace stampede {
namespace {

constexpr std::string_view kCombined =
    R"($remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent )"
    R"("$http_referer" "$http_user_agent")";
constexpr std::string_view kCommon =
    R"($remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent)";

constexpr std::string_view kAccepted =
    "give --trace-format csv (a header with a time column), har, combined, common or "
    "'nginx:<log_format>' (e.g. 'nginx:$remote_addr [$time_local] $msec \"$request\"')";

// The time variables a log line may carry, each read its own way.
struct TimeVariable {
  std::string_view name;
  std::string_view label;  // for errors
  std::optional<std::int64_t> (*parse)(std::string_view);
  std::string_view example;
  bool whole_seconds = false;  // never a fraction ($time_local): each time is a second's
};
constexpr std::array<TimeVariable, 3> kTimeVariables = {{
    {"time_local", "a $time_local time", clf_time_ns, "10/Oct/2000:13:55:36 -0700", true},
    {"msec", "a $msec time", decimal_seconds_ns, "1767225600.123"},
    {"time_iso8601", "a $time_iso8601 time", rfc3339_ns, "2026-01-01T00:00:00+00:00"},
}};
constexpr const TimeVariable& kMsec = kTimeVariables[1];
constexpr const TimeVariable& kTimeIso8601 = kTimeVariables[2];

// CSV's time: seconds (since the epoch or the trace's zero) or an RFC 3339 time.
std::optional<std::int64_t> seconds_or_rfc3339(std::string_view text) {
  if (auto ns = decimal_seconds_ns(text)) return ns;
  return rfc3339_ns(text);
}
constexpr TimeVariable kCsvTime{"time", "a time in seconds or RFC 3339", seconds_or_rfc3339,
                                "12.5 or 2026-01-01T00:00:00.5Z"};
constexpr TimeVariable kHarTime{"startedDateTime", "an RFC 3339 startedDateTime", rfc3339_ns,
                                "2026-01-01T00:00:00.123Z"};

// Which of kTimeVariables a log variable is, or -1: found once, when the format is read.
int time_index(std::string_view name) {
  for (std::size_t i = 0; i < kTimeVariables.size(); ++i)
    if (kTimeVariables[i].name == name) return static_cast<int>(i);
  return -1;
}

// Whether `text` is in `line` at `at`: a log format's literals are a few bytes, compared in
// place rather than by a call to memcmp each.
bool literal_at(std::string_view line, std::size_t at, std::string_view text) {
  if (line.size() - at < text.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (line[at + i] != text[i]) return false;
  return true;
}

std::string in_quotes(std::string_view text) {
  return "'" + std::string(text) + "'";
}

// A record at `ns`, the time `text` gives as `how` reads it (none: it is not one), or the error
// that names where and what was expected.
std::optional<std::string> timed_record(std::optional<std::int64_t> ns, std::string_view text,
                                        const TimeVariable& how, std::int64_t n, std::size_t column,
                                        TraceRecord& record) {
  if (!ns)
    return trace_position(n, column) + in_quotes(text) + " is not " + std::string(how.label) +
           " (e.g. " + std::string(how.example) + "): fix the line or cut it out";
  record.time_ns = *ns;
  // $time_local has whole seconds only; the others have a fraction when the log wrote one.
  record.second_resolution = how.whole_seconds || text.find('.') == std::string_view::npos;
  record.line = n;
  record.column = column;
  return std::nullopt;
}

std::optional<std::string> timed_record(std::string_view text, const TimeVariable& how,
                                        std::int64_t n, std::size_t column, TraceRecord& record) {
  return timed_record(how.parse(text), text, how, n, column, record);
}

// "GET /v1/chat HTTP/1.1" -> method and path (a request line a log could not parse: neither).
void read_request(std::string_view request, TraceRecord& record) {
  const auto space = request.find(' ');
  if (space == std::string_view::npos) return;
  const std::string_view method = request.substr(0, space);
  if (method.empty() || !std::all_of(method.begin(), method.end(), [](char c) {
        return std::isupper(static_cast<unsigned char>(c));
      }))
    return;
  const std::string_view rest = request.substr(space + 1);
  TraceRequest& fill = record.fill_request();
  fill.method = method;
  fill.path = rest.substr(0, rest.find(' '));
}

// Whether a tenant goes into a header unchanged: no longer than kMaxTraceTenant, visible
// ASCII and spaces between words only. Every byte looked at without a branch, as each of a
// trace's lines asks; the error that names the byte is found only when this fails.
bool header_safe(std::string_view value) {
  bool visible = true;
  for (const char c : value) visible &= c >= ' ' && c < 0x7f;
  return visible && value.size() <= kMaxTraceTenant && value.front() != ' ' && value.back() != ' ';
}

// A field's value as the tenant, or the error naming where it is: it is sent verbatim in a
// header, so only what a header carries unchanged (visible ASCII, spaces between words) and
// no more than kMaxTraceTenant bytes. Empty, or nginx's "-" for a variable with no value: no
// tenant.
std::optional<std::string> read_tenant(std::string_view value, std::int64_t n, std::size_t column,
                                       TraceRecord& record) {
  if (value.empty() || value == "-") return std::nullopt;
  if (header_safe(value)) {
    record.tenant.emplace(value);
    return std::nullopt;
  }
  if (value.size() > kMaxTraceTenant)
    return trace_position(n, column) + "the tenant is " + std::to_string(value.size()) +
           " bytes, more than the " + std::to_string(kMaxTraceTenant) +
           " a tenant key may have: fix the line or give another --trace-tenant";
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    const bool inner_space = c == ' ' && i > 0 && i + 1 < value.size();
    if ((c > 0x20 && c < 0x7f) || inner_space) continue;
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", c);
    return trace_position(n, column + i) + "the tenant has the byte " + hex +
           ", which a header cannot carry as it is (visible ASCII and inner spaces only): fix "
           "the line or give another --trace-tenant";
  }
  record.tenant = std::string(value);
  return std::nullopt;
}

// A field's value as the request's tokens: digits, or empty or nginx's "-" for none.
std::optional<std::string> read_tokens(std::string_view value, std::int64_t n, std::size_t column,
                                       TraceRecord& record) {
  if (value.empty() || value == "-") return std::nullopt;
  std::int64_t tokens = -1;
  const auto* end = value.data() + value.size();
  const auto [stop, ec] = std::from_chars(value.data(), end, tokens);
  if (ec != std::errc() || stop != end || tokens < 0)
    return trace_position(n, column) + in_quotes(value) +
           " is not a whole number of tokens: write tokens as digits, e.g. 1200";
  record.tokens = tokens;
  return std::nullopt;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// A log variable the record keeps: the request, or its method and path apart.
void log_field(std::string_view name, std::string_view value, TraceRecord& record) {
  if (name == "request") read_request(value, record);
  if (name == "request_method") record.fill_request().method = value;
  if (name == "uri" || name == "request_uri") record.fill_request().path = value;
}

// Without the spaces and tabs around it, then without the quotes around it.
std::string_view trim(std::string_view text) {
  const auto blank_at = [&](std::size_t i) { return text[i] == ' ' || text[i] == '\t'; };
  std::size_t begin = 0, end = text.size();
  while (begin < end && blank_at(begin)) ++begin;
  while (end > begin && blank_at(end - 1)) --end;
  if (end - begin >= 2 && text[begin] == '"' && text[end - 1] == '"') ++begin, --end;
  return {text.data() + begin, end - begin};
}

// A CSV line's fields: its commas counted, many bytes at a time. No quoted commas: a trace's
// fields are times, names, numbers and paths.
std::size_t csv_field_count(std::string_view line) {
  // Counted in a byte per lane, up to 255 bytes a run: std::count's 64-bit count widens
  // every byte compared to eight, which costs more than the compare.
  constexpr std::size_t kRun = 255;
  std::size_t commas = 0;
  for (std::size_t at = 0; at < line.size(); at += kRun) {
    const std::size_t n = std::min(kRun, line.size() - at);
    unsigned char run = 0;
    for (std::size_t i = 0; i < n; ++i)
      run = static_cast<unsigned char>(run + (line[at + i] == ','));
    commas += run;
  }
  return commas + 1;
}

// The first `byte` at or after `from`, or npos. What a trace's lines are searched for (a log
// line's dots, a CSV line's commas) is a few bytes apart: eight bytes are looked at a step,
// without a call to memchr for each.
std::size_t find_byte(std::string_view text, std::size_t from, char byte) {
  constexpr std::uint64_t kOnes = 0x0101010101010101, kHighs = kOnes * 0x80;
  const std::uint64_t bytes = kOnes * static_cast<unsigned char>(byte);
  for (; from + 8 <= text.size(); from += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + from, 8);
    const std::uint64_t x = word ^ bytes;  // a zero byte where `byte` is, in any byte order
    if ((x - kOnes) & ~x & kHighs) break;
  }
  for (; from < text.size(); ++from)
    if (text[from] == byte) return from;
  return std::string_view::npos;
}

// Where `text` (a log format's literal) next is in `line` from `at`, or npos: its first byte
// searched for a word at a time, where string_view::find compares at every byte.
std::size_t find_literal(std::string_view line, std::size_t at, std::string_view text) {
  if (text.empty()) return at;
  for (auto pos = find_byte(line, at, text[0]); pos != std::string_view::npos;
       pos = find_byte(line, pos + 1, text[0]))
    if (literal_at(line, pos, text)) return pos;
  return std::string_view::npos;
}

// Calls take(index, field, column from 1) for each of a CSV line's first `fields` fields: the
// columns after the last one read are not split at all.
template <class Take>
void each_csv_field(std::string_view line, std::size_t fields, Take&& take) {
  std::size_t start = 0;
  for (std::size_t i = 0; i < fields; ++i) {
    const std::size_t comma = std::min(find_byte(line, start, ','), line.size());
    take(i, trim({line.data() + start, comma - start}), start + 1);
    if (comma == line.size()) return;
    start = comma + 1;
  }
}

bool has_csv_field(std::string_view line, std::string_view name) {
  bool found = false;
  each_csv_field(
      line, csv_field_count(line),
      [&](std::size_t, std::string_view field, std::size_t) { found = found || field == name; });
  return found;
}

bool blank(std::string_view line) {
  return trim(line).empty();
}

// $msec: epoch seconds with exactly three decimals (nginx's form), so a status or a byte count
// is never taken for it. The time, if it is one.
std::optional<std::int64_t> msec_ns(std::string_view token) {
  const auto dot = token.find('.');
  if (dot == std::string_view::npos || dot < 9 || token.size() - dot != 4) return std::nullopt;
  return decimal_seconds_ns(token);
}

std::string_view unwrap(std::string_view token) {
  while (!token.empty() && (token.front() == '[' || token.front() == '"')) token.remove_prefix(1);
  while (!token.empty() && (token.back() == ']' || token.back() == '"')) token.remove_suffix(1);
  return token;
}

// A time found on a log line: its text, where it starts (from 1) and what it is, read once.
struct FoundTime {
  std::string_view token;
  std::size_t column;
  std::int64_t ns;
};
using Found = std::optional<FoundTime>;

Found found_at(std::string_view line, std::string_view token, std::int64_t ns) {
  return FoundTime{token, static_cast<std::size_t>(token.data() - line.data()) + 1, ns};
}

// Whether the '.' at `dot` may be a $msec time's, as far as its neighbours tell: a digit before
// it, exactly three after it, and then the token's end. Most dots of a log line (an address's,
// "HTTP/1.1", a user agent's versions) fail this before their token is looked for.
bool msec_dot(std::string_view line, std::size_t dot) {
  const auto at = [&](std::size_t i) { return i < line.size() ? line[i] : ' '; };
  const char after = at(dot + 4);
  return dot > 0 && ascii_digit(line[dot - 1]) && ascii_digit(at(dot + 1)) &&
         ascii_digit(at(dot + 2)) && ascii_digit(at(dot + 3)) &&
         (after == ' ' || after == ']' || after == '"');
}

// The first space-separated token that is a $msec time: only a token with a '.' can be, so
// the line is searched for those, not split token by token.
Found scan_msec(std::string_view line) {
  for (auto dot = find_byte(line, 0, '.'); dot != std::string_view::npos;
       dot = find_byte(line, dot + 1, '.')) {
    if (!msec_dot(line, dot)) continue;
    const auto space = line.rfind(' ', dot);
    const auto start = space == std::string_view::npos ? 0 : space + 1;
    dot = std::min(line.find(' ', dot), line.size());  // the token's end: its other dots skipped
    const auto token = unwrap(line.substr(start, dot - start));
    if (const auto ns = msec_ns(token)) return found_at(line, token, *ns);
  }
  return std::nullopt;
}

// The first space-separated token that is a $msec time (or a $time_iso8601 one), and where.
Found scan_time(std::string_view line, bool msec) {
  if (msec) return scan_msec(line);
  std::size_t start = 0;
  while (start < line.size()) {
    auto end = line.find(' ', start);
    if (end == std::string_view::npos) end = line.size();
    const auto token = unwrap(line.substr(start, end - start));
    if (const auto ns = rfc3339_ns(token)) return found_at(line, token, *ns);
    start = end + 1;
  }
  return std::nullopt;
}

// The request line of a log line: the first quoted text that starts with a method.
void scan_request(std::string_view line, TraceRecord& record) {
  for (auto q = line.find('"'); q != std::string_view::npos; q = line.find('"', q + 1)) {
    const auto end = line.find('"', q + 1);
    read_request(line.substr(q + 1, end == std::string_view::npos ? end : end - q - 1), record);
    if (!record.method().empty()) return;
    if (end == std::string_view::npos) return;
    q = end;
  }
}

}  // namespace

Parsed<TraceFormat> TraceFormat::parse(std::string_view spec) {
  TraceFormat f;
  if (spec == "auto") return Parsed<TraceFormat>::ok(f);
  if (spec == "csv" || spec == "har") {
    f.kind_ = spec == "csv" ? Kind::kCsv : Kind::kHar;
    return Parsed<TraceFormat>::ok(f);
  }
  if (spec == "combined") return log_format(kCombined);
  if (spec == "common") return log_format(kCommon);
  if (spec.starts_with("nginx:")) return log_format(spec.substr(6));
  return Parsed<TraceFormat>::fail("--trace-format " + in_quotes(spec) +
                                   " is not a format: " + std::string(kAccepted));
}

Parsed<TraceFormat> TraceFormat::log_format(std::string_view format) {
  TraceFormat f;
  f.kind_ = Kind::kLog;
  bool timed = false;
  for (std::size_t at = 0; at < format.size();) {
    if (format[at] != '$') {
      const auto next = format.find('$', at);
      f.pieces_.push_back({false, std::string(format.substr(at, next - at))});
      at = next == std::string_view::npos ? format.size() : next;
      continue;
    }
    // $name or ${name}, as nginx spells a variable followed by a letter.
    const bool braced = at + 1 < format.size() && format[at + 1] == '{';
    std::size_t end = at + 1 + braced;
    while (end < format.size() &&
           (std::isalnum(static_cast<unsigned char>(format[end])) || format[end] == '_'))
      ++end;
    const std::string name(format.substr(at + 1 + braced, end - at - 1 - braced));
    if (name.empty() || (braced && (end >= format.size() || format[end] != '}')))
      return Parsed<TraceFormat>::fail("--trace-format: no variable name at column " +
                                       std::to_string(at + 1) + " of " + in_quotes(format) +
                                       ": write $name or ${name}");
    if (!f.pieces_.empty() && f.pieces_.back().variable)
      return Parsed<TraceFormat>::fail("--trace-format: $" + f.pieces_.back().text + " and $" +
                                       name + " have nothing between them in " + in_quotes(format) +
                                       ": a log line could not be split there");
    const int time = time_index(name);
    timed = timed || time >= 0;
    f.pieces_.push_back({true, name, time});
    at = end + braced;
  }
  if (!timed)
    return Parsed<TraceFormat>::fail("--trace-format " + in_quotes(format) +
                                     " has no time: add $time_local, $msec or $time_iso8601");
  return Parsed<TraceFormat>::ok(f);
}

Parsed<TraceFormat> TraceFormat::detect(std::string_view line, std::int64_t n) {
  TraceFormat f;
  const auto start = line.find_first_not_of(" \t");
  if (start != std::string_view::npos && line[start] == '{') {
    f.kind_ = Kind::kHar;
    return Parsed<TraceFormat>::ok(f);
  }
  if (has_csv_field(line, "time")) {
    f.kind_ = Kind::kCsv;
    return Parsed<TraceFormat>::ok(f);
  }
  // $msec first: a log that also has $time_local or $time_iso8601 is read to the millisecond.
  f.kind_ = Kind::kScan;
  f.scan_msec_ = true;
  if (scan_time(line, true)) return Parsed<TraceFormat>::ok(f);
  std::vector<TraceRecord> probe;
  for (const auto format : {kCombined, kCommon}) {
    auto log = log_format(format);
    if (!log->read(line, n, probe)) return log;
  }
  f.scan_msec_ = false;
  if (scan_time(line, false)) return Parsed<TraceFormat>::ok(f);
  return Parsed<TraceFormat>::fail(trace_position(n, 1) +
                                   "not a trace format stampede reads (a CSV header with a time "
                                   "column, a combined or common log line, a log line with a "
                                   "$msec or $time_iso8601 time, or HAR): " +
                                   std::string(kAccepted));
}

std::optional<std::string> TraceFormat::read_header(std::string_view line, std::int64_t n) {
  static constexpr std::array<std::string_view, kCsvRoles> kNames = {"time", "tenant", "tokens",
                                                                     "method", "path"};
  csv_.columns = csv_field_count(line);
  csv_.names.clear();
  each_csv_field(line, csv_.columns, [&](std::size_t i, std::string_view name, std::size_t) {
    csv_.names.emplace_back(name);
    const auto* role = std::find(kNames.begin(), kNames.end(), name);
    if (role == kNames.end()) return;
    csv_.role.resize(i + 1, kCsvRoles);
    // The last column of a name wins, as a header read left to right would have it.
    std::replace(csv_.role.begin(), csv_.role.end(),
                 static_cast<std::size_t>(role - kNames.begin()), kCsvRoles);
    csv_.role[i] = static_cast<std::size_t>(role - kNames.begin());
  });
  settle_csv_roles();
  if (!csv_.has[kCsvTimeRole])
    return trace_position(n, 1) + "the CSV header " + in_quotes(line) +
           " has no time column: name the column of the arrival times 'time'";
  return std::nullopt;
}

void TraceFormat::settle_csv_roles() {
  csv_.has = {};
  csv_.read_columns = 0;
  for (std::size_t i = 0; i < csv_.role.size(); ++i) {
    const std::size_t role = csv_.role[i];
    if (role == kCsvRoles) continue;
    csv_.has[role] = true;
    if (role == kCsvTimeRole || role == kCsvTokensRole || role == kCsvTenantRole)
      csv_.read_columns = i + 1;
  }
}

std::optional<std::string> TraceFormat::choose(Field which, std::string_view field) {
  if (field.empty()) return std::nullopt;
  const bool tenant = which == Field::kTenant;
  const std::size_t role = tenant ? kCsvTenantRole : kCsvTokensRole;
  const std::string_view plural = tenant ? "tenants" : "tokens";
  const std::string option = tenant ? "--trace-tenant" : "--trace-tokens";
  const std::string flag = option + " " + std::string(field) + ": ";
  auto& piece = tenant ? tenant_piece_ : tokens_piece_;
  if (field == "none") {
    std::replace(csv_.role.begin(), csv_.role.end(), role, kCsvRoles);
    settle_csv_roles();
    piece.reset();
    return std::nullopt;
  }
  if (kind_ == Kind::kCsv) {
    const auto at = std::find(csv_.names.begin(), csv_.names.end(), field);
    if (at == csv_.names.end())
      return flag + "the CSV header has no such column; its columns are " + joined(csv_.names);
    const auto i = static_cast<std::size_t>(at - csv_.names.begin());
    if (i < csv_.role.size() && csv_.role[i] == kCsvTimeRole)
      return flag + "that is the column of the arrival times: name the column of the " +
             std::string(plural);
    std::replace(csv_.role.begin(), csv_.role.end(), role, kCsvRoles);
    csv_.role.resize(std::max(csv_.role.size(), i + 1), kCsvRoles);
    csv_.role[i] = role;
    settle_csv_roles();
    return std::nullopt;
  }
  if (kind_ == Kind::kLog) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < pieces_.size(); ++i) {
      if (!pieces_[i].variable) continue;
      if (pieces_[i].text == field) {
        piece = i;
        return std::nullopt;
      }
      names.push_back(pieces_[i].text);
    }
    return flag + "the log format has no such variable; its variables are " + joined(names);
  }
  if (kind_ == Kind::kScan)
    return flag + "this log is read by its " + (scan_msec_ ? "$msec" : "$time_iso8601") +
           " time alone, so its fields have no names: give --trace-format 'nginx:<the "
           "log_format that wrote it>'";
  return flag + "a HAR trace has no field taken as " + (tenant ? "a tenant" : "its tokens") +
         ": give a CSV or a log, or leave out " + option;
}

std::optional<std::string> TraceFormat::read(std::string_view line, std::int64_t n,
                                             std::vector<TraceRecord>& out) const {
  if (blank(line)) return std::nullopt;
  // The records are made in place (a record carries strings: one move fewer each), and a
  // line's error leaves none of its records behind.
  const std::size_t before = out.size();
  std::optional<std::string> error;
  switch (kind_) {
    case Kind::kCsv:
      error = read_csv(line, n, out);
      break;
    case Kind::kHar:
      error = read_har(line, n, out);
      break;
    case Kind::kLog:
      error = read_log(line, n, out);
      break;
    case Kind::kScan:
      error = read_scan(line, n, out);
      break;
    case Kind::kAuto:
      return trace_position(n, 1) +
             "the trace's format is not known yet: " + std::string(kAccepted);
  }
  if (error) out.resize(before);
  return error;
}

std::optional<std::string> TraceFormat::read_csv(std::string_view line, std::int64_t n,
                                                 std::vector<TraceRecord>& out) const {
  struct Cell {  // uninitialised: each role read is set below, and only those are used
    std::string_view text;
    std::size_t column;
  };
  std::array<Cell, kCsvRoles + 1> by_role;  // the last: the columns without one
  const auto count = csv_field_count(line);
  if (count != csv_.columns)
    return trace_position(n, 1) + std::to_string(count) + " fields where the header has " +
           std::to_string(csv_.columns) + ": give every line the header's columns";
  each_csv_field(line, fields_ ? csv_.role.size() : csv_.read_columns,
                 [&](std::size_t i, std::string_view text, std::size_t column) {
                   by_role[csv_.role[i]] = {text, column};
                 });
  const auto& [time, tenant, tokens, method, path, unused] = by_role;
  TraceRecord& r = out.emplace_back();
  if (auto error = timed_record(time.text, kCsvTime, n, time.column, r)) return error;
  if (csv_.has[kCsvTenantRole]) {
    const auto at = static_cast<std::size_t>(tenant.text.data() - line.data()) + 1;
    if (auto error = read_tenant(tenant.text, n, at, r)) return error;
  }
  if (csv_.has[kCsvTokensRole]) {
    if (auto error = read_tokens(tokens.text, n, tokens.column, r)) return error;
  }
  if (fields_ && csv_.has[kCsvMethodRole]) r.fill_request().method = method.text;
  if (fields_ && csv_.has[kCsvPathRole]) r.fill_request().path = path.text;
  return std::nullopt;
}

std::optional<std::string> TraceFormat::read_log(std::string_view line, std::int64_t n,
                                                 std::vector<TraceRecord>& out) const {
  TraceRecord& r = out.emplace_back();
  bool timed = false;
  std::size_t at = 0;
  for (std::size_t i = 0; i < pieces_.size(); ++i) {
    const Piece& p = pieces_[i];
    if (!p.variable) {
      if (!literal_at(line, at, p.text))
        return trace_position(n, at + 1) + "expected " + in_quotes(p.text) +
               " here, as the log format has it: give --trace-format 'nginx:<the log_format "
               "that wrote the log>'";
      at += p.text.size();
      continue;
    }
    // A variable runs to where the literal after it starts (the line's end when last).
    auto end = i + 1 < pieces_.size() ? find_literal(line, at, pieces_[i + 1].text) : line.size();
    if (end == std::string_view::npos) end = line.size();
    const std::string_view value = line.substr(at, end - at);
    if (i == tenant_piece_) {
      if (auto error = read_tenant(value, n, at + 1, r)) return error;
    }
    if (i == tokens_piece_) {
      if (auto error = read_tokens(value, n, at + 1, r)) return error;
    }
    if (p.time >= 0 && !timed) {
      const TimeVariable& how = kTimeVariables[static_cast<std::size_t>(p.time)];
      if (auto error = timed_record(value, how, n, at + 1, r)) return error;
      timed = true;
    } else if (fields_) {
      log_field(p.text, value, r);
    }
    at = end;
  }
  return std::nullopt;
}

std::optional<std::string> TraceFormat::read_scan(std::string_view line, std::int64_t n,
                                                  std::vector<TraceRecord>& out) const {
  const auto found = scan_time(line, scan_msec_);
  const TimeVariable& how = scan_msec_ ? kMsec : kTimeIso8601;
  if (!found)
    return trace_position(n, 1) + "no $" + std::string(how.name) + " time (e.g. " +
           std::string(how.example) +
           ") on this line, as on the log's first: fix the line or cut it out";
  TraceRecord& r = out.emplace_back();
  if (auto error = timed_record(found->ns, found->token, how, n, found->column, r)) return error;
  if (fields_) scan_request(line, r);
  return std::nullopt;
}

std::optional<std::string> TraceFormat::read_har(std::string_view line, std::int64_t n,
                                                 std::vector<TraceRecord>& out) {
  // Only the entries' start times matter: scanned for, not the document parsed whole.
  static constexpr std::string_view kKey = "\"startedDateTime\"";
  for (auto key = line.find(kKey); key != std::string_view::npos; key = line.find(kKey, key + 1)) {
    auto at = line.find_first_not_of(" \t:", key + kKey.size());
    const auto close = at == std::string_view::npos ? at : line.find('"', at + 1);
    if (at == std::string_view::npos || line[at] != '"' || close == std::string_view::npos)
      return trace_position(n, key + 1) +
             "startedDateTime has no quoted time: fix the HAR entry or cut it out";
    ++at;
    TraceRecord& r = out.emplace_back();
    if (auto error = timed_record(line.substr(at, close - at), kHarTime, n, at + 1, r))
      return error;
  }
  return std::nullopt;
}

}  // namespace stampede
