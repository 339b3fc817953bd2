#include "strict_json.hpp"

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
  json j = json::parse(text.begin(), text.end(), watch, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Parsed<json>::fail("is not valid JSON");
  if (!duplicate.empty())
    return Parsed<json>::fail("has the key '" + duplicate +
                              "' twice; JSON keeps one of them silently, so give it once");
  return Parsed<json>::ok(std::move(j));
}

}  // namespace stampede
