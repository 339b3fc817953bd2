#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/admitter.hpp"

namespace stampede {

// What a data-plane worker and the process owning the provider say to each other
// (fakeprovider --processes): frames of a 4-byte length, a kind and a payload. Both ends are
// one binary, forked, so fixed-size parts go as their bytes; strings follow them.
enum class FrameKind : std::uint8_t {
  kAdmit = 1,     // worker: arrivals to decide, in order
  kAdmitted = 2,  // owner: one admission per arrival
  kNote = 3,      // worker: an UpstreamNote, no answer
  kHop = 4,       // worker: draw a network hop
  kHopDrawn = 5,  // owner: the hop, an int64
};

inline constexpr std::size_t kFrameHeaderBytes = 5;
// A batch of arrivals is bounded by the connections a worker holds; this bounds a frame a
// broken peer could announce.
inline constexpr std::uint32_t kMaxFramePayload = 256u << 20;

struct UpstreamNote {
  AdmissionTicket ticket;
  int upstream = 0;
};

struct FrameHeader {
  FrameKind kind;
  std::uint32_t payload_bytes;
};
// The header's kind and length; none when the kind is unknown or the length past the bound.
std::optional<FrameHeader> read_frame_header(std::string_view header);

std::string arrivals_frame(std::span<const ProviderArrival> arrivals);
std::string admissions_frame(std::span<const Admission> admissions);
std::string note_frame(const UpstreamNote& note);
std::string hop_frame();
std::string hop_drawn_frame(std::int64_t hop_ns);

// A payload read back; none when it is not what its kind holds. Arrivals' views point into
// the payload.
std::optional<std::vector<ProviderArrival>> read_arrivals(std::string_view payload);
std::optional<std::vector<Admission>> read_admissions(std::string_view payload);
std::optional<UpstreamNote> read_note(std::string_view payload);
std::optional<std::int64_t> read_hop_drawn(std::string_view payload);

}  // namespace stampede
