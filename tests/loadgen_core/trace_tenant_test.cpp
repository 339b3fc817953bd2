// --trace-tenant and --trace-tokens: which field of a trace is each record's tenant key and
// token count, and the tenant values a header can carry verbatim.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "policy/trace_reader.hpp"

using namespace stampede;

namespace {

// Each record's tenant and tokens, "|" between records, "-" for none.
struct FieldsRead {
  std::string tenants;
  std::string tokens;
  std::string error;
};

FieldsRead read_fields(const std::string& text, const std::string& format,
                       const std::string& tenant, const std::string& tokens = "") {
  const auto parsed = TraceFormat::parse(format);
  REQUIRE_MESSAGE(parsed, parsed.error());
  std::istringstream in(text);
  TraceReader reader(in, {*parsed, kNsPerSec, tenant, tokens});
  FieldsRead out;
  for (bool first = true; const auto r = reader.next(); first = false) {
    const std::string between = first ? "" : "|";
    out.tenants += between + r->tenant.value_or("-");
    out.tokens += between + (r->tokens ? std::to_string(*r->tokens) : "-");
  }
  out.error = reader.error();
  return out;
}

constexpr const char* kCombinedLines =
    R"(10.0.0.1 - alice [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "curl")"
    "\n"
    R"(10.0.0.2 - - [10/Oct/2000:13:55:37 -0700] "GET / HTTP/1.1" 200 5 "-" "curl")"
    "\n";
constexpr const char* kKeyed = R"(nginx:$remote_addr "$http_x_api_key" $msec "$request")";
constexpr const char* kKeyedLines =
    "10.0.0.1 \"key-a\" 1767225600.100 \"GET /v1 HTTP/1.1\"\n"
    "10.0.0.2 \"-\" 1767225600.200 \"GET /v1 HTTP/1.1\"\n"
    "10.0.0.1 \"Bearer sk-9\" 1767225600.300 \"GET /v1 HTTP/1.1\"\n";

}  // namespace

TEST_CASE("trace: --trace-tenant picks the field each record's tenant comes from") {
  struct Row {
    std::string name, format, field, text, tenants;
  };
  for (const auto& r : std::vector<Row>{
           {"a CSV's tenant column by default", "auto", "", "time,tenant\n1,a\n2,b\n", "a|b"},
           {"a CSV without one: none", "auto", "", "time,user\n1,a\n", "-"},
           {"another CSV column", "csv", "user", "time,tenant,user\n1,a,u1\n2,b,u2\n", "u1|u2"},
           {"none: not even the tenant column", "auto", "none", "time,tenant\n1,a\n", "-"},
           {"an empty CSV field: no tenant", "auto", "", "time,tenant\n1,\n2,b\n", "-|b"},
           {"a log has none by default", "combined", "", kCombinedLines, "-|-"},
           {"combined's remote_addr", "combined", "remote_addr", kCombinedLines,
            "10.0.0.1|10.0.0.2"},
           {"combined's remote_user, nginx's '-' is none", "combined", "remote_user",
            kCombinedLines, "alice|-"},
           {"a detected combined log's remote_addr", "auto", "remote_addr", kCombinedLines,
            "10.0.0.1|10.0.0.2"},
           {"an API key the log format captured, inner spaces kept", kKeyed, "http_x_api_key",
            kKeyedLines, "key-a|-|Bearer sk-9"},
       }) {
    CAPTURE(r.name);
    const FieldsRead got = read_fields(r.text, r.format, r.field);
    CHECK(got.error == "");
    CHECK(got.tenants == r.tenants);
  }
}

TEST_CASE("trace: a tenant field the trace does not have, or a value no header carries") {
  struct Row {
    std::string name, format, field, text, error;
  };
  for (const auto& r : std::vector<Row>{
           {"a CSV column not in the header", "auto", "api_key", "time,tenant\n1,a\n",
            "--trace-tenant api_key: the CSV header has no such column; its columns are time, "
            "tenant"},
           {"a variable not in the log format", "combined", "http_x_api_key", kCombinedLines,
            "--trace-tenant http_x_api_key: the log format has no such variable; its variables "
            "are remote_addr, remote_user, time_local, request, status, body_bytes_sent, "
            "http_referer, http_user_agent"},
           {"a log read by its $msec alone", "auto", "remote_addr",
            "10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 1767225600.100\n",
            "--trace-tenant remote_addr: this log is read by its $msec time alone, so its fields "
            "have no names: give --trace-format 'nginx:<the log_format that wrote it>'"},
           {"HAR", "har", "tenant", "{\"startedDateTime\": \"2026-01-01T00:00:00.1Z\"}\n",
            "--trace-tenant tenant: a HAR trace has no field taken as a tenant: give a CSV or a "
            "log, or leave out --trace-tenant"},
           {"a control byte", "auto", "", "time,tenant\n1,a\n2,ke\x01y\n",
            "line 3, column 5: the tenant has the byte 0x01, which a header cannot carry as it "
            "is (visible ASCII and inner spaces only): fix the line or give another "
            "--trace-tenant"},
           {"a CR within the line", kKeyed, "http_x_api_key",
            "10.0.0.1 \"key\rX-Evil: 1\" 1767225600.100 \"GET /v1 HTTP/1.1\"\n",
            "line 1, column 14: the tenant has the byte 0x0D, which a header cannot carry as "
            "it is (visible ASCII and inner spaces only): fix the line or give another "
            "--trace-tenant"},
           {"a tab", "auto", "", "time,tenant\n1,a\tb\n",
            "line 2, column 4: the tenant has the byte 0x09, which a header cannot carry as it "
            "is (visible ASCII and inner spaces only): fix the line or give another "
            "--trace-tenant"},
           {"a byte beyond ASCII", "auto", "", "time,tenant\n1,caf\xC3\xA9\n",
            "line 2, column 6: the tenant has the byte 0xC3, which a header cannot carry as it "
            "is (visible ASCII and inner spaces only): fix the line or give another "
            "--trace-tenant"},
           {"longer than a key", "auto", "", "time,tenant\n1," + std::string(1025, 'k') + "\n",
            "line 2, column 3: the tenant is 1025 bytes, more than the 1024 a tenant key may "
            "have: fix the line or give another --trace-tenant"},
       }) {
    CAPTURE(r.name);
    const FieldsRead got = read_fields(r.text, r.format, r.field);
    CHECK(got.error == r.error);
    CHECK(got.tenants == "");  // refused before its first record
  }
}

TEST_CASE("trace: the longest tenant a header carries is read whole") {
  const std::string key(kMaxTraceTenant, 'k');
  CHECK(read_fields("time,tenant\n1," + key + "\n", "auto", "").tenants == key);
}

namespace {

constexpr const char* kMetered = R"(nginx:$remote_addr $msec "$request" $upstream_http_x_tokens)";
constexpr const char* kMeteredLines =
    "10.0.0.1 1767225600.100 \"POST /v1 HTTP/1.1\" 1200\n"
    "10.0.0.2 1767225600.200 \"POST /v1 HTTP/1.1\" -\n"
    "10.0.0.1 1767225600.300 \"POST /v1 HTTP/1.1\" 0\n";

}  // namespace

TEST_CASE("trace: --trace-tokens picks the field each record's tokens come from") {
  struct Row {
    std::string name, format, field, text, tokens, error;
  };
  for (const auto& r : std::vector<Row>{
           {"a CSV's tokens column by default", "auto", "", "time,tokens\n1,5\n2,7\n", "5|7", ""},
           {"another CSV column", "csv", "cost", "time,tokens,cost\n1,5,50\n2,7,70\n", "50|70", ""},
           {"none: not even the tokens column", "auto", "none", "time,tokens\n1,5\n", "-", ""},
           {"an empty CSV field: none", "auto", "", "time,tokens\n1,\n2,3\n", "-|3", ""},
           {"a log has none by default", kMetered, "", kMeteredLines, "-|-|-", ""},
           {"a log variable, nginx's '-' is none", kMetered, "upstream_http_x_tokens",
            kMeteredLines, "1200|-|0", ""},
           {"a log variable that is not a count", "combined", "remote_user",
            "10.0.0.1 - alice [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5 \"-\" "
            "\"curl\"\n",
            "",
            "line 1, column 12: 'alice' is not a whole number of tokens: write tokens as "
            "digits, e.g. 1200"},
           {"a CSV column not in the header", "auto", "cost", "time,tokens\n1,5\n", "",
            "--trace-tokens cost: the CSV header has no such column; its columns are time, "
            "tokens"},
           {"the time column", "auto", "time", "time,tokens\n1,5\n", "",
            "--trace-tokens time: that is the column of the arrival times: name the column of "
            "the tokens"},
           {"a variable not in the log format", "combined", "upstream_http_x_tokens",
            "10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5 \"-\" "
            "\"curl\"\n",
            "",
            "--trace-tokens upstream_http_x_tokens: the log format has no such variable; its "
            "variables are remote_addr, remote_user, time_local, request, status, "
            "body_bytes_sent, http_referer, http_user_agent"},
           {"HAR", "har", "tokens", "{\"startedDateTime\": \"2026-01-01T00:00:00.1Z\"}\n", "",
            "--trace-tokens tokens: a HAR trace has no field taken as its tokens: give a CSV or "
            "a log, or leave out --trace-tokens"},
       }) {
    CAPTURE(r.name);
    const FieldsRead got = read_fields(r.text, r.format, "", r.field);
    CHECK(got.error == r.error);
    CHECK(got.tokens == r.tokens);
  }
}
