#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace stampede {

// A text/event-stream read as its bytes arrive (the HTML standard's event-stream
// interpretation), for a client that reads an LLM's streamed answer: lines end at LF, CR or
// CRLF (a CR at the end of one read and the LF at the start of the next are one line end),
// a line starting with ':' is a comment, "event" names the event, each "data" line adds a line
// to its data (joined by LF), "id" and "retry" are read past, and a blank line dispatches the
// event, unless it has no data. Pure: no I/O, and the bytes may be split anywhere.
class SseReader {
 public:
  // A line longer than this is no event stream a client should buffer without end.
  static constexpr std::size_t kMaxLine = 64 * 1024;

  struct Event {
    std::string_view name;  // "message" when no event line named it
    std::string_view data;
  };

  // Reads n more bytes, calling on_event(const Event&) for each event they complete, in order
  // (the views hold until the call returns). False once a line is past kMaxLine: the stream
  // is malformed, and nothing more is read.
  template <typename OnEvent>
  bool feed(std::string_view bytes, OnEvent&& on_event);
  bool failed() const { return failed_; }

 private:
  // A whole line (without its end): true when it dispatched an event (then event() is it).
  bool end_line();
  Event event() const;
  void clear_event();

  std::string line_;
  std::string name_;
  std::string data_;
  bool has_data_ = false;
  bool after_cr_ = false;  // the last byte was a CR: an LF next ends no line of its own
  bool failed_ = false;
};

template <typename OnEvent>
bool SseReader::feed(std::string_view bytes, OnEvent&& on_event) {
  for (std::size_t at = 0; at < bytes.size() && !failed_;) {
    const char c = bytes[at];
    if (c == '\n' && after_cr_) {
      after_cr_ = false;
      ++at;
      continue;
    }
    after_cr_ = false;
    if (c == '\r' || c == '\n') {
      after_cr_ = c == '\r';
      ++at;
      if (end_line()) {
        on_event(event());
        clear_event();
      }
      continue;
    }
    // The rest of the line, up to its end or the read's, in one append.
    const auto end = std::min(bytes.find_first_of("\r\n", at), bytes.size());
    line_.append(bytes.substr(at, end - at));
    at = end;
    failed_ = line_.size() > kMaxLine;
  }
  return !failed_;
}

}  // namespace stampede
