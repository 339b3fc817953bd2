#include "request_head.hpp"

#include <algorithm>
#include <string>

#include "http_token.hpp"

namespace stampede {
namespace {

using State = HeadVerdict::State;

HeadVerdict bad(int status, std::string_view reason) {
  return {State::kBad, status, reason};
}

constexpr HeadVerdict kFine{State::kComplete, 0, {}};

// A field value's byte: visible, obs-text, space or tab (RFC 9110 5.5).
bool is_value_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x20 ? u != 0x7F : c == '\t';
}

// A request target's byte: visible ASCII (RFC 9112 3.2's forms need no more).
bool is_target_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u > 0x20 && u < 0x7F;
}

HeadVerdict parse_request_line(std::string_view line, RequestHead& head) {
  std::size_t i = 0;
  while (i < line.size() && is_tchar(line[i])) ++i;
  if (i == 0 || i == line.size() || line[i] != ' ')
    return bad(400, "The request line is malformed");
  head.method = line.substr(0, i);
  if (const HeadVerdict v = check_method(head.method); v.state == State::kBad) return v;
  const std::size_t target_start = ++i;
  while (i < line.size() && is_target_char(line[i])) ++i;
  if (i == target_start || i == line.size() || line[i] != ' ')
    return bad(400, "The request line is malformed");
  head.target = line.substr(target_start, i - target_start);
  const std::string_view version = line.substr(i + 1);
  if (version == "HTTP/1.1") return kFine;
  if (version == "HTTP/1.0") {
    head.http_1_0 = true;
    return kFine;
  }
  const bool well_formed = version.size() == 8 && version.starts_with("HTTP/") &&
                           version[5] >= '0' && version[5] <= '9' && version[6] == '.' &&
                           version[7] >= '0' && version[7] <= '9';
  return well_formed ? bad(505, "Only HTTP/1.0 and HTTP/1.1 are served")
                     : bad(400, "The request line is malformed");
}

HeadVerdict parse_field_line(std::string_view line, RequestHead& head) {
  std::size_t i = 0;
  while (i < line.size() && is_tchar(line[i])) ++i;
  if (i == 0 || i == line.size() || line[i] != ':')
    return bad(400, "A header line is not a name, a colon and a value");
  if (!is_field_value(line.substr(i + 1)))
    return bad(400, "A header value holds a control character");
  // Leading spaces and tabs dropped, trailing ones kept: the readers trim the rest (trim_ows),
  // and check_framing sees the trailing ones (a "chunked " it refuses).
  std::string_view value = line.substr(i + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  head.fields.push_back({line.substr(0, i), value});
  return kFine;
}

// The head's lines, each ended by CR LF; end: where its blank line starts.
HeadVerdict parse_lines(std::string_view bytes, std::size_t start, std::size_t end,
                        RequestHead& head) {
  std::size_t pos = start;
  bool first = true;
  while (pos < end) {
    const std::size_t eol = bytes.find("\r\n", pos);
    const std::string_view line = bytes.substr(pos, eol - pos);
    if (line.find('\n') != std::string_view::npos) return bad(400, "A line ends without CR");
    const HeadVerdict v = first ? parse_request_line(line, head) : parse_field_line(line, head);
    if (v.state == State::kBad) return v;
    first = false;
    pos = eol + 2;
  }
  return kFine;
}

}  // namespace

HeadVerdict check_method(std::string_view method) {
  if (!is_http_token(method)) return bad(400, "The request line is malformed");
  // Case-sensitive, as methods are (RFC 9110 9.1).
  if (method == "CONNECT") return bad(405, "CONNECT is not served: nothing is tunnelled here");
  return kFine;
}

bool is_request_target(std::string_view target) {
  return !target.empty() && std::all_of(target.begin(), target.end(), is_target_char);
}

bool is_field_value(std::string_view value) {
  return std::all_of(value.begin(), value.end(), is_value_char);
}

HeadVerdict check_tenant_fields(std::size_t fields_named) {
  return fields_named > 1 ? bad(400, "The tenant header is repeated: send it once") : kFine;
}

std::size_t count_fields(const RequestHead& head, std::string_view name) {
  return static_cast<std::size_t>(
      std::count_if(head.fields.begin(), head.fields.end(),
                    [name](const HeadField& f) { return ascii_iequals(f.name, name); }));
}

const std::string_view* RequestHead::find(std::string_view name) const {
  for (const HeadField& f : fields) {
    if (ascii_iequals(f.name, name)) return &f.value;
  }
  return nullptr;
}

HeadVerdict parse_request_head(std::string_view bytes, std::size_t max_size, RequestHead& head) {
  std::size_t start = 0;
  while (bytes.substr(start, 2) == "\r\n") start += 2;
  const std::size_t blank =
      start == bytes.size() ? std::string_view::npos : bytes.find("\r\n\r\n", start);
  if (blank == std::string_view::npos) {
    if (bytes.size() > max_size) return bad(431, "The request's head is too long");
    return {State::kIncomplete, 0, {}};
  }
  head.size = blank + 4;
  if (head.size > max_size) return bad(431, "The request's head is too long");
  head.fields.clear();
  head.http_1_0 = false;
  // The blank line's CR LF ends the last field line too.
  const HeadVerdict v = parse_lines(bytes, start, blank + 2, head);
  if (v.state == State::kBad) return v;
  if (!head.http_1_0 && !head.find("Host")) return bad(400, "HTTP/1.1 needs a Host header");
  return kFine;
}

bool keeps_alive(const RequestHead& head) {
  const std::string_view* connection = head.find("Connection");
  if (!connection) return !head.http_1_0;
  // Options (RFC 9110 7.6.1): close wins; keep-alive matters only to HTTP/1.0.
  if (has_list_token(*connection, "close")) return false;
  return !head.http_1_0 || has_list_token(*connection, "keep-alive");
}

std::string_view request_path(std::string_view target, std::string& scratch) {
  const std::string_view path = target.substr(0, target.find('?'));
  if (path.find('%') == std::string_view::npos) return path;
  scratch.clear();
  for (std::size_t i = 0; i < path.size(); ++i) {
    const int hi = i + 2 < path.size() && path[i] == '%' ? hex_digit_value(path[i + 1]) : -1;
    const int lo = hi >= 0 ? hex_digit_value(path[i + 2]) : -1;
    if (lo >= 0) {
      scratch += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      scratch += path[i];
    }
  }
  return scratch;
}

}  // namespace stampede
