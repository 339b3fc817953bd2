// A Retry-After value is whatever a server sent: any text, at any wall-clock time, is either a
// delay of at least zero or nothing, and never undefined arithmetic on the way.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "http/retry_after_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const auto now_epoch_ns = in.ConsumeIntegral<std::int64_t>();
  const std::string value = in.ConsumeRemainingBytesAsString();
  const auto hint = stampede::parse_retry_after(value, now_epoch_ns);
  if (hint && hint->delay_ns < 0) std::abort();
  stampede::parse_http_date(value);
  return 0;
}
