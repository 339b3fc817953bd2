#include "cli/run_stream.hpp"

#include "http/llm_stream.hpp"
#include "policy/llm_request_body.hpp"
#include "sim/fleet_llm_ask.hpp"

namespace stampede {
namespace {

// The flag that made the fleet's requests LLM requests.
std::string llm_flag(const Scenario& s) {
  return s.fleet.stream ? "--stream" : "--max-tokens";
}

std::string dialect_error(const std::string& flag, Dialect dialect, bool from_provider) {
  return flag + ": " +
         (from_provider ? "the provider at --provider-admin speaks"
                        : "the scenario's provider is") +
         " the " + std::string(to_string(dialect)) +
         " dialect, which has no LLM answers; loadgen sends LLM requests in the anthropic and "
         "openai dialects (docs/LLM.md): " +
         (from_provider ? "start the fakeprovider with --dialect anthropic or --dialect openai"
                        : "point --provider-admin at a fakeprovider started with --dialect "
                          "anthropic or openai, or set provider.dialect in the --scenario file");
}

}  // namespace

std::optional<std::string> stream_args_error(const RunArgs& a, const RunCommand& cmd) {
  const std::string flag = llm_flag(cmd.scenario);
  if (!a.method.empty() || !a.body.empty())
    return std::string(a.body.empty() ? "--method" : "--body") + ": " + flag +
           " sends the dialect's own request (POST, a JSON body with max_tokens and "
           "\"stream\"); leave it out";
  if (cmd.scenario.provider.mode == ProviderMode::kOcc)
    return flag +
           ": occ mode sends its own reads and writes, which are no LLM requests; leave out one "
           "of them";
  // A body answered in one piece libcurl reads as any other.
  const bool curl =
      cmd.options.http_client == HttpClient::kCurl || cmd.request.url.scheme == "https";
  if (cmd.scenario.fleet.stream && curl)
    return std::string("--stream: the libcurl client (") +
           (cmd.request.url.scheme == "https" ? "https://" : "--http-client libcurl") +
           ") does not read streams yet; stream over http:// with --http-client auto or native";
  if (a.output.provider_admin.empty() && !streams_in(cmd.scenario.provider.dialect))
    return dialect_error(flag, cmd.scenario.provider.dialect, false);
  return std::nullopt;
}

std::optional<std::string> simulated_stream_error(const Scenario& scenario) {
  if (!sends_llm_requests(scenario)) return std::nullopt;
  const std::string flag = llm_flag(scenario);
  const Dialect dialect = scenario.provider.dialect;
  if (!streams_in(dialect))
    return flag + ": the scenario's provider is the " + std::string(to_string(dialect)) +
           " dialect, which has no LLM answers; set provider.dialect to anthropic or openai in "
           "the --scenario file (docs/LLM.md)";
  if (scenario.provider.mode == ProviderMode::kOcc)
    return flag +
           ": occ mode sends its own reads and writes, which are no LLM requests; leave out one "
           "of them";
  return std::nullopt;
}

std::optional<std::string> make_stream_request(RunCommand& cmd) {
  const bool llm = sends_llm_requests(cmd.scenario);
  cmd.request.records_tokens = records_token_limits(cmd.scenario, llm);
  if (!llm) return std::nullopt;
  const Dialect dialect = cmd.scenario.provider.dialect;
  if (!streams_in(dialect))
    return dialect_error(llm_flag(cmd.scenario), dialect, cmd.provider_admin.has_value());
  const bool streamed = cmd.scenario.fleet.stream;
  const StreamRequest made = stream_request(dialect, cmd.scenario.fleet.max_tokens, streamed);
  LiveRequest& r = cmd.request;
  if (streamed) r.stream = dialect;
  r.tokens_asked = fleet_token_ask(cmd.scenario);
  r.method = "POST";
  r.body = made.body;
  // A URL that names no path is the API's root: the dialect's endpoint under it.
  if (r.url.target == "/") r.url.target = made.path;
  r.headers.push_back("Content-Type: application/json");
  r.headers.push_back(streamed ? "Accept: text/event-stream" : "Accept: application/json");
  if (dialect == Dialect::kAnthropic) r.headers.push_back("anthropic-version: 2023-06-01");
  return std::nullopt;
}

}  // namespace stampede
