#include "live/occ.hpp"

#include "etag.hpp"

namespace stampede {

std::optional<std::uint64_t> LiveOcc::read_version() const {
  return parse_etag(etag);
}

}  // namespace stampede
