// docs/ADMIN_API.md's account of the stats document against what the provider sends.
#include <doctest/doctest.h>

#include <cctype>
#include <map>
#include <set>
#include <string>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"

using namespace support;

namespace {

// The names of a JSON object's members in a doc's example: the text from `"name": {` to its
// closing brace, read for `"key":` (values there are numbers or `...`).
std::set<std::string> example_keys(const std::string& doc, const std::string& name) {
  const auto start = doc.find("\"" + name + "\": {");
  REQUIRE(start != std::string::npos);
  const auto end = doc.find('}', start);
  std::set<std::string> keys;
  for (auto at = doc.find('"', doc.find('{', start)); at < end; at = doc.find('"', at + 1)) {
    const auto close = doc.find('"', at + 1);
    if (doc.compare(close + 1, 1, ":") == 0) keys.insert(doc.substr(at + 1, close - at - 1));
    at = close;
  }
  return keys;
}

// The count in the doc's "`name` ... always all N keys" / "always all N." sentence.
int stated_count(const std::string& doc, const std::string& name) {
  const std::map<std::string, int> words{{"eight", 8},   {"nine", 9},    {"ten", 10},
                                         {"eleven", 11}, {"twelve", 12}, {"thirteen", 13}};
  const auto about = doc.find("`" + name + "`");
  REQUIRE(about != std::string::npos);
  const auto at = doc.find("always all ", about);
  REQUIRE(at != std::string::npos);
  std::string word;
  for (auto i = at + 11; i < doc.size() && std::isalpha(static_cast<unsigned char>(doc[i])); ++i)
    word += doc[i];
  const auto it = words.find(word);
  return it == words.end() ? -1 : it->second;
}

std::set<std::string> member_names(const nlohmann::json& object) {
  std::set<std::string> names;
  for (const auto& [key, value] : object.items()) names.insert(key);
  return names;
}

}  // namespace

TEST_CASE("docs: ADMIN_API.md lists and counts the totals and reasons keys the provider sends") {
  RecordingProvider p({});
  REQUIRE(p.started());
  REQUIRE(http(p.data_port(), "GET", "/", {{"X-Api-Key", "k"}}).status == 200);
  const auto stats = p.stats();
  CHECK(p.stop() == 0);
  const std::string doc = read_file(source_path("docs/ADMIN_API.md"));
  for (const std::string name : {"totals", "reasons"}) {
    CAPTURE(name);
    const auto sent = member_names(stats.at(name));
    CHECK(example_keys(doc, name) == sent);
    CHECK(stated_count(doc, name) == static_cast<int>(sent.size()));
    CHECK(member_names(stats.at("tenants").at("k").at(name)) == sent);
  }
}
