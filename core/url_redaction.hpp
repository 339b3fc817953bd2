#pragma once

#include <string>
#include <string_view>

namespace stampede {

// What stampede writes wherever a URL it was given appears (results, reports, dead letters,
// JUnit, stderr): the URL less its credentials. Pure text work, so it takes anything, a URL
// that does not parse included (an error message quotes what it was given):
// - userinfo is removed: "http://user:secret@host:8080/v1" -> "http://host:8080/v1";
// - the value of a query parameter whose name looks like a credential (it contains key,
//   token, secret, passw, pwd, auth, sig, credential or session, in any case) becomes
//   REDACTED: "/v1?api_key=abc&n=2" -> "/v1?api_key=REDACTED&n=2".
// Everything else is kept as given, so the report names the target that was load-tested.
std::string redact_url(std::string_view url);

}  // namespace stampede
