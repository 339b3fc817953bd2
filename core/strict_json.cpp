#include "strict_json.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace stampede {
namespace {

using json = nlohmann::json;

// The objects being read, outermost first: the keys each has had, and the last of them (the
// name of the value being read, for the path).
struct OpenObject {
  std::set<std::string> keys;
  std::string last;
};

std::string path_of(const std::vector<OpenObject>& open, const std::string& key) {
  std::string path;
  for (std::size_t i = 0; i + 1 < open.size(); ++i) path += open[i].last + ".";
  return path + key;
}

// "line 3, column 5" of the byte nlohmann's parse error stopped at (1-based, as an editor
// counts), so a person goes straight to the slip instead of reading the whole file.
std::string where(std::string_view text, std::size_t byte) {
  const auto end = std::min(byte, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i + 1 < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// The parser's own words without its "[json.exception.parse_error.101] parse error at line
// 3, column 5: " prefix: what it expected, in terms a person can act on.
std::string what_was_wrong(const json::parse_error& e) {
  std::string what = e.what();
  const auto colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

}  // namespace

Parsed<json> parse_strict_json(std::string_view text) {
  std::vector<OpenObject> open;
  std::string duplicate;
  // Inside an array an object's keys are its own; the array's index is not in the path.
  const json::parser_callback_t watch = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) open.emplace_back();
    if (event == json::parse_event_t::object_end && !open.empty()) open.pop_back();
    if (event == json::parse_event_t::key && !open.empty()) {
      auto key = parsed.get<std::string>();
      if (!open.back().keys.insert(key).second && duplicate.empty()) duplicate = path_of(open, key);
      open.back().last = std::move(key);
    }
    return true;
  };
  json j;
  try {
    j = json::parse(text.begin(), text.end(), watch);
  } catch (const json::parse_error& e) {
    return Parsed<json>::fail("is not valid JSON: at " + where(text, e.byte) + ", " +
                              what_was_wrong(e) +
                              "; fix the text there (a trailing comma, a missing quote or "
                              "brace are the usual slips)");
  }
  if (!duplicate.empty())
    return Parsed<json>::fail("has the key '" + duplicate +
                              "' twice; JSON keeps one of them silently, so give it once");
  return Parsed<json>::ok(std::move(j));
}

}  // namespace stampede
