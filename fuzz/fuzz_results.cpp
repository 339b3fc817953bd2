// A results file given to `loadgen report`: whatever JSON it holds, it is either refused with
// a message or read into results that render to a report, never a crash.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "html_report.hpp"
#include "results.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  const auto results = stampede::results_from_json(j);
  if (!results) {
    if (results.error().empty()) std::abort();
    return 0;
  }
  if (stampede::render_report({*results}, {"fuzz"}).empty()) std::abort();
  return 0;
}
