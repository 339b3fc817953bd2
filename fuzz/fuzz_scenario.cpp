// A scenario file's text: whatever it holds, the parser and validate() answer with a scenario
// or errors, never a crash; and a scenario that validates writes out (to_json, as results
// files carry it) to JSON that reads back and validates again.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  const auto s = stampede::scenario_from_json(j);
  if (!s) {
    if (s.error().empty()) std::abort();
    return 0;
  }
  if (!stampede::validate(*s).empty()) return 0;
  const auto written =
      stampede::to_json(*s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const auto back = stampede::scenario_from_json(nlohmann::json::parse(written));
  if (!back || !stampede::validate(*back).empty()) std::abort();
  return 0;
}
