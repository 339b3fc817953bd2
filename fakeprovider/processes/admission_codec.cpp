#include "processes/admission_codec.hpp"

#include <cstring>
#include <type_traits>

namespace stampede {
namespace {

// An arrival's fixed-size part; its strings follow it, in this order.
struct WireArrival {
  std::uint64_t thread;
  std::int64_t seen_steady_ns;
  SendClaim send;
  DeclaredTokens tokens;
  RowOp row_op;
  bool has_if_match;
  std::uint32_t tenant_bytes;
  std::uint32_t client_id_bytes;
  std::uint32_t if_match_bytes;
};

static_assert(std::is_trivially_copyable_v<WireArrival>);
static_assert(std::is_trivially_copyable_v<Admission>);
static_assert(std::is_trivially_copyable_v<UpstreamNote>);

template <class T>
void append_bytes(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// A frame with its header; the length is filled in by finished().
std::string started(FrameKind kind) {
  std::string out(kFrameHeaderBytes, '\0');
  out[4] = static_cast<char>(kind);
  return out;
}

std::string finished(std::string frame) {
  const auto bytes = static_cast<std::uint32_t>(frame.size() - kFrameHeaderBytes);
  std::memcpy(frame.data(), &bytes, sizeof bytes);
  return frame;
}

// Takes a T off the front of the payload.
template <class T>
bool take(std::string_view& in, T& value) {
  if (in.size() < sizeof value) return false;
  std::memcpy(&value, in.data(), sizeof value);
  in.remove_prefix(sizeof value);
  return true;
}

bool take_text(std::string_view& in, std::uint32_t bytes, std::string_view& text) {
  if (in.size() < bytes) return false;
  text = in.substr(0, bytes);
  in.remove_prefix(bytes);
  return true;
}

// A payload that is a count and that many T.
template <class T>
std::optional<std::vector<T>> read_array(std::string_view in) {
  std::uint32_t count = 0;
  if (!take(in, count) || in.size() != std::size_t{count} * sizeof(T)) return std::nullopt;
  std::vector<T> out(count);
  if (count > 0) std::memcpy(out.data(), in.data(), in.size());
  return out;
}

}  // namespace

std::optional<FrameHeader> read_frame_header(std::string_view header) {
  if (header.size() != kFrameHeaderBytes) return std::nullopt;
  std::uint32_t bytes = 0;
  std::memcpy(&bytes, header.data(), sizeof bytes);
  const auto kind = static_cast<FrameKind>(header[4]);
  if (bytes > kMaxFramePayload || kind < FrameKind::kAdmit || kind > FrameKind::kHopDrawn)
    return std::nullopt;
  return FrameHeader{kind, bytes};
}

std::string arrivals_frame(std::span<const ProviderArrival> arrivals) {
  std::string out = started(FrameKind::kAdmit);
  append_bytes(out, static_cast<std::uint32_t>(arrivals.size()));
  for (const ProviderArrival& a : arrivals) {
    const std::string_view if_match = a.row.if_match.value_or(std::string_view());
    append_bytes(
        out, WireArrival{a.thread, a.seen_steady_ns, a.send, a.tokens, a.row.op,
                         a.row.if_match.has_value(), static_cast<std::uint32_t>(a.tenant.size()),
                         static_cast<std::uint32_t>(a.client_id.size()),
                         static_cast<std::uint32_t>(if_match.size())});
    out.append(a.tenant).append(a.client_id).append(if_match);
  }
  return finished(std::move(out));
}

std::optional<std::vector<ProviderArrival>> read_arrivals(std::string_view in) {
  std::uint32_t count = 0;
  if (!take(in, count) || count > in.size() / sizeof(WireArrival)) return std::nullopt;
  std::vector<ProviderArrival> out(count);
  for (ProviderArrival& a : out) {
    WireArrival w{};
    std::string_view if_match;
    if (!take(in, w) || !take_text(in, w.tenant_bytes, a.tenant) ||
        !take_text(in, w.client_id_bytes, a.client_id) ||
        !take_text(in, w.if_match_bytes, if_match))
      return std::nullopt;
    a.thread = w.thread;
    a.seen_steady_ns = w.seen_steady_ns;
    a.send = w.send;
    a.tokens = w.tokens;
    a.row = RowRequest{w.row_op, w.has_if_match ? std::optional(if_match) : std::nullopt};
  }
  if (!in.empty()) return std::nullopt;
  return out;
}

std::string admissions_frame(std::span<const Admission> admissions) {
  std::string out = started(FrameKind::kAdmitted);
  append_bytes(out, static_cast<std::uint32_t>(admissions.size()));
  out.append(reinterpret_cast<const char*>(admissions.data()), admissions.size_bytes());
  return finished(std::move(out));
}

std::optional<std::vector<Admission>> read_admissions(std::string_view payload) {
  return read_array<Admission>(payload);
}

std::string note_frame(const UpstreamNote& note) {
  std::string out = started(FrameKind::kNote);
  append_bytes(out, note);
  return finished(std::move(out));
}

std::optional<UpstreamNote> read_note(std::string_view payload) {
  UpstreamNote note;
  if (!take(payload, note) || !payload.empty()) return std::nullopt;
  return note;
}

std::string hop_frame() {
  return finished(started(FrameKind::kHop));
}

std::string hop_drawn_frame(std::int64_t hop_ns) {
  std::string out = started(FrameKind::kHopDrawn);
  append_bytes(out, hop_ns);
  return finished(std::move(out));
}

std::optional<std::int64_t> read_hop_drawn(std::string_view payload) {
  std::int64_t hop_ns = 0;
  if (!take(payload, hop_ns) || !payload.empty()) return std::nullopt;
  return hop_ns;
}

}  // namespace stampede
