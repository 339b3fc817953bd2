#pragma once
// Owning handles for libcurl's easy handles and header lists, for the one-shot requests (the
// probe, the provider's admin API, the TLS check) that hold one of each for a call.
#include <curl/curl.h>

#include <memory>

namespace stampede {

struct CurlEasyDeleter {
  void operator()(CURL* e) const { curl_easy_cleanup(e); }
};
struct CurlListDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using CurlEasy = std::unique_ptr<CURL, CurlEasyDeleter>;
using CurlList = std::unique_ptr<curl_slist, CurlListDeleter>;

}  // namespace stampede
