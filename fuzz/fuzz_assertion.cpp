// An assertion expression from --assert or a scenario's expectations: any text either parses
// to one that evaluates against any summary, or fails with a message that names the text.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "assertion.hpp"
#include "summary.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  stampede::Summary summary;
  for (const auto& m : stampede::kMetrics) summary.*m.field = in.ConsumeFloatingPoint<double>();
  const std::string text = in.ConsumeRemainingBytesAsString();
  const auto a = stampede::parse_assertion(text);
  if (!a) {
    if (a.error().find("assertion '") != 0) std::abort();
    return 0;
  }
  const auto verdict = stampede::evaluate(*a, summary);
  if (verdict.text != text) std::abort();
  return 0;
}
