#include "sse_reader.hpp"

namespace stampede {

bool SseReader::end_line() {
  const std::string_view line = line_;
  if (line.empty()) {
    // A block without data dispatches nothing, and its event name goes with it.
    if (!has_data_) name_.clear();
    return has_data_;
  }
  if (line.front() != ':') {
    const auto colon = line.find(':');
    const std::string_view field = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
    if (value.starts_with(' ')) value.remove_prefix(1);
    if (field == "event") {
      name_.assign(value);
    } else if (field == "data") {
      if (has_data_) data_ += '\n';
      data_.append(value);
      has_data_ = true;
    }
  }
  line_.clear();
  return false;
}

SseReader::Event SseReader::event() const {
  return {name_.empty() ? std::string_view("message") : std::string_view(name_), data_};
}

void SseReader::clear_event() {
  name_.clear();
  data_.clear();
  has_data_ = false;
}

}  // namespace stampede
