#pragma once

#include <string_view>

namespace stampede {

// The key a header value names a tenant (or a client) by. For Authorization it is the
// credential, not the whole value: the token after "Bearer " (OpenAI and most APIs), or the
// access key id of an AWS Signature V4 ("AWS4-HMAC-SHA256 Credential=AKID/date/..."), whose
// signature changes with every request. Any other header, any other scheme, or a credential
// that is empty: the whole value. Spaces and tabs around the value or the credential are not
// part of it (RFC 9110 OWS). A view into value: nothing is copied.
std::string_view credential_key(std::string_view header_name, std::string_view value);

}  // namespace stampede
