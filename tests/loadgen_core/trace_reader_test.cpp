#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "duration.hpp"
#include "policy/trace_reader.hpp"

using namespace stampede;

namespace {

struct Read {
  std::string records;  // "ms[s] tenant tokens method path" per record, "|" between
  std::string error;
};

std::string describe(const TraceRecord& r) {
  std::string out = std::to_string(r.time_ns / kNsPerMs);
  if (r.second_resolution) out += "s";
  if (r.tenant) out += " " + *r.tenant;
  if (r.tokens) out += " " + std::to_string(*r.tokens);
  if (!r.method().empty()) out += " " + std::string(r.method());
  if (!r.path().empty()) out += " " + std::string(r.path());
  return out;
}

Read read_all(const std::string& text, const std::string& format = "auto",
              std::int64_t reorder_ns = kNsPerSec) {
  const auto parsed = TraceFormat::parse(format);
  REQUIRE_MESSAGE(parsed, parsed.error());
  std::istringstream in(text);
  TraceReader reader(in, {*parsed, reorder_ns});
  Read out;
  while (const auto r = reader.next())
    out.records += (out.records.empty() ? "" : "|") + describe(*r);
  out.error = reader.error();
  return out;
}

// Bytes without end: a reader that read its input whole would never return.
class Endless : public std::streambuf {
 public:
  explicit Endless(char c) : chunk_(4096, c) {}

 protected:
  int_type underflow() override {
    setg(chunk_.data(), chunk_.data(), chunk_.data() + chunk_.size());
    return traits_type::to_int_type(chunk_[0]);
  }

 private:
  std::string chunk_;
};

}  // namespace

TEST_CASE("trace: each format's records, times relative to the first") {
  struct Row {
    std::string name, format, text, records;
  };
  for (const auto& r : std::vector<Row>{
           {"csv, fractional seconds and every column", "auto",
            "time,tenant,tokens,method,path\n100.5,a,10,GET,/x\n101.25,b,20,POST,/y\n",
            "0 a 10 GET /x|750 b 20 POST /y"},
           {"csv, whole seconds are second resolution", "auto", "path,time\n/a,7\n\n/b,9\n",
            "0s /a|2000s /b"},
           {"csv, RFC 3339", "csv", "time\n2026-01-01T00:00:00.5Z\n2026-01-01T01:00:01.5+01:00\n",
            "0|1000"},
           {"combined, detected", "auto",
            R"(1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 5 "-" "curl")"
            "\n"
            R"(1.2.3.4 - - [10/Oct/2000:13:55:38 -0700] "POST /b?q=1 HTTP/1.1" 429 5 "-" "x y")"
            "\n",
            "0s GET /a|2000s POST /b?q=1"},
           {"common, detected", "auto",
            "h - u [10/Oct/2000:13:55:36 +0000] \"GET / HTTP/1.0\" 200 9\n"
            "h - u [10/Oct/2000:13:56:36 +0000] \"GET / HTTP/1.0\" 200 9\n",
            "0s GET /|60000s GET /"},
           {"a log carrying $msec, detected", "auto",
            "10.0.0.1 - [05/Dec/2026:10:00:00 +0000] 1767225600.123 \"GET /v1 HTTP/1.1\" 200\n"
            "10.0.0.1 - [05/Dec/2026:10:00:00 +0000] 1767225600.456 \"GET /v2 HTTP/1.1\" 200\n",
            "0 GET /v1|333 GET /v2"},
           {"$msec: the first token of 9+ digits, '.', 3 digits; other dotted tokens skipped",
            "auto",
            "1.2.3.4 a.1767225600.001 1767225600.0011 12345678.123 1767225600.00x "
            "\"1767225600.100\" [1767225600.200]\n"
            "1767225600.1234.5 x/1767225600.300 [\"1767225600.350\"] 1767225600.400\n"
            "1767225600.500\n",
            "0|250|400"},
           {"a log carrying $time_iso8601, detected", "auto",
            "2026-01-01T00:00:00+00:00 \"GET /a HTTP/1.1\"\n2026-01-01T00:00:03+00:00 x\n",
            "0s GET /a|3000s"},
           {"a custom log_format", "nginx:$remote_addr|$msec|$request_method|${uri}!",
            "1.1.1.1|1767225600.000|GET|/a!\n2.2.2.2|1767225600.010|PUT|/b!\n",
            "0 GET /a|10 PUT /b"},
           {"HAR, scanned for startedDateTime", "auto",
            "{\n \"log\": {\"entries\": [\n  {\"startedDateTime\": \"2026-01-01T00:00:00.100Z\",\n"
            "   \"request\": {}},\n  {\"startedDateTime\":\"2026-01-01T00:00:00.350Z\"}\n]}}\n",
            "0|250"},
           {"records out of order within --trace-reorder are sorted", "auto",
            "time\n10.0\n9.5\n10.2\n9.8\n", "0|300|500|700"},
           {"equal times keep the trace's order", "auto", "time,path\n1.0,/a\n1.0,/b\n0.5,/c\n",
            "0 /c|500 /a|500 /b"},
       }) {
    CAPTURE(r.name);
    const Read got = read_all(r.text, r.format);
    CHECK(got.error == "");
    CHECK(got.records == r.records);
  }
}

TEST_CASE("trace: bad input names its line and column and how to fix it") {
  struct Row {
    std::string name, format, text, error;
    std::int64_t reorder_ns = kNsPerSec;
  };
  for (const auto& r : std::vector<Row>{
           {"a time that cannot be read", "auto", "tenant,time\na,1.5\nb,1.x\n",
            "line 3, column 3: '1.x' is not a time in seconds or RFC 3339 (e.g. 12.5 or "
            "2026-01-01T00:00:00.5Z): fix the line or cut it out"},
           {"a bad $time_local", "combined",
            R"(h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "-")"
            "\n"
            R"(h - - [10/Xyz/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "-")",
            "line 2, column 8: '10/Xyz/2000:13:55:36 -0700' is not a $time_local time (e.g. "
            "10/Oct/2000:13:55:36 -0700): fix the line or cut it out"},
           {"a line the log format does not match", "combined", "h - - 10/Oct/2000\n",
            "line 1, column 18: expected ' [' here, as the log format has it: give --trace-format "
            "'nginx:<the log_format that wrote the log>'"},
           {"times going back beyond --trace-reorder", "auto", "time\n10\n12\n10.5\n",
            "line 4, column 1: the time goes back 1.5s before line 3's, more than "
            "--trace-reorder 1s allows: sort the trace by time, or raise --trace-reorder to at "
            "least that"},
           {"times going back at all with --trace-reorder 0s", "auto", "time\n10\n9.999\n",
            "line 3, column 1: the time goes back 1ms before line 2's, more than "
            "--trace-reorder 0s allows: sort the trace by time, or raise --trace-reorder to at "
            "least that",
            0},
           {"an empty file", "auto", "",
            "line 0: the trace has no records: give a file with at least one timed line"},
           {"a CSV header alone", "auto", "time,tenant\n\n",
            "line 2: the trace has no records: give a file with at least one timed line"},
           {"a CSV header without a time column", "csv", "when,tenant\n1,a\n",
            "line 1, column 1: the CSV header 'when,tenant' has no time column: name the column "
            "of the arrival times 'time'"},
           {"a CSV line short of a field", "auto", "time,tenant\n1,a\n2\n",
            "line 3, column 1: 1 fields where the header has 2: give every line the header's "
            "columns"},
           {"a CSV line of more fields than the header, and over 255 commas", "auto",
            [] {
              std::string header = "time", line = "1";
              for (int i = 0; i < 299; ++i) header += ",c";
              return header + "\n" + line + std::string(300, ',') + "\n";
            }(),
            "line 2, column 1: 301 fields where the header has 300: give every line the "
            "header's columns"},
           {"tokens that are not a number", "auto", "time,tokens\n1,12k\n",
            "line 2, column 3: '12k' is not a whole number of tokens: write tokens as digits, "
            "e.g. 1200"},
           {"an unknown format", "auto", "hello world\n",
            "line 1, column 1: not a trace format stampede reads (a CSV header with a time "
            "column, a combined or common log line, a log line with a $msec or $time_iso8601 "
            "time, or HAR): give --trace-format csv (a header with a time column), har, "
            "combined, common or 'nginx:<log_format>' (e.g. 'nginx:$remote_addr [$time_local] "
            "$msec \"$request\"')"},
           {"a NUL byte", "auto", std::string("time\n1\n2\0x\n", 11),
            "line 3, column 2: a NUL byte: the trace is not a text file; give a log, CSV or HAR "
            "file"},
           {"bytes that are not UTF-8", "auto", "time,path\n1,/caf\xC3\xA9\n2,/caf\xE9\n",
            "line 3, column 7: a byte that is not UTF-8: the trace is not a text file; give a "
            "log, CSV or HAR file (convert another encoding with iconv -t UTF-8)"},
       }) {
    CAPTURE(r.name);
    CHECK(read_all(r.text, r.format, r.reorder_ns).error == r.error);
  }
}

TEST_CASE("trace: --trace-format names a format or says which it takes") {
  struct Row {
    std::string spec, error;
  };
  for (const auto& r : std::vector<Row>{
           {"auto", ""},
           {"csv", ""},
           {"har", ""},
           {"combined", ""},
           {"nginx:$remote_addr [$time_local] \"$request\"", ""},
           {"json",
            "--trace-format 'json' is not a format: give --trace-format csv (a header with a "
            "time column), har, combined, common or 'nginx:<log_format>' (e.g. "
            "'nginx:$remote_addr [$time_local] $msec \"$request\"')"},
           {"nginx:$remote_addr $status",
            "--trace-format '$remote_addr $status' has no time: add $time_local, $msec or "
            "$time_iso8601"},
           {"nginx:$msec$status",
            "--trace-format: $msec and $status have nothing between them in '$msec$status': a "
            "log line could not be split there"},
           {"nginx:$msec ${status",
            "--trace-format: no variable name at column 7 of '$msec ${status': write $name or "
            "${name}"},
       }) {
    CAPTURE(r.spec);
    const auto parsed = TraceFormat::parse(r.spec);
    CHECK((parsed ? std::string() : parsed.error()) == r.error);
  }
}

TEST_CASE("trace: a line longer than the bound is refused without reading it whole") {
  Endless bytes('x');
  std::istream in(&bytes);
  TraceReader reader(in, {});
  CHECK_FALSE(reader.next());
  CHECK(reader.error() ==
        "line 1 is longer than 1 MiB: this is not a log, CSV or HAR file with one record a "
        "line; give one");

  std::istringstream exact(std::string(16, 'a') + "\n" + std::string(17, 'b') + "\n");
  TraceLines lines(exact, 16);
  CHECK(lines.next() == std::string(16, 'a'));
  CHECK_FALSE(lines.next());
  CHECK(lines.error() ==
        "line 2 is longer than 16 bytes: this is not a log, CSV or HAR file with one record a "
        "line; give one");
}

TEST_CASE("trace: lines end at \\n or \\r\\n, the last one with or without") {
  std::istringstream in("a\r\n\nb\nc");
  TraceLines lines(in);
  std::vector<std::string> got;
  while (const auto line = lines.next()) got.emplace_back(*line);
  CHECK(got == std::vector<std::string>{"a", "", "b", "c"});
  CHECK(lines.error() == "");
  CHECK(lines.line() == 4);
}

TEST_CASE("trace: a NUL or a byte not UTF-8 is named wherever its block and line fall") {
  // Three blocks and more of lines: text not ASCII (valid UTF-8) here and there, and the bad
  // byte late, so the reads before it are checked a block at a time and its line whole.
  const std::string ascii = "1767225600.000 GET /v1/chat HTTP/1.1\n";
  std::string text;
  std::int64_t lines = 0;
  for (; text.size() < (std::size_t{3} << 20) + 12345; ++lines)
    text += lines % 10007 == 5 ? "1767225600.000 GET /caf\xC3\xA9\r\n" : ascii;
  struct Row {
    std::string bad, error;
  };
  for (const auto& r : std::vector<Row>{
           {std::string("x\0y", 3), "column 2: a NUL byte"},
           {"caf\xC3\xA9 \xE9t\xC3", "column 7: a byte that is not UTF-8"},
           {"ok \xE9", "column 4: a byte that is not UTF-8"},
       }) {
    CAPTURE(r.error);
    std::istringstream in(text + r.bad + "\n" + ascii);
    TraceLines read(in);
    std::int64_t good = 0;
    while (read.next()) ++good;
    CHECK(good == lines);
    CHECK(read.error().starts_with("line " + std::to_string(lines + 1) + ", " + r.error));
  }
  std::istringstream in(text);
  TraceLines read(in);
  std::string_view last;
  while (const auto line = read.next()) last = *line;
  CHECK(read.error() == "");
  CHECK(read.line() == lines);
}

TEST_CASE("trace: count() reads every record once, unsorted, with next()'s errors") {
  struct Row {
    std::string name, text;
  };
  for (const auto& r : std::vector<Row>{
           {"in order", "time\n1\n2\n2\n3.5\n"},
           {"back within --trace-reorder", "time\n10\n10.5\n10.2\n11\n10.4\n"},
           {"back beyond it", "time\n10\n12\n10.5\n13\n"},
           {"a time that cannot be read", "time,tenant\n1,a\n1.x,b\n"},
           {"blank lines and a header alone", "time\n\n\n"},
           {"an empty file", ""},
           {"a $msec log",
            "h - - [01/Jan/2026:00:00:00 +0000] \"GET / HTTP/1.1\" 1767225600.250\n"
            "h - - [01/Jan/2026:00:00:00 +0000] \"GET / HTTP/1.1\" 1767225600.001\n"},
       }) {
    CAPTURE(r.name);
    const Read sorted = read_all(r.text);
    std::istringstream in(r.text);
    TraceReader reader(in, {});
    const auto count = reader.count();
    CHECK(reader.error() == sorted.error);
    CHECK(count.has_value() == sorted.error.empty());
    if (count) CHECK(*count == std::count(sorted.records.begin(), sorted.records.end(), '|') + 1);
  }
}

TEST_CASE("trace: times only keeps each record's time, tokens and tenant, not method or path") {
  const std::string csv = "time,tenant,tokens,method,path\n1.5,acme,120,POST,/v1/chat\n";
  const std::string log =
      "h - - [01/Jan/2026:00:00:00 +0000] \"GET /a HTTP/1.1\" 200 5 \"-\" \"-\" 1767225600.250\n";
  for (const auto& text : {csv, log}) {
    for (const bool times_only : {false, true}) {
      std::istringstream in(text);
      TraceReader reader(in, {TraceFormat{}, kNsPerSec, "", "", times_only});
      const auto r = reader.next();
      REQUIRE(r);
      CHECK(r->line == 1 + (text == csv));
      CHECK(r->method().empty() == times_only);
      CHECK(r->path().empty() == times_only);
      if (text == csv) {
        // The items' tenants: played, so kept.
        CHECK(r->tenant == "acme");
        CHECK(r->tokens == 120);
      }
    }
  }
}
