#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "live/client.hpp"

namespace stampede {

// "stampede-loadgen/VERSION": what both clients send as User-Agent unless the user names one.
const char* user_agent();

// What a client's attempts ask, whichever transport writes them: the method, the target, the
// header lines and the body. Built once per client from the request and the client (the
// user's lines, the tenant's key, X-Client-Id), its attempt lines rewritten in place for each
// send (X-Attempt, X-Request-Id, If-Match; the occ cycle's method and body) without
// allocating. The native client serialises it to bytes, the libcurl one to its header list
// and options: a header added here goes out from both. What libcurl adds by itself (Host,
// User-Agent, Accept, Content-Length, Content-Type) each serialiser adds its own way.
// Sized once where it lives: lines() points into the plan's own storage, as libcurl's header
// list then does.
class RequestPlan {
 public:
  RequestPlan() = default;
  RequestPlan(const RequestPlan&) = delete;
  RequestPlan& operator=(const RequestPlan&) = delete;
  void build(const LiveShared& shared, const LiveClient& c);
  // For c's next send (c.sends, c.item_id, c.occ).
  void next_attempt(const LiveClient& c);

  const char* method() const { return method_; }  // NUL-terminated, for libcurl
  std::string_view target() const { return target_; }
  // Every header line, NUL-terminated, in the order sent: the client's first (the same for
  // all its attempts), then the attempt's. A line with nothing after its colon ("Accept:",
  // and "If-Match:" for an occ read) is one not to send: as libcurl reads it, it drops the
  // header the client would add by itself.
  const std::vector<const char*>& lines() const { return lines_; }
  std::size_t client_line_count() const { return client_lines_; }
  // A body goes, with its Content-Length (0 for an occ write).
  bool has_body() const { return has_body_; }
  std::string_view body() const { return body_; }
  // The request's own body: it takes libcurl's default Content-Type unless a line names one.
  bool form_body() const { return form_body_; }
  // HEAD: the answer has no body.
  bool head() const { return head_; }

 private:
  void set_method(const char* method, bool has_body, std::string_view body, bool form_body);
  void build_sender(const LiveShared& shared, const LiveClient& c);
  void write_sender(const LiveClient& c);

  const char* method_ = "GET";
  std::string_view target_;
  bool has_body_ = false;
  std::string_view body_;
  bool form_body_ = false;
  bool head_ = false;
  bool occ_ = false;
  bool trace_ = false;
  bool per_item_sender_ = false;
  std::vector<const char*> lines_;
  std::size_t client_lines_ = 0;
  std::string client_id_line_;
  std::array<char, 40> attempt_line_{};
  std::array<char, 48> request_id_line_{};
  std::array<char, 40> if_match_line_{};
  // LiveShared::per_item_sender: the item's tenant and tokens lines, rewritten for each send
  // in storage reserved once (the lines point into it); "Name:" when there is none to send.
  std::string tenant_prefix_, own_tenant_line_, tenant_line_;
  std::string tokens_prefix_, own_tokens_line_, tokens_line_;
};

// Whether a header line ("Name: value") has the name `lower_name`, in any case.
bool line_names(std::string_view line, std::string_view lower_name);

// "Name:" with nothing after it: as libcurl reads it, leave that header out.
bool removes_header(std::string_view line);

}  // namespace stampede
