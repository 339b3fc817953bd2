#include "live/http/transport_error.hpp"

#include "enum_table.hpp"

namespace stampede {
namespace {

constexpr EnumTable<TransportError, 11> kNames{{
    {TransportError::kNone, ""},
    {TransportError::kRefused, "refused"},
    {TransportError::kResolve, "resolve"},
    {TransportError::kSendFailed, "send_failed"},
    {TransportError::kReset, "reset"},
    {TransportError::kNoAnswer, "no_answer"},
    {TransportError::kBadResponse, "bad_response"},
    {TransportError::kTimeout, "timeout"},
    {TransportError::kTls, "tls"},
    {TransportError::kAborted, "aborted"},
    {TransportError::kOther, "other"},
}};

}  // namespace

std::string_view transport_error_name(TransportError e) {
  return enum_name(kNames, e);
}

bool is_refusal(TransportError e) {
  return e == TransportError::kRefused || e == TransportError::kResolve;
}

}  // namespace stampede
