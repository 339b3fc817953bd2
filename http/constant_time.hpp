#pragma once

#include <string>

namespace stampede {

// Equal strings, in a time that does not depend on where they first differ: every byte of
// the longer is read, and differences are gathered without a branch. The length is not
// secret (a bearer token's length is no help in guessing it).
bool constant_time_equal(const std::string& a, const std::string& b);

}  // namespace stampede
