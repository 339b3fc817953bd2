#pragma once

#include <string>
#include <string_view>

namespace stampede {

// The text with every byte sequence that is not well-formed UTF-8 (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF) replaced by U+FFFD, one per maximal ill-formed
// subpart as Unicode recommends. For text formats that must be UTF-8 and carry what clients
// sent, such as Prometheus labels (json_text() does the same for JSON documents).
std::string valid_utf8(std::string_view text);

}  // namespace stampede
