#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stampede {

// The headers in which clients number their own sends, each read to a send number: 1 for the
// first send. A value that is not exactly what the header's sender writes (a bad number, a
// negative one, one beyond an int64, a list) is nullopt, never a guess: the caller counts that
// arrival as unattributed. Spaces and tabs around a value are not part of it (RFC 9110 OWS).

// X-Attempt (loadgen's) and --attempt-header: the send number itself, a whole number from 1.
std::optional<std::int64_t> parse_send_number(std::string_view text);

// X-Stainless-Retry-Count (the OpenAI, Anthropic and other Stainless SDKs): the retries before
// this send, 0 on the first send.
std::optional<std::int64_t> parse_retry_count(std::string_view text);

// amz-sdk-request (the AWS SDKs): "attempt=N; max=M", N from 1. max is optional; an attempt
// beyond it, or a repeated attempt or max, is malformed. Other keys (ttl=...) are skipped.
std::optional<std::int64_t> parse_amz_sdk_request(std::string_view text);

}  // namespace stampede
