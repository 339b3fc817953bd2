#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stampede {

// occ mode's entity tags, as fakeprovider sends them and loadgen sends them back: a row's
// version, quoted.

// The entity tag of a version, quoted: "7".
std::string format_etag(std::uint64_t version);
// A strong entity tag holding a version ("7", with its quotes); none for anything else.
std::optional<std::uint64_t> parse_etag(std::string_view text);
// If-Match "*": any version matches (RFC 9110 13.1.1).
bool etag_matches_any(std::string_view if_match);

}  // namespace stampede
