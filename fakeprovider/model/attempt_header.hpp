#pragma once

namespace stampede {

// X-Attempt, the client's send number: 1 for a first send. Absent (null), or anything but a
// whole number from 1 up, counts as a first send: a client cannot make the provider fail by
// what it puts there.
int parse_attempt(const char* text);

}  // namespace stampede
