#include <doctest/doctest.h>

#include "url_redaction.hpp"

using stampede::redact_url;

TEST_CASE("redact_url removes userinfo and the values of key-like query parameters") {
  struct Case {
    const char* given;
    const char* written;
  };
  const Case cases[] = {
      {"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"},
      {"http://user:secret@127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"},
      {"https://user@staging.example/v1", "https://staging.example/v1"},
      // A password with an '@' of its own: the last one ends the userinfo.
      {"http://u:p@ss@host/x", "http://host/x"},
      {"http://u:p@[::1]:9/", "http://[::1]:9/"},
      // An '@' in the path or query is not userinfo.
      {"http://host/a@b?c=d@e", "http://host/a@b?c=d@e"},
      {"http://host/v1?api_key=abc&n=2", "http://host/v1?api_key=REDACTED&n=2"},
      {"http://host/v1?n=2&Access-Token=abc#frag", "http://host/v1?n=2&Access-Token=REDACTED#frag"},
      {"http://host/v1?X-Amz-Signature=ff&sessionid=1&passwd=p&pwd=q&auth=z",
       "http://host/v1?X-Amz-Signature=REDACTED&sessionid=REDACTED&passwd=REDACTED&pwd=REDACTED&"
       "auth=REDACTED"},
      {"http://host/v1?key", "http://host/v1?key"},
      {"http://host/v1?", "http://host/v1?"},
      // Not a URL at all (an error message quotes what it was given): still no userinfo.
      {"user:secret@host:80", "host:80"},
      {"localhost:8080", "localhost:8080"},
      {"", ""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.given);
    CHECK(redact_url(c.given) == c.written);
  }
}
