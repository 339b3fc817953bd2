#pragma once

#include <optional>
#include <string_view>

#include "live/client.hpp"
#include "token_recording.hpp"

namespace stampede {

// The one reader of the answer headers the engine acts on (Retry-After, x-should-retry, the
// rate-limit headers that say a limit is used up and, in occ mode, ETag), fed the name/value pairs
// either transport sees: libcurl's header lines split, or the native parser's kept headers.

// Forgets the last answer's: a new answer (the final one after a 100 Continue too) starts
// over, and a failed answer's headers are not the client's to act on.
void clear_answer_headers(LiveClient& c);

// The limit a rate-limit header says is used up: an anthropic
// anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-remaining or openai
// x-ratelimit-remaining-{requests,tokens} whose value is 0 (name in any case); none for any
// other header or value.
std::optional<TokenLimit> exhausted_limit(std::string_view name, std::string_view value);

// One header of the answer (its name in any case, its value trimmed): kept if the engine acts
// on it, else ignored. The last of a name wins.
void read_answer_header(LiveClient& c, std::string_view name, std::string_view value);

}  // namespace stampede
