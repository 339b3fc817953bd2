#include "cli/run_args.hpp"

#include <optional>
#include <utility>

#include "cli/run_stream.hpp"
#include "cli/trace_input.hpp"
#include "enum_table.hpp"
#include "gate.hpp"
#include "policy/llm_request_body.hpp"
#include "scenario_clock.hpp"

namespace stampede {
namespace {

// occ sends its own requests: a method or a body of the user's would be dropped.
std::optional<std::string> occ_request_error(const RunArgs& a, const Scenario& s) {
  if (s.provider.mode != ProviderMode::kOcc || (a.method.empty() && a.body.empty()))
    return std::nullopt;
  return std::string(a.body.empty() ? "--method" : "--body") +
         ": occ mode sends GET, then PUT with If-Match, with no body, to --url (the row, e.g. "
         "http://127.0.0.1:8080/row); leave it out";
}

std::string body_of(const std::string& body, Errors& errors) {
  if (body.size() <= 1 || body.front() != '@') return body;
  return take(read_text_file("--body", body.substr(1)), errors).value_or("");
}

void take_request_line(const RunArgs& a, const Scenario& s, LiveRequest& req, Errors& errors) {
  add_error(occ_request_error(a, s), errors);
  req.body = body_of(a.body, errors);
  req.method = !a.method.empty() ? a.method : req.body.empty() ? "GET" : "POST";
  add_error(method_error(req.method), errors);
  for (const auto& h : a.headers) add_error(header_error(h), errors);
  req.headers = a.headers;
  req.tenant_header = s.provider.tenant_header;
  req.trace_headers = !a.no_trace_headers;
}

// The environment only when no flag names a key: a flag on the command line wins.
void take_api_key(const RunArgs& a, const EnvLookup& env, LiveRequest& req, Errors& errors) {
  const char* env_key = env(kApiKeyEnv);
  const bool from_env =
      a.api_key.empty() && a.api_keys_file.empty() && env_key != nullptr && *env_key != '\0';
  const std::string key = from_env ? env_key : a.api_key;
  if (key.empty()) return;
  if (auto keys = parse_api_keys(key); keys && keys->size() == 1) {
    req.api_keys = *keys;
    return;
  }
  errors.push_back(std::string(from_env ? "--api-key ($STAMPEDE_API_KEY)" : "--api-key") +
                   ": the key is not one key on one line (not echoed: it is a credential)");
}

void take_api_keys_file(const RunArgs& a, LiveRequest& req, Errors& errors) {
  if (a.api_keys_file.empty()) return;
  const auto text = take(read_text_file("--api-keys-file", a.api_keys_file), errors);
  if (!text) return;
  if (auto keys = take(parse_api_keys(*text), errors)) req.api_keys = *keys;
}

// https: the TLS flags, else the CAs the environment names as curl reads it, every file read
// before any load. The flags without TLS to apply them to are a mistake, not a no-op.
std::optional<std::string> tls_error(const RunArgs& a, const EnvLookup& env, LiveRequest& req) {
  const std::string given = a.tls.first_given();
  if (!given.empty() && a.http_client == "native")
    return given + ": the native client speaks plain http; TLS needs --http-client auto or libcurl";
  if (req.url.scheme != "https") {
    if (given.empty()) return std::nullopt;
    return given + ": --url is " + req.url.scheme + "://, which has no TLS; give an https:// " +
           "URL or drop " + given;
  }
  auto tls = resolve_tls(a.tls, env);
  if (!tls) return tls.error();
  if (auto e = check_tls_files(*tls)) return e;
  req.tls = *tls;
  return std::nullopt;
}

// What every client sends; the TLS checks need the URL's scheme, so a bad --url skips them.
void take_request(const RunArgs& a, const Scenario& s, const EnvLookup& env, RunCommand& cmd,
                  Errors& errors) {
  const auto url = take(parse_target_url(a.url), errors);
  if (url) cmd.request.url = *url;
  take_request_line(a, s, cmd.request, errors);
  take_api_key(a, env, cmd.request, errors);
  take_api_keys_file(a, cmd.request, errors);
  if (url) add_error(tls_error(a, env, cmd.request), errors);
}

void take_admin(const FleetOutputArgs& o, RunCommand& cmd, Errors& errors) {
  cmd.provider_admin_token = o.provider_admin_token;
  if (!o.provider_admin.empty())
    cmd.provider_admin = take(parse_target_url(o.provider_admin, "--provider-admin"), errors);
}

void take_shard(const RunArgs& a, const Scenario& s, const EnvLookup& env, RunCommand& cmd,
                Errors& errors) {
  const auto shard = take(shard_from(a.shard, env), errors);
  if (shard && shard->count > s.fleet.clients) {
    errors.push_back("--shard: " + std::to_string(shard->count) + " shards of " +
                     std::to_string(s.fleet.clients) +
                     " clients leave some shard none; use at most as many shards as clients");
  } else if (shard) {
    cmd.shard = *shard;
  }
  if (!a.shard.start_at.empty())
    cmd.start_at_epoch_ns = take("--start-at", parse_start_at(a.shard.start_at), errors);
  cmd.shard_given = !a.shard.shard.empty() || env("JOB_COMPLETION_INDEX") != nullptr;
}

// A shard's summary is its own clients' view; the provider's goes to `loadgen merge`. Every
// run is set against its simulation (a shard against its shard's).
void take_assertions(const RunArgs& a, const std::string& scenario_path, RunCommand& cmd,
                     Errors& errors) {
  const bool provider_view = !a.output.provider_admin.empty() && !cmd.shard.sharded();
  const auto& s = cmd.scenario;
  auto planned = metric_context("run", s.provider, provider_view);
  planned.sim_comparison = true;
  // The provider's own allowance counts: read before any load, the checks are held to it then.
  planned.allowance = planned.allowance || !a.output.provider_admin.empty();
  if (auto checks = take(
          gate_assertions(s.expectations, a.output.asserts, a.expect_none, planned, scenario_path),
          errors))
    cmd.assertions = *checks;
}

// A fakeprovider's scale is read from its admin API before any load (run_command); a real
// server's limits run on the wall clock, which no flag compresses.
std::optional<double> take_time_scale(const RunArgs& a, Errors& errors) {
  const auto scale = take("--time-scale", parse_time_scale(a.time_scale), errors);
  if (scale && *scale != 1 && a.output.provider_admin.empty() && !a.allow_time_scale)
    errors.push_back("--time-scale " + a.time_scale +
                     ": only a fakeprovider (--provider-admin) runs on a scaled clock; a real "
                     "server's limits run on the wall clock, so its windows and Retry-After "
                     "would be misread; give --provider-admin, or --allow-time-scale to scale "
                     "anyway");
  return scale;
}

// The wall-clock bounds; the grace is bounded by the timeout on the wall, which needs the scale.
void take_bounds(const RunArgs& a, std::optional<double> scale, RunCommand& cmd, Errors& errors) {
  const FleetOutputArgs& o = a.output;
  if (auto d = take(positive_duration("--max-duration", o.max_duration), errors))
    cmd.options.max_duration_ns = *d;
  if (!scale) return;
  cmd.options.time_scale = *scale;
  const auto timeout_wall_ns = ScenarioClock(*scale).wall_ns(cmd.scenario.fleet.timeout_ns);
  if (auto g = take(grace_ns(o.grace, timeout_wall_ns), errors)) cmd.options.grace_ns = *g;
}

constexpr EnumTable<HttpClient, 3> kHttpClients{
    {{HttpClient::kAuto, "auto"}, {HttpClient::kNative, "native"}, {HttpClient::kCurl, "libcurl"}}};

void take_http_client(const RunArgs& a, RunCommand& cmd, Errors& errors) {
  const auto client = find_enum(kHttpClients, a.http_client);
  if (!client) {
    errors.push_back("--http-client: '" + a.http_client + "' is not auto, native or libcurl");
    return;
  }
  const std::string& scheme = cmd.request.url.scheme;  // empty when --url was bad
  if (*client == HttpClient::kNative && !scheme.empty() && scheme != "http")
    errors.push_back("--http-client native: the native client speaks plain http, not " + scheme +
                     "; use auto or libcurl");
  cmd.options.http_client = *client;
}

// Before the probe: a path found bad after the run would lose it.
void take_outputs(const RunArgs& a, RunCommand& cmd, Errors& errors) {
  cmd.attempts_path = a.attempts_out;
  take_fleet_outputs(a.output, cmd, errors);
  check_each_output({{"--out", cmd.out_path, true},
                     {"--dead-letter", cmd.dead_letter_path},
                     {"--junit", cmd.junit_path},
                     {"--attempts-out", cmd.attempts_path},
                     {report_flag(a.output.report), cmd.report_path}},
                    errors);
}

// --stream makes the request (run_stream.hpp); what would contradict it is refused here, and
// the dialect once it is known (with --provider-admin, the one the provider enforces).
void take_stream(const RunArgs& a, RunCommand& cmd, Errors& errors) {
  take_stream_flags(a.stream, cmd.scenario);
  if (sends_llm_requests(cmd.scenario)) add_error(stream_args_error(a, cmd), errors);
}

// Beyond one process: how many, and the arguments the workers are given.
void take_processes(const RunArgs& a, RunCommand& cmd) {
  cmd.processes = a.processes;
  cmd.connections_per_source = a.connections_per_source;
  cmd.run_args = a.given;
}

}  // namespace

Checked<RunCommand> check_run(const Scenario& scenario, const std::string& scenario_path,
                              const RunArgs& a, const EnvLookup& env) {
  Errors errors;
  RunCommand cmd;
  cmd.scenario = scenario;
  take_trace(cmd.scenario, errors);
  take_request(a, cmd.scenario, env, cmd, errors);
  take_admin(a.output, cmd, errors);
  take_shard(a, cmd.scenario, env, cmd, errors);
  take_assertions(a, scenario_path, cmd, errors);
  take_bounds(a, take_time_scale(a, errors), cmd, errors);
  cmd.options.loops = a.loops;
  cmd.options.compensate_latency = !a.no_latency_compensation;
  take_http_client(a, cmd, errors);
  take_stream(a, cmd, errors);
  take_outputs(a, cmd, errors);
  take_processes(a, cmd);
  return checked(std::move(cmd), std::move(errors));
}

}  // namespace stampede
