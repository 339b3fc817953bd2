#pragma once

namespace stampede {

// Every exit code loadgen has, one meaning each across its commands (each command's --help
// footer says which of them it can give, docs/RESULTS.md "Exit codes and the JUnit file").

// Every check holds: the assertions, the default expectation 'delivered > 0'; merged; advised.
inline constexpr int kExitOk = 0;
// A check failed (an assertion, the default expectation), a stop left items unfinished, or
// advise --check found no retry round that fits the allowance.
inline constexpr int kExitFailed = 1;
// A usage error, found before any load: a bad flag or file, a check that means nothing for the
// run, a provider at another time scale or not a fakeprovider, more clients or processes than
// the machine's limits allow, CMD not found; merge's files not shards of one run. Or found
// after it: a check the run could not compute or never exercised (core/gate.hpp).
inline constexpr int kExitUsage = 2;
// The target or provider unreachable, a certificate refused, CMD could not be run, the harness
// failed, or a file could not be written.
inline constexpr int kExitUnreachable = 3;

}  // namespace stampede
