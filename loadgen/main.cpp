#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/advise_command.hpp"
#include "cli/exec_args.hpp"
#include "cli/fleet_worker_command.hpp"
#include "cli/fleet_workers.hpp"
#include "cli/gate_command.hpp"
#include "cli/merge_command.hpp"
#include "cli/run_args.hpp"
#include "cli/run_stream.hpp"
#include "cli/simulate_args.hpp"
#include "cli/usage_errors.hpp"
#include "generated/version.hpp"
#include "help_layout.hpp"
#include "last_resort.hpp"
#include "live/http/tls_settings.hpp"
#include "nearest_name.hpp"
#include "old_spelling.hpp"
#include "report_command.hpp"
#include "scenario_flags.hpp"

using namespace stampede;

namespace {

// The scenario file and the flags that override its fields, as given.
struct ScenarioArgs {
  std::string path;
  FlagValues values;  // field -> flag values
};

// Each flag names its --help type where it is added (--max-duration DURATION=1h). Its default
// is the value its member starts with (capture_default_str), or, where the member is empty
// and the command works the default out, the usual one written beside the flag.

// A scenario flag's type and default in --help: its field's.
void describe_value(CLI::Option& opt, const ScenarioField& field) {
  opt.type_name(std::string(field.type));
  if (!field.default_text.empty()) opt.default_str(std::string(field.default_text));
}

void describe_value(CLI::Option& opt, std::string_view field) {
  if (const auto* f = find_field(field)) describe_value(opt, *f);
}

// exec's CMD follows "--", which a list option would take as the end of its own values (and
// then read CMD's flags as loadgen's): there a repeatable flag takes one value each time.
void one_value_each_time(CLI::Option& opt) {
  opt.expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

// A flag's bounds, said in words in its own description: CLI11's "INT in [1 - 1000000]" is
// not for --help.
CLI::Validator within(std::int64_t low, std::int64_t high) {
  return CLI::Range(low, high).description("");
}

// --assert, in every command that judges a fleet.
CLI::Option* add_assert_flag(
    CLI::App& cmd, std::vector<std::string>& asserts,
    const std::string& help =
        "METRIC OP VALUE, e.g. 'peak_ratio <= 2'; repeatable; exit 1 if any fails") {
  return cmd.add_option("--assert", asserts, help)->type_name("'METRIC OP VALUE'");
}

// exec takes the provider's flags and the trace's: the fleet's policy is the program's own.
void add_scenario_flags(CLI::App& cmd, ScenarioArgs& args, bool fleet = true) {
  cmd.add_option("--scenario", args.path, "scenario file (JSON); flags override its fields")
      ->type_name("FILE")
      ->check(CLI::ExistingFile.description(""));
  auto add = [&](const ScenarioField& f, const char* group) {
    auto* opt =
        cmd.add_option(loadgen_flag(f), args.values[std::string(f.name)], std::string(f.help));
    opt->group(group);
    describe_value(*opt, f);
    if (!f.old_flag.empty())
      keep_old_spelling(cmd, *opt, std::string(f.old_flag), args.values[std::string(f.name)],
                        "loadgen");
    if (!fleet) {
      one_value_each_time(*opt);  // the last of a flag given twice still wins, as in run
    } else if (!f.list) {
      opt->expected(1);
    }
  };
  const auto declare = [&](std::string_view section, const char* group) {
    for (const auto& f : scenario_fields()) {
      if (f.section() == section && (f.in & kLoadgen) != 0) add(f, group);
    }
  };
  if (fleet) declare("fleet", "Fleet");
  declare("provider", fleet ? "Provider (simulated)" : "Provider (as started: the summary's peak)");
  if (fleet) return;
  // exec's fleet is the program, but a trace's arrivals can start it (docs/TRACE.md).
  for (const auto name : {std::string_view("fleet.workload"), std::string_view("fleet.seed")})
    add(*find_field(name), "Trace");
  for (const auto name : trace_field_names()) add(*find_field(name), "Trace");
}

Parsed<Scenario> scenario_from(const ScenarioArgs& args) {
  return build_scenario_from_flags(args.path, args.values);
}

const char* from_environment(const char* name) {
  return std::getenv(name);
}

// A command checked from its flags runs; otherwise every error, exit 2.
template <class Command>
int run_checked(const Checked<Command>& checked, int (*run)(const Command&)) {
  return checked.command ? run(*checked.command) : usage_errors(checked.errors);
}

void add_shard_flags(CLI::App& cmd, ShardArgs& args, bool live) {
  cmd.add_option("--shard", args.shard,
                 "run shard I of N (clients with id mod N == I; default JOB_COMPLETION_INDEX and "
                 "STAMPEDE_SHARDS from the environment); merge the shards with 'loadgen merge'")
      ->type_name("I/N")
      ->group(kAdvancedGroup);
  if (!live) return;
  cmd.add_option("--start-at", args.start_at,
                 "begin at this wall-clock time, epoch seconds or RFC 3339, so that every shard "
                 "starts together; a shard past it starts at once and says how late")
      ->type_name("TIME")
      ->envname("STAMPEDE_START_AT")
      ->group(kAdvancedGroup);
}

// Each command's own flags beside the scenario's, which are built into a Scenario first.
struct SimulateFlags : SimulateArgs {
  ScenarioArgs scenario;
};
struct RunFlags : RunArgs {
  ScenarioArgs scenario;
};
struct ExecFlags : ExecArgs {
  ScenarioArgs scenario;
};
struct FleetWorkerFlags : RunFlags {
  std::string dir;  // the supervisor's, for the worker's files
};

int simulate_main(const SimulateFlags& f) {
  auto scenario = scenario_from(f.scenario);
  if (!scenario) return usage_error(scenario.error());
  return run_checked(check_simulate(*scenario, f.scenario.path, f, from_environment),
                     run_simulate_command);
}

int run_main(const RunFlags& f) {
  auto scenario = scenario_from(f.scenario);
  if (!scenario) return usage_error(scenario.error());
  return run_checked(check_run(*scenario, f.scenario.path, f, from_environment), run_run_command);
}

int fleet_worker_main(const FleetWorkerFlags& f) {
  auto scenario = scenario_from(f.scenario);
  if (!scenario) return usage_error(scenario.error());
  return run_checked(check_fleet_worker(*scenario, f.scenario.path, f, f.dir, from_environment),
                     run_fleet_worker);
}

int exec_main(ExecFlags f) {
  // --clients is the fleet's one field here: what the scenario's summary counts items by.
  f.scenario.values["fleet.clients"] = {std::to_string(f.clients)};
  auto scenario = scenario_from(f.scenario);
  if (!scenario) return usage_error(scenario.error());
  return run_checked(check_exec(*scenario, f.scenario.path, f), run_exec_command);
}

int advise_main(const AdviseArgs& a) {
  const auto in = check_advise(a);
  if (!in.command) return usage_errors(in.errors);
  return run_advise_command(*in.command, a.json, a.check);
}

// The help texts that differ: what a dead letter, the bound and the grace are to each command.
struct FleetOutputHelp {
  std::string dead_letter, max_duration, grace, dashboard;
};

void add_fleet_output_flags(CLI::App& cmd, FleetOutputArgs& a, const FleetOutputHelp& help) {
  cmd.add_option("--provider-admin", a.provider_admin,
                 "a fakeprovider's admin URL: take the limits it enforces (provider flags "
                 "given too must say the same; its data port must be --url's), reset it at t=0 "
                 "so both clocks start together, and take its arrival histograms at the end")
      ->type_name("URL")
      ->group("Target");
  cmd.add_option("--provider-admin-token", a.provider_admin_token,
                 "bearer token for the provider's admin API")
      ->type_name("TOKEN")
      ->envname("FAKEPROVIDER_ADMIN_TOKEN")
      ->group("Target");
  cmd.add_option("--max-duration", a.max_duration, help.max_duration)
      ->type_name("DURATION")
      ->capture_default_str()
      ->group("Run");
  // Empty: the command's, 2s (run's at most its --timeout, as its text says).
  cmd.add_option("--grace", a.grace, help.grace)
      ->type_name("DURATION")
      ->default_str("2s")
      ->group("Run");
  cmd.add_option("--out", a.out,
                 "write the results JSON here; '-' writes it to stdout, and the summary then "
                 "goes to stderr (no report beside it: give --report for one)")
      ->type_name("FILE")
      ->group("Output");
  cmd.add_option("--dead-letter", a.dead_letter, help.dead_letter)
      ->type_name("FILE")
      ->group("Output");
  cmd.add_option("--junit", a.junit,
                 "write JUnit XML: a test case per check, and 'run completed' (failed when the "
                 "run was stopped, an error for exit 3)")
      ->type_name("FILE")
      ->group("Output");
  cmd.add_flag("--no-report", a.no_report, "write no HTML report")->group("Output");
  cmd.add_option("--report", a.report, "write the HTML report here (default: beside --out, .html)")
      ->type_name("FILE")
      ->group("Output");
  add_assert_flag(cmd, a.asserts)->group("Output");
  cmd.add_flag("--quiet,-q", a.quiet,
               "no summary, no progress line and no list of the files written; errors only")
      ->group("Output");
  cmd.add_option("--dashboard", a.dashboard, help.dashboard)
      ->type_name("HOST:PORT")
      ->group("Output");
  cmd.add_option("--dashboard-token", a.dashboard_token,
                 "require 'Authorization: Bearer TOKEN' on --dashboard (a browser: open "
                 "/dashboard?token=TOKEN once); needed beyond loopback")
      ->type_name("TOKEN")
      ->envname("LOADGEN_DASHBOARD_TOKEN")
      ->group("Output");
  cmd.add_option("--progress-every", a.progress_every,
                 "when stderr is not a terminal (a CI log): a plain progress line this often, "
                 "in wall time (default 10s; on a terminal the line is redrawn each second)")
      ->type_name("DURATION")
      ->capture_default_str()
      ->group("Output");
}

std::string or_none(const std::string& path) {
  return path.empty() ? "(none)" : path;
}

// The fleet's size and its start: the program's own policy is not loadgen's to set.
void add_exec_fleet_flags(CLI::App& exec_cmd, ExecFlags& a) {
  exec_cmd
      .add_option("--clients", a.clients,
                  "clients in the fleet (1 to 10000000): their ids are 0 .. N-1 ({client}, "
                  "STAMPEDE_CLIENT_ID)")
      ->type_name("INT")
      ->required()
      ->check(within(1, 10'000'000))
      ->group("Fleet");
  exec_cmd
      .add_option("--per-process", a.per_process,
                  "clients each process runs (1 to 10000000; STAMPEDE_PER_PROCESS); its exit "
                  "status is the outcome of all of them (default 1)")
      ->type_name("INT")
      ->capture_default_str()
      ->check(within(1, 10'000'000))
      ->group(kAdvancedGroup);
  exec_cmd
      .add_flag("--wait-ready", a.wait_ready,
                "run each program at once, and release the fleet when every process has written "
                "a byte to $STAMPEDE_READY_FD; each then reads $STAMPEDE_RELEASE_FD to its end "
                "before it sends (default: each process is held before exec and the fleet is "
                "released together, start-up included)")
      ->group(kAdvancedGroup);
}

void add_exec_flags(CLI::App& exec_cmd, ExecFlags& a) {
  add_scenario_flags(exec_cmd, a.scenario, false);
  add_exec_fleet_flags(exec_cmd, a);
  exec_cmd
      .add_option("--url", a.url,
                  "the endpoint the program is to send to: {url} in ARGS and STAMPEDE_URL")
      ->type_name("URL")
      ->required()
      ->group("Target");
  exec_cmd
      .add_option("--time-scale", a.time_scale,
                  "only 1 (default): real programs sleep wall time; the provider must run at 1")
      ->type_name("NUMBER")
      ->capture_default_str()
      ->group(kAdvancedGroup);
  exec_cmd
      .add_option("--timeout", a.timeout,
                  "a process still running this long after the release is stopped like at "
                  "--max-duration, its clients unfinished (default: none)")
      ->type_name("DURATION")
      ->group("Run");
  exec_cmd
      .add_option("--logs", a.logs,
                  "each process's stdout and stderr to DIR/client-ID.log (ID its first client; "
                  "with --workload trace DIR/item-N.log; the folder is made if missing); "
                  "default: read and dropped")
      ->type_name("DIR")
      ->group("Output");
  exec_cmd
      .add_option("--log-limit", a.log_limit,
                  "bytes kept of each process's output (1 to 1073741824, 1 GiB); the rest is "
                  "counted and the log says so (default 65536)")
      ->type_name("BYTES")
      ->capture_default_str()
      ->check(within(1, std::int64_t{1} << 30))
      ->group(kAdvancedGroup);
  add_fleet_output_flags(
      exec_cmd, a.output,
      {"write one JSON line per client not delivered: dead-lettered, then unfinished",
       "wall-clock bound from the start (spawning and readiness included): stop then, "
       "processes still running are unfinished (default 1h)",
       "at a stop, how long a process has between SIGTERM and SIGKILL (default 2s)",
       "serve the live dashboard here, e.g. 127.0.0.1:9090 (port 0: any free one): a page at "
       "http://HOST:PORT/dashboard that draws, each second from the release, the provider's "
       "arrivals by outcome and by send number and the processes' ends, and whose save link "
       "downloads the report of the provider's results so far; the URL is printed on stderr. A "
       "bad address or a port in use is refused before any process starts"});
  exec_cmd.get_option("--provider-admin")->required();
  one_value_each_time(*exec_cmd.get_option("--assert"));
  exec_cmd
      .add_option("CMD", a.command,
                  "CMD [ARGS...] after --; {url} and {client} in ARGS are replaced (with "
                  "--workload trace also {item} and {tenant})")
      ->type_name("ARGS")
      ->required();
}

// Every spelling of a command's flags, dashes included, for the nearest name of a typo.
std::vector<std::string> flag_spellings(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const auto* opt : cmd.get_options()) {
    for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    for (const auto& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// One line, like every other usage error: a mistyped command or flag with the nearest name
// (the likely fix) rather than CLI11's "not expected"; otherwise CLI11's words and where the
// choices are.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e,
                                const std::vector<std::string>& args) {
  // A hidden command (a supervisor's worker) is known, never suggested.
  std::vector<std::string> commands, shown;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    commands.push_back(sub->get_name());
    if (!sub->get_group().empty()) shown.push_back(sub->get_name());
  }
  const std::string first = args.empty() ? "" : args.front();
  const bool known_command = std::find(commands.begin(), commands.end(), first) != commands.end();
  if (!first.empty() && first[0] != '-' && !known_command) {
    const auto near = did_you_mean(first, shown);
    std::string all;
    for (const auto& c : shown) all += (all.empty() ? "" : ", ") + c;
    return "unknown command '" + first + "'" + (near.empty() ? "; the commands are " + all : near) +
           " (see 'loadgen --help')";
  }
  // exec's CMD has flags of its own: before a "--" they are CMD's, not loadgen's typos.
  const bool exec_without_separator =
      first == "exec" && std::find(args.begin(), args.end(), "--") == args.end();
  if (known_command && !exec_without_separator) {
    const auto& cmd = *app.get_subcommand(first);
    if (auto flag = unknown_flag({args.begin() + 1, args.end()}, flag_spellings(cmd)))
      return first + ": " + *flag + " (see 'loadgen " + first + " --help')";
  } else if (!known_command) {
    if (auto flag = unknown_flag(args, flag_spellings(app)))
      return *flag + " (see 'loadgen --help')";
  }
  // A command's own help has its flags; the top one only lists the commands.
  const std::string help = known_command ? "loadgen " + first + " --help" : "loadgen --help";
  return std::string(e.what()) +
         (exec_without_separator ? "; loadgen exec takes CMD and its ARGS after --" : "") +
         " (see '" + help + "')";
}

// --stream and --max-tokens, run's and simulate's: the scenario's fleet.stream and
// fleet.max_tokens, --stream a flag without a value.
void add_stream_flags(CLI::App& cmd, StreamArgs& a, const char* group, const std::string& dialect) {
  cmd.add_flag("--stream", a.stream,
               "every request an LLM request in the provider's dialect (anthropic: POST "
               "/v1/messages; openai: POST /v1/chat/completions), \"stream\": true, its answer "
               "read as its events arrive: time to first token, tokens, a stream broken mid-way "
               "a failure the retry policy retries (docs/LLM.md). " +
                   dialect)
      ->group(group);
  cmd.add_option("--max-tokens", a.max_tokens,
                 "each request's max_tokens (max_completion_tokens for openai), 1 to 1000000 "
                 "(default " +
                     std::to_string(kDefaultMaxTokens) +
                     " with --stream): the bound on its answer, and what the provider's "
                     "output-token allowance reserves until the answer ends (docs/LLM.md, the "
                     "max_tokens trap). Without --stream: every request an LLM request in the "
                     "provider's dialect, answered in one body")
      ->type_name("N")
      ->default_str(std::to_string(kDefaultMaxTokens))  // shown; 0 says it was not given
      ->check(within(1, kMaxOutputTokens))
      ->group(group);
}

CLI::App* add_simulate_command(CLI::App& app, SimulateFlags& sim) {
  auto* simulate = app.add_subcommand(
      "simulate",
      "Simulate a fleet of retrying clients against a rate-limited provider, in virtual time.");
  add_scenario_flags(*simulate, sim.scenario);
  simulate->add_option("--out", sim.out, "write the results JSON here")->type_name("FILE");
  simulate
      ->add_option("--report", sim.report,
                   "write the HTML report here (default: beside --out, .html)")
      ->type_name("FILE");
  simulate->add_flag("--no-report", sim.no_report, "write no HTML report");
  add_assert_flag(*simulate, sim.asserts);
  // Empty: the engine's horizon.
  simulate
      ->add_option("--horizon", sim.horizon,
                   "stop at this scenario time; items still going are unfinished (default 7d)")
      ->type_name("DURATION")
      ->default_str("7d");
  simulate->add_flag("--expect-none", sim.expect_none,
                     "drop the default expectation 'delivered > 0', which fails a simulation "
                     "whose fleet delivered nothing (a policy that gives every item up); default: "
                     "off");
  simulate
      ->add_option("--junit", sim.junit,
                   "write JUnit XML: a test case per check (an error for one the simulation "
                   "cannot judge)")
      ->type_name("FILE");
  simulate->add_flag("--quiet,-q", sim.quiet, "print nothing; exit code and --out only");
  simulate
      ->add_option("--trials", sim.trials,
                   "run N trials (1 to 1000000), trial t with seed --seed + t, and report the "
                   "means of the summary (default 1)")
      ->type_name("INT")
      ->capture_default_str()
      ->check(within(1, 1'000'000))
      ->group(kAdvancedGroup);
  add_stream_flags(*simulate, sim.stream, "Fleet",
                   "Simulated: the --scenario file's provider.dialect (anthropic or openai), "
                   "its answers paced by --first-token, --token-rate, --output-tokens and "
                   "broken by --stream-errors as fakeprovider's are");
  add_shard_flags(*simulate, sim.shard, false);
  simulate->footer(
      "Exit codes: 0 every check holds; 1 one failed (an expectation, --assert, or 'delivered > "
      "0' unless --expect-none); 2 usage error, or a check the simulation cannot judge (a retry "
      "metric of a fleet that never retried); 3 a file could not be written.\n"
      "The same strategy, retry policy and provider model as a live run, deterministic for a "
      "seed, a million clients in seconds.\n"
      "Examples:\n  loadgen simulate --scenario examples/storm.json --strategy exponential "
      "--out storm.json");
  lay_out_help(*simulate,
               {"loadgen simulate --clients 1000 --strategy full-jitter --allowance 100/s "
                "--outage 0s-30s:503",
                {"--clients", "--strategy", "--allowance", "--outage", "--scenario", "--out"}});
  return simulate;
}

// What every client sends, and to where.
void add_run_target_flags(CLI::App* run_cmd, RunFlags& run) {
  run_cmd->add_option("--url", run.url, "the endpoint every client sends to (http or https)")
      ->type_name("URL")
      ->required()
      ->group("Target");
  run_cmd->add_option("--method", run.method, "HTTP method (default GET, or POST with --body)")
      ->type_name("METHOD")
      ->group("Target");
  run_cmd->add_option("--header", run.headers, "'Name: value' sent with every request; repeatable")
      ->type_name("'NAME: VALUE'")
      ->group("Target");
  run_cmd->add_option("--body", run.body, "request body, or @FILE")
      ->type_name("TEXT|@FILE")
      ->group("Target");
  auto* key_opt = run_cmd->add_option("--api-key", run.api_key,
                                      "tenant key, sent in the scenario's tenant header "
                                      "(X-Api-Key by default); without it or --api-keys-file, "
                                      "$STAMPEDE_API_KEY, which keeps the key out of ps on a "
                                      "shared runner");
  key_opt->type_name("KEY")->group("Target");
  // What a live run's peak is measured against: a user pointing at staging looks for it
  // beside the URL, not among the simulated provider's knobs.
  run_cmd->get_option("--allowance")
      ->description(
          "the target's per-tenant allowance, N/s, N/min or N/h: peak_ratio and "
          "peak_retry_ratio measure the live peak against it (and the comparison's simulated "
          "provider enforces it); without it they mean nothing")
      ->group("Target");
  run_cmd
      ->add_option("--api-keys-file", run.api_keys_file,
                   "one key per line; clients take them round-robin (client c: key c mod N)")
      ->type_name("FILE")
      ->check(CLI::ExistingFile.description(""))
      ->excludes(key_opt)
      ->group("Target");
  add_stream_flags(*run_cmd, run.stream, "Target",
                   "The dialect is the scenario's provider.dialect, or the one --provider-admin's "
                   "fakeprovider speaks");
  run_cmd
      ->add_flag("--no-trace-headers", run.no_trace_headers,
                 "do not send X-Client-Id, X-Request-Id (the item) and X-Attempt (the send)")
      ->group("Target");
}

void add_run_tls_flags(CLI::App* run_cmd, RunFlags& run) {
  run_cmd
      ->add_option("--cacert", run.tls.cacert,
                   "https: trust the CA certificates in this PEM file (a private CA's, say) "
                   "instead of libcurl's default bundle. Default, as curl: $CURL_CA_BUNDLE, "
                   "else $SSL_CERT_DIR (as --capath), else $SSL_CERT_FILE, the first set; any "
                   "of --cacert, --capath or --insecure makes loadgen read none of them; "
                   "without any, libcurl's " +
                       or_none(libcurl_default_ca_file()))
      ->type_name("FILE")
      ->group("TLS (https)");
  run_cmd
      ->add_option("--capath", run.tls.capath,
                   "https: trust the CA certificates in this directory, named by their OpenSSL "
                   "hashes ('openssl rehash DIR'); several joined by ':'. Default: libcurl's " +
                       or_none(libcurl_default_ca_path()))
      ->type_name("DIR")
      ->group("TLS (https)");
  run_cmd
      ->add_flag("--insecure,-k", run.tls.insecure,
                 "https: do not verify the server's certificate or its name (still encrypted); "
                 "not with --cacert or --capath. Default: verify")
      ->group("TLS (https)");
  run_cmd
      ->add_option("--cert", run.tls.cert,
                   "https: present this client certificate (PEM) for mutual TLS; its key from "
                   "--key, or from this file when it holds the key too. Default: none")
      ->type_name("FILE")
      ->group("TLS (https)");
  run_cmd
      ->add_option("--key", run.tls.key,
                   "the --cert certificate's private key (PEM, unencrypted: nothing can type a "
                   "passphrase in CI; keep the file private). Never printed")
      ->type_name("FILE")
      ->group("TLS (https)");
}

void add_run_engine_flags(CLI::App* run_cmd, RunFlags& run) {
  run_cmd
      ->add_option("--time-scale", run.time_scale,
                   "wall seconds per scenario second, e.g. 0.1 replays ten times faster "
                   "(default 1); other than 1 needs a fakeprovider at the same scale, named by "
                   "--provider-admin, or --allow-time-scale")
      ->type_name("NUMBER")
      ->capture_default_str()
      ->group("Run");
  run_cmd
      ->add_option("--loops", run.loops, "event-loop threads (default: one per core; per process)")
      ->type_name("INT")
      ->group(kAdvancedGroup);
  run_cmd
      ->add_option("--processes", run.processes,
                   "run the fleet in N worker processes (1 to 1000000), shard i/N each, started "
                   "together and "
                   "merged as 'loadgen merge' does (default: as many as the open-file hard "
                   "limit needs, ulimit -Hn: one up to about that many clients); not with --shard")
      ->type_name("INT")
      ->check(within(1, 1'000'000))
      ->group(kAdvancedGroup);
  run_cmd
      ->add_option("--connections-per-source", run.connections_per_source,
                   "at most N connections (1 to 65535) from one source address to the target; "
                   "beyond, "
                   "clients bind 127.0.0.2, 127.0.0.3, ... (an IPv4 loopback target only). "
                   "Default: half the local port range less a tenth "
                   "(/proc/sys/net/ipv4/ip_local_port_range), past which each connect() "
                   "searches the range's every other port; another target may have the whole "
                   "range less a tenth")
      ->type_name("INT")
      ->check(within(1, 65535))
      ->group(kAdvancedGroup);
  run_cmd
      ->add_option("--http-client", run.http_client,
                   "auto (default): the native HTTP/1.1 client for http://, libcurl for https://; "
                   "native; or libcurl. The native client writes a wave of sends several times "
                   "faster, which --time-scale below 0.1 needs")
      ->type_name("auto|native|libcurl")
      ->capture_default_str()
      ->group(kAdvancedGroup);
  run_cmd
      ->add_flag("--no-latency-compensation", run.no_latency_compensation,
                 "take each answer's time from the scenario clock when the harness reads it; "
                 "by default it is the send's intended time plus the wall time from the write "
                 "to the answer's arrival on the client's socket (the kernel's receive time), "
                 "unscaled, so --time-scale does not stretch the network and the harness's "
                 "own delays do not push later retries back; give it against fakeprovider "
                 "--hop-delay, whose emulated network is scenario time")
      ->group(kAdvancedGroup);
}

// Every flag of run's: a supervisor's workers take them too, as the user gave them.
void add_run_flags(CLI::App* run_cmd, RunFlags& run) {
  add_scenario_flags(*run_cmd, run.scenario);
  add_run_target_flags(run_cmd, run);
  add_run_tls_flags(run_cmd, run);
  add_run_engine_flags(run_cmd, run);
  add_fleet_output_flags(
      *run_cmd, run.output,
      {"write dead-lettered items, then unfinished ones, as JSON lines",
       "wall-clock bound: stop then, items still going are unfinished (default 1h)",
       "at a stop, how long in-flight requests may still finish, at most --timeout on the wall "
       "(default 2s, or that if shorter); a signal after a stop ends them at once",
       "serve the live dashboard here, e.g. 127.0.0.1:9090 (port 0: any free one): a page at "
       "http://HOST:PORT/dashboard that draws, each second, the answers the fleet's clients "
       "read by outcome, their sends by send number, its items and its wake lateness, and "
       "with --provider-admin the provider's arrivals beside them; its save link downloads "
       "the report of the results so far. The URL is printed on stderr. A bad address or a "
       "port in use is refused before any load"});
  run_cmd
      ->add_option("--attempts-out", run.attempts_out,
                   "write every attempt as JSON lines (intended, sent, answered, status)")
      ->type_name("FILE")
      ->group("Output");
  // What the gate holds a run to, beyond the assertions.
  run_cmd
      ->add_flag("--expect-none", run.expect_none,
                 "drop the default expectation 'delivered > 0', which fails a run that delivered "
                 "nothing (every answer a 404 or 401, a target that never answers); default: off")
      ->group("Gate");
  run_cmd
      ->add_flag("--allow-time-scale", run.allow_time_scale,
                 "run at a --time-scale other than 1 without --provider-admin, against a target "
                 "not known to be a fakeprovider (whose limits run on the wall clock); default: "
                 "off, refused")
      ->group("Gate");
  add_shard_flags(*run_cmd, run.shard, true);
}

CLI::App* add_run_command(CLI::App& app, RunFlags& run) {
  auto* run_cmd = app.add_subcommand(
      "run", "Run a fleet of retrying HTTP clients against a fakeprovider or a staging endpoint.");
  add_run_flags(run_cmd, run);
  run_cmd->footer(
      "One HTTP client per --clients, each with its own connection, random stream and backoff "
      "state.\n"
      "Exit codes: 0 every check holds; 1 some failed (an assertion, or 'delivered > 0' unless "
      "--expect-none), or the run was stopped with items unfinished; 2 usage error, a check the "
      "run cannot judge (a retry metric of a fleet that never retried), or the "
      "fakeprovider runs at another --time-scale, or --provider-admin answers but is not a "
      "fakeprovider, or one process's clients (--processes 1, or --shard) exceed the open-file "
      "hard limit, or --processes with --shard or beside --dashboard, or more connections than "
      "the source addresses can carry to a target that is not 127.x (a TLS file that cannot be "
      "read included); 3 "
      "target unreachable, its certificate not trusted, a client certificate refused or missing "
      "(all found before any load), harness failure, or a worker process failed. --junit says "
      "the same.\n"
      "Beyond what one process may open, the fleet runs in worker processes, shard i/N each, "
      "merged as 'loadgen merge' does (docs/SHARDING.md, 'One command, many processes').\n"
      "Examples:\n  fakeprovider --scenario examples/storm.json --time-scale 0.1 --listen "
      "127.0.0.1:8080 --admin-listen 127.0.0.1:8081 &\n"
      "  loadgen run --scenario examples/storm.json --url http://127.0.0.1:8080/v1/messages "
      "--provider-admin http://127.0.0.1:8081 --time-scale 0.1 --out storm-live.json\n"
      "  loadgen run --scenario ours.json --url https://staging.example/v1/messages --cacert "
      "ca.pem --cert client.pem --key client.key --junit junit.xml");
  lay_out_help(*run_cmd, {"fakeprovider --allowance 100/s --outage 0s-2s:503 &\n"
                          "loadgen run --url http://127.0.0.1:8080/v1/messages --clients 200 "
                          "--strategy full-jitter --allowance 100/s --provider-admin "
                          "http://127.0.0.1:8081",
                          {"--url", "--clients", "--strategy", "--allowance", "--outage",
                           "--scenario", "--provider-admin", "--out"}});
  return run_cmd;
}

// A worker of run's supervisor (fleet_worker_command.hpp): internal, so not in --help.
CLI::App* add_fleet_worker_command(CLI::App& app, FleetWorkerFlags& worker) {
  auto* worker_cmd = app.add_subcommand(kFleetWorkerCommand, "one worker of 'loadgen run'");
  worker_cmd->group("");
  add_run_flags(worker_cmd, worker);
  worker_cmd->add_option(kFleetWorkerDirFlag, worker.dir)->required();
  return worker_cmd;
}

CLI::App* add_exec_command(CLI::App& app, ExecFlags& exec) {
  auto* exec_cmd = app.add_subcommand(
      "exec",
      "Run your own program as a fleet of N processes, released together against a "
      "fakeprovider.");
  add_exec_flags(*exec_cmd, exec);
  exec_cmd->footer(
      "Your HTTP library and its retry policy, as they are: the results are the provider's view "
      "and each process's exit status (docs/OWN_FLEET.md).\n"
      "Each process gets STAMPEDE_URL, STAMPEDE_CLIENT_ID (its first client), STAMPEDE_CLIENTS "
      "and STAMPEDE_PER_PROCESS. Its exit status is its clients' outcome: 0 delivered, anything "
      "else dead-lettered; still running at a stop (a signal, --max-duration, --timeout): "
      "unfinished, and killed (SIGTERM, SIGKILL after --grace).\n"
      "--workload trace --trace FILE: at each arrival of the trace one process runs CMD as a free "
      "client, at most --clients at once; an arrival that finds every client busy is dropped and "
      "counted. Each gets STAMPEDE_ITEM, and STAMPEDE_TENANT, STAMPEDE_TOKENS, STAMPEDE_METHOD and "
      "STAMPEDE_PATH when its line has them; --speed, --scale, --from and --to play the trace as "
      "in run (docs/TRACE.md).\n"
      "Exit codes: 0 every assertion holds; 1 some failed, or a stop left clients unfinished; 2 "
      "usage error (CMD not found, too many processes, a provider not at --time-scale 1, a "
      "--provider-admin that is not a fakeprovider), or a check the fleet cannot judge (a "
      "retry metric when the provider could not number its sends, or when it never retried); 3 "
      "provider or target unreachable, CMD could not be run, or harness failure.\n"
      "Examples:\n  fakeprovider --allowance 8/s --outage 0s-1s:503 --listen 127.0.0.1:8080 "
      "--admin-listen 127.0.0.1:8081 &\n"
      "  loadgen exec --clients 20 --allowance 8/s --outage 0s-1s:503 --url "
      "http://127.0.0.1:8080/v1/messages --provider-admin http://127.0.0.1:8081 --out "
      "curl.json -- curl -sf --retry 8 -H 'X-Client-Id: {client}' -o out.{client} {url}");
  lay_out_help(*exec_cmd, {"fakeprovider --allowance 8/s --outage 0s-1s:503 &\n"
                           "loadgen exec --clients 20 --url http://127.0.0.1:8080/v1/messages "
                           "--provider-admin http://127.0.0.1:8081 -- curl -sf --retry 8 -o "
                           "/dev/null {url}",
                           {"--provider-admin", "--url", "--clients", "--allowance", "--outage",
                            "--scenario"}});
  return exec_cmd;
}

// report's and merge's: results files in, one file out.
void add_inputs_and_out(CLI::App& cmd, std::vector<std::string>& inputs, const char* inputs_help,
                        std::string& out, const char* out_help) {
  cmd.add_option("results", inputs, inputs_help)->type_name("FILE")->required();
  cmd.add_option("-o,--out", out, out_help)->type_name("FILE")->required();
}

CLI::App* add_report_command(CLI::App& app, ReportCommand& rep) {
  auto* report_cmd = app.add_subcommand(
      "report",
      "Write one self-contained HTML report (inline SVG, no script needed) from results files; "
      "several files make a comparison on shared axes.");
  add_inputs_and_out(*report_cmd, rep.inputs, "results JSON files from run or simulate",
                     rep.out_path, "the HTML file to write");
  report_cmd
      ->add_option("--label", rep.labels,
                   "a name per input, in order (default: the strategy or file name)")
      ->type_name("NAME");
  report_cmd->add_flag("--quiet,-q", rep.quiet, "print nothing on success");
  report_cmd->footer("Example:\n  loadgen report exponential.json full-jitter.json -o storm.html");
  return report_cmd;
}

CLI::App* add_merge_command(CLI::App& app, MergeCommand& merge) {
  auto* merge_cmd = app.add_subcommand(
      "merge",
      "Merge the results of a fleet's shards (--shard I/N) into one document: totals and "
      "histograms as one process would have recorded them, the summary and assertions again.");
  add_inputs_and_out(*merge_cmd, merge.inputs, "every shard's results JSON", merge.out_path,
                     "the merged results JSON to write");
  merge_cmd->add_flag("--partial", merge.partial,
                      "merge even with shards missing; the merged results name them");
  merge_cmd->add_flag("--quiet,-q", merge.quiet, "print nothing; exit code and --out only");
  merge_cmd->footer(
      "Exit codes: 0 merged, every assertion holds; 1 some failed; 2 the files are not shards "
      "of one run (different scenario, seed or shard count, a duplicate or missing shard); 3 "
      "the output cannot be written.\n"
      "Example:\n  loadgen merge shard-0.json shard-1.json shard-2.json -o merged.json");
  return merge_cmd;
}

CLI::App* add_gate_command(CLI::App& app, GateCommand& gate) {
  auto* gate_cmd = app.add_subcommand(
      "gate",
      "Check a results document after the fact: any engine's, or fakeprovider's own "
      "(--results-out, GET /admin/results), whose per-item record gives hint_share and "
      "lockstep. Its scenario's expectations, --assert, and delivered > 0.");
  gate_cmd->add_option("results", gate.input, "a results JSON file")->type_name("FILE")->required();
  one_value_each_time(
      *add_assert_flag(*gate_cmd, gate.asserts,
                       "a check, e.g. 'lockstep < 0.5' (repeatable; metrics: docs/RESULTS.md)"));
  gate_cmd->add_flag("--expect-none", gate.expect_none,
                     "do not require delivered > 0 (default: required)");
  gate_cmd
      ->add_option("--junit", gate.junit,
                   "write JUnit XML: a test case per check (an error for one the document "
                   "cannot judge)")
      ->type_name("FILE");
  gate_cmd->add_flag("--quiet,-q", gate.quiet, "print nothing; the exit code only");
  gate_cmd->footer(
      "Exit codes: 0 every check holds; 1 one fails; 2 the file is not a results document, or a "
      "check means nothing for it or cannot be judged on it (a retry metric of a fleet that "
      "never retried, or whose sends were not numbered); 3 --junit could not be written.\n"
      "Example:\n  fakeprovider --allowance 100/s --results-out provider.json  (then SIGTERM)\n"
      "  loadgen gate provider.json --assert 'hint_share < 0.5' --assert 'lockstep < 0.5'");
  return gate_cmd;
}

CLI::App* add_advise_command(CLI::App& app, AdviseArgs& adv) {
  auto* advise_cmd = app.add_subcommand(
      "advise",
      "The fleet arithmetic: each retry round's arrival rate, the first round that fits the "
      "allowance, the smallest base that fits, the waits, and the deficit of a demand above the "
      "allowance.");
  advise_cmd->add_option("--scenario", adv.scenario, "take the fleet and allowance from this file")
      ->type_name("FILE")
      ->check(CLI::ExistingFile.description(""));
  // The scenario's fields: their defaults are the scenario's, when no file gives them.
  describe_value(*advise_cmd->add_option("--clients", adv.clients, "concurrent clients"),
                 "fleet.clients");
  describe_value(*advise_cmd->add_option("--allowance", adv.allowance, "N/s, N/min or N/h"),
                 "provider.allowance");
  describe_value(*advise_cmd->add_option("--strategy", adv.strategy, "backoff strategy"),
                 "fleet.strategy");
  describe_value(*advise_cmd->add_option("--base", adv.base, "base delay"), "fleet.base");
  describe_value(*advise_cmd->add_option("--cap", adv.cap, "delay cap"), "fleet.cap");
  describe_value(*advise_cmd->add_option("--max-attempts", adv.max_attempts,
                                         "retries after the first send; 0 = unbounded"),
                 "fleet.max_attempts");
  advise_cmd->add_option("--demand", adv.demand, "sustained demand, N/s, N/min or N/h")
      ->type_name("RATE");
  advise_cmd->add_option("--over", adv.over, "backlog horizon for --demand (default 10m)")
      ->type_name("DURATION")
      ->capture_default_str();
  advise_cmd->add_flag("--json", adv.json, "print JSON");
  advise_cmd->add_flag("--check", adv.check,
                       "exit 1 when no retry round fits the allowance: a CI gate before any "
                       "traffic");
  advise_cmd->footer(
      "Example:\n  loadgen advise --clients 400 --allowance 4000/min --strategy full-jitter "
      "--base 1s --cap 8s --max-attempts 5");
  return advise_cmd;
}

void describe_app(CLI::App& app) {
  use_plain_help(app);  // before the commands are added: they take the app's formatter
  app.set_version_flag("--version", std::string("loadgen ") + kVersion);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  loadgen run --url http://127.0.0.1:8080/v1/messages --scenario examples/storm.json "
      "--provider-admin http://127.0.0.1:8081 --time-scale 0.1\n"
      "  loadgen simulate --scenario examples/storm.json --strategy full-jitter\n"
      "  loadgen exec --clients 20 --url http://127.0.0.1:8080/v1 --provider-admin "
      "http://127.0.0.1:8081 -- curl -sf --retry 8 -o out.{client} {url}\n"
      "  loadgen advise --clients 400 --allowance 4000/min --strategy full-jitter --base 1s --cap "
      "8s "
      "--max-attempts 5");
}

int loadgen_main(int argc, char** argv) {
  CLI::App app{
      "loadgen: run a fleet of retrying clients against a rate-limited provider, or simulate one.\n"
      "A provider never sees a delay, it sees an arrival rate: loadgen shows what a retry policy\n"
      "does to that rate at production concurrency."};
  describe_app(app);
  SimulateFlags sim;
  RunFlags run;
  FleetWorkerFlags worker;
  ExecFlags exec;
  ReportCommand rep;
  MergeCommand merge;
  GateCommand gate;
  AdviseArgs adv;
  auto* simulate = add_simulate_command(app, sim);
  auto* run_cmd = add_run_command(app, run);
  auto* worker_cmd = add_fleet_worker_command(app, worker);
  auto* exec_cmd = add_exec_command(app, exec);
  auto* report_cmd = add_report_command(app, rep);
  auto* merge_cmd = add_merge_command(app, merge);
  auto* gate_cmd = add_gate_command(app, gate);
  add_advise_command(app, adv);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(parse_error_message(app, e, {argv + 1, argv + argc}));
  }
  if (simulate->parsed()) return simulate_main(sim);
  if (run_cmd->parsed()) {
    // The workers get run's arguments as given, after `run`.
    const auto at = std::find(argv + 1, argv + argc, std::string_view("run"));
    if (at != argv + argc) run.given.assign(at + 1, argv + argc);
    return run_main(run);
  }
  if (worker_cmd->parsed()) return fleet_worker_main(worker);
  if (exec_cmd->parsed()) return exec_main(exec);
  if (report_cmd->parsed()) return run_report_command(rep);
  if (merge_cmd->parsed()) return run_merge_command(merge);
  if (gate_cmd->parsed()) return run_gate_command(gate);
  return advise_main(adv);
}

}  // namespace

int main(int argc, char** argv) {
  return run_or_say("loadgen",
                    "fewer --clients, or the fleet split into shards (--shard I/N) across "
                    "processes or machines",
                    [&] { return loadgen_main(argc, argv); });
}
