#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cli/run_args.hpp"
#include "cli/run_command.hpp"

namespace stampede {

// loadgen run --stream (docs/LLM.md): every request an LLM request in the provider's dialect,
// its answer read as the event stream it is; with --max-tokens and no --stream, an LLM request
// answered in one body.

// What in the command's flags contradicts LLM requests: a request of the user's (--method,
// --body), occ mode's own requests, the libcurl client when streamed (it reads no stream),
// and, without --provider-admin to say it later, a scenario whose dialect is not an LLM's.
std::optional<std::string> stream_args_error(const RunArgs& a, const RunCommand& cmd);

// simulate --stream: what the simulation cannot stream, the scenario's provider being the
// one it meets: a dialect without streams, occ mode.
std::optional<std::string> simulated_stream_error(const Scenario& scenario);

// Once the provider's dialect is known (the scenario's, or the one --provider-admin enforces,
// adopted): the request every client sends, or why there is none (a dialect loadgen does not
// stream in). Nothing to do without --stream or --max-tokens. Either way, whether the run records
// its token limits (the token_limits section) and, for LLM requests, what each asks of them.
std::optional<std::string> make_stream_request(RunCommand& cmd);

}  // namespace stampede
