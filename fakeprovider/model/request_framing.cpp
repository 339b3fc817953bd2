#include "model/request_framing.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "http_token.hpp"

namespace stampede {
namespace {

constexpr FramingVerdict kReadable{};

// The codings a request's Transfer-Encoding fields name, in order: a comma list per field,
// empty elements skipped (RFC 9110 5.6.1), a coding's parameters (";q=...") dropped.
std::vector<std::string_view> codings_of(const std::vector<std::string_view>& fields) {
  std::vector<std::string_view> codings;
  for (std::string_view list : fields) {
    while (true) {
      const auto comma = list.find(',');
      const std::string_view element = list.substr(0, comma);
      const std::string_view name = trim_ows(element.substr(0, element.find(';')));
      if (!trim_ows(element).empty()) codings.push_back(name);
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
  }
  return codings;
}

bool is_chunked(std::string_view coding) {
  return ascii_iequals(coding, "chunked");
}

// The body reader is handed a chunked body only when its one Transfer-Encoding field, past the
// leading OWS the head reader drops, is "chunked" to the last byte.
bool reader_frames_chunked(const std::vector<std::string_view>& fields) {
  if (fields.size() != 1) return false;
  const std::string_view v = fields.front();
  const auto start = v.find_first_not_of(" \t");
  return start != std::string_view::npos && is_chunked(v.substr(start));
}

FramingVerdict check_transfer_encoding(const RequestFraming& f) {
  if (f.http_1_0)
    return {400, "Transfer-Encoding in an HTTP/1.0 request: its framing cannot be trusted"};
  if (f.content_length_fields > 0)
    return {400, "Transfer-Encoding and Content-Length together: the body's end is ambiguous"};
  const auto codings = codings_of(f.transfer_encoding);
  if (codings.empty() || !is_chunked(codings.back()))
    return {400, "Transfer-Encoding must end in chunked: the body's end cannot be found"};
  if (std::count_if(codings.begin(), codings.end(), is_chunked) > 1)
    return {400, "Transfer-Encoding names chunked more than once"};
  if (codings.size() > 1)
    return {501, "Transfer-Encoding: only chunked is implemented, with no coding before it"};
  if (!reader_frames_chunked(f.transfer_encoding))
    return {400, "Transfer-Encoding: send the one field 'Transfer-Encoding: chunked'"};
  return kReadable;
}

FramingVerdict check_content_length(const RequestFraming& f) {
  if (f.content_length_fields == 0) return kReadable;
  if (f.content_length_fields > 1) return {400, "Content-Length is repeated"};
  const std::string_view v = trim_ows(f.content_length);
  if (v.empty() || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return {400, "Content-Length must be a decimal number of bytes"};
  return kReadable;
}

}  // namespace

FramingVerdict check_framing(const RequestFraming& framing) {
  return framing.transfer_encoding.empty() ? check_content_length(framing)
                                           : check_transfer_encoding(framing);
}

std::optional<std::uint64_t> declared_length(const RequestFraming& framing) {
  if (framing.content_length_fields == 0) return std::nullopt;
  const std::string_view digits = trim_ows(framing.content_length);
  std::uint64_t n = 0;
  const auto [at, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  return ec == std::errc() && at == digits.data() + digits.size()
             ? n
             : std::numeric_limits<std::uint64_t>::max();
}

}  // namespace stampede
