#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/provider_args.hpp"
#include "cli/provider_command.hpp"
#include "generated/version.hpp"
#include "help_layout.hpp"
#include "last_resort.hpp"
#include "nearest_name.hpp"
#include "old_spelling.hpp"
#include "scenario_fields.hpp"
#include "scenario_flags.hpp"

using namespace stampede;

namespace {

// fakeprovider takes the provider section's fields, and lists the wire's own under "Dialect"
// (loadgen simulate has no wire: docs/ADMIN_API.md#dialects). A field's flag is spelled as in
// loadgen; the short spelling it had here (--seed for --provider-seed) still works.
void add_scenario_flags(CLI::App& app, ProviderArgs& args) {
  app.add_option("--scenario", args.scenario,
                 "scenario file (JSON); only its provider section is used; flags override it")
      ->type_name("FILE")
      ->check(CLI::ExistingFile.description(""));
  for (const auto& f : scenario_fields()) {
    if ((f.in & kFakeprovider) == 0) continue;
    auto& values = args.values[std::string(f.name)];
    auto* opt = app.add_option(loadgen_flag(f), values, std::string(f.help));
    opt->group(f.dialect ? "Dialect" : "Provider")->type_name(std::string(f.type));
    if (!f.default_text.empty()) opt->default_str(std::string(f.default_text));
    if (!f.list) opt->expected(1);
    if (loadgen_flag(f) != f.flag)
      keep_old_spelling(app, *opt, std::string(f.flag), values, "fakeprovider");
  }
}

// Proxy mode's flags beside --upstream (a scenario field: provider.upstream).
void add_proxy_flags(CLI::App& app, UpstreamFlags& f) {
  const auto* group = "Proxy (with --upstream; docs/PROXY.md)";
  app.add_option("--upstream-cacert", f.cacert,
                 "https upstream: trust this CA bundle (PEM) instead of the system's")
      ->type_name("FILE")
      ->group(group);
  app.add_flag("--upstream-insecure", f.insecure,
               "https upstream: check neither its certificate nor its name (a test bench only)")
      ->group(group);
  app.add_option("--upstream-timeout", f.timeout,
                 "how long the upstream may be silent, before its answer (then 504) or within "
                 "it (then the stream is cut), and a request may wait for a pooled connection "
                 "(then 503); whole seconds")
      ->type_name("DURATION")
      ->capture_default_str()
      ->group(group);
  app.add_option("--upstream-connections", f.connections,
                 "keep-alive connections to the upstream, per data-plane thread; requests "
                 "beyond wait for one, up to --upstream-timeout")
      ->type_name("N")
      ->capture_default_str()
      ->group(group);
  app.add_flag("--upstream-strip-headers", f.strip_headers,
               "do not forward the headers stampede reads (the tenant header unless it is "
               "Authorization, X-Attempt, --attempt-header, --client-header); by default they "
               "go on as they came")
      ->group(group);
  app.add_option("--max-body", f.max_body,
                 "the longest request body forwarded; a longer one is answered 413 and never "
                 "reaches the upstream")
      ->type_name("BYTES")
      ->capture_default_str()
      ->group(group);
}

int provider_main(int argc, char** argv) {
  CLI::App app{
      "A rate-limited HTTP provider that enforces allowances, outages and capacity as real APIs "
      "do."};
  app.set_version_flag("--version", std::string("fakeprovider ") + kVersion);
  ProviderArgs args;
  add_scenario_flags(app, args);
  app.add_option("--listen", args.listen, "data plane HOST:PORT; port 0 picks a free one")
      ->type_name("HOST:PORT")
      ->capture_default_str();
  app.add_option("--admin-listen", args.admin_listen,
                 "admin API HOST:PORT (stats, metrics, the live dashboard at /dashboard); "
                 "beyond loopback it needs --admin-token")
      ->type_name("HOST:PORT")
      ->capture_default_str();
  app.add_option("--time-scale", args.time_scale,
                 "wall seconds per scenario second, e.g. 0.1 replays ten times faster")
      ->type_name("NUMBER")
      ->capture_default_str();
  app.add_option("--bin", args.bin, "histogram bin of the stats, in scenario time")
      ->type_name("DURATION")
      ->capture_default_str()
      ->group("Recording");
  app.add_option("--arrivals-out", args.arrivals_out,
                 "on exit, write every arrival here (CSV: "
                 "t_ns,tenant,status,attempt,client_id,send_rule,decided_t_ns,upstream,stream; "
                 "t_ns when its bytes came in, decided_t_ns the time its limiters used, upstream "
                 "what the upstream answered a forwarded one, stream 'broken' for an LLM stream "
                 "--stream-errors broke)")
      ->type_name("FILE")
      ->group("Recording");
  app.add_option("--stats-out", args.stats_out, "on exit, write the final stats JSON here")
      ->type_name("FILE")
      ->group("Recording");
  app.add_option("--results-out", args.results_out,
                 "on exit (SIGINT, SIGTERM), write the provider's own results document here: "
                 "the results schema loadgen report draws and loadgen gate checks, with each "
                 "item's fate, its waits against the Retry-After, and the lockstep figure "
                 "(docs/RESULTS.md; also GET /admin/results) (default: none)")
      ->type_name("FILE")
      ->group("Recording");
  app.add_option("--admin-token", args.admin_token,
                 "require 'Authorization: Bearer TOKEN' on the admin API")
      ->type_name("TOKEN")
      ->envname("FAKEPROVIDER_ADMIN_TOKEN");
  app.add_option("--max-connections", args.max_connections,
                 "open connections the data plane holds at once (each process's, with "
                 "--processes)")
      ->type_name("INT")
      ->capture_default_str()
      ->group(kAdvancedGroup);
  app.add_option("--threads", args.threads,
                 "data plane threads (of each process), each with its own epoll loop")
      ->type_name("INT")
      ->capture_default_str()
      ->group(kAdvancedGroup);
  app.add_option("--processes", args.processes,
                 "serve the data plane from this many processes on one port (SO_REUSEPORT), "
                 "each holding up to --max-connections, for more connections than one process "
                 "may open; this one decides for them all: one allowance, one admin API, one "
                 "record (docs/SHARDING.md)")
      ->type_name("N")
      ->capture_default_str()
      ->group(kAdvancedGroup);
  app.add_option("--arrival-stamp", args.arrival_stamp,
                 "kernel: stamp an arrival with the kernel's receive stamp of its first bytes "
                 "(exact in a burst); watch: when a watcher thread sees them come in (exact in a "
                 "burst, for more CPU per request); read: when a server thread reads it (late in "
                 "a burst)")
      ->type_name("kernel|watch|read")
      ->capture_default_str()
      ->group(kAdvancedGroup);
  app.add_option("--http-server", args.http_server,
                 "kept for the scripts that name it: the data plane's own HTTP/1.1 server "
                 "serves every mode, whether auto (default) or native")
      ->type_name("auto|native")
      ->capture_default_str()
      ->group(kAdvancedGroup);
  app.add_option("--idle-timeout", args.idle_timeout,
                 "close a connection silent this long (wall time; longer than any backoff a "
                 "client sleeps on its open connection)")
      ->type_name("DURATION")
      ->capture_default_str()
      ->group(kAdvancedGroup);
  app.add_option("--header-timeout", args.header_timeout,
                 "close a connection whose request headers, or then its body, are incomplete this "
                 "long after its first byte (wall time; slowloris); 0s turns it off; the headers' "
                 "limit needs --arrival-stamp kernel or watch")
      ->type_name("DURATION")
      ->capture_default_str()
      ->group(kAdvancedGroup);
  app.add_option("--attempt-header", args.attempt_header,
                 "a header in which your clients send their send number (1 = the first send), "
                 "read when a request has none of X-Attempt, X-Stainless-Retry-Count (0 = the "
                 "first send) and amz-sdk-request (attempt=N) (default: none)")
      ->type_name("HEADER")
      ->group("Send numbers");
  app.add_option("--item-header", args.item_header,
                 "otherwise, the headers (comma-separated, first present wins) that name a "
                 "request's item: its n-th arrival is its n-th send; none: off")
      ->type_name("HEADER,...")
      ->group("Send numbers")
      ->capture_default_str();
  app.add_option("--client-header", args.client_header,
                 "otherwise, the header that names the client, for one item per client: its "
                 "n-th arrival is its n-th send (Authorization: the bearer token; the tenant "
                 "header will do too); also the arrival log's client_id; none: off")
      ->type_name("HEADER")
      ->group("Send numbers")
      ->capture_default_str();
  app.add_option("--max-items", args.max_items,
                 "items and clients numbered by counting at once (at most 10000000); "
                 "arrivals of any further one are unattributed")
      ->type_name("INT")
      ->group("Send numbers")
      ->capture_default_str();
  app.add_option("--hint-tolerance", args.hint_tolerance,
                 "a followed item's retry came at its Retry-After (the results' hint_share) "
                 "when its wait was within this of it, in scenario time; widen it for a "
                 "fleet across a network or on a loaded machine")
      ->type_name("DURATION")
      ->group("Send numbers")
      ->capture_default_str();
  app.add_option(
         "--store", args.store,
         "redis://HOST[:PORT][/PREFIX]: keep capacity, the request and token "
         "allowances and the spend cap in Redis (one atomic script per batch of decisions), so "
         "replicas given the same store and scenario enforce one allowance and one "
         "spend cap per tenant on one scenario clock; keys start with PREFIX "
         "(default stampede). Without it they live in this process. Arrivals are still "
         "recorded per replica")
      ->type_name("URL")
      ->group(kAdvancedGroup);
  add_proxy_flags(app, args.upstream);
  app.footer(
      "It answers any method and path, and records the arrival time of every request on its own "
      "clock; the admin API (stats, metrics, reset, outages) has its own port.\n"
      "Examples:\n"
      "  fakeprovider --allowance 100/s --outage 0s-30s:503 --listen 127.0.0.1:8080 "
      "--arrivals-out arrivals.csv\n"
      "  fakeprovider --mode occ &  curl -i http://127.0.0.1:8080/row; "
      "curl -i -X PUT -H 'If-Match: \"0\"' http://127.0.0.1:8080/row");
  lay_out_help(app, {"fakeprovider --allowance 100/s --outage 0s-30s:503 --listen "
                     "127.0.0.1:8080 &\n"
                     "curl -i http://127.0.0.1:8080/v1/messages; curl "
                     "http://127.0.0.1:8081/admin/stats",
                     {"--allowance", "--outage", "--listen", "--admin-listen", "--scenario",
                      "--time-scale"}});

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A mistyped flag: the nearest name is the likely fix, not CLI11's "not expected".
    std::vector<std::string> known;
    for (const auto* opt : app.get_options()) {
      for (const auto& l : opt->get_lnames()) known.push_back("--" + l);
      for (const auto& n : opt->get_snames()) known.push_back("-" + n);
    }
    const auto flag = unknown_flag({argv + 1, argv + argc}, known);
    return say_usage_errors(
        "fakeprovider", {(flag ? *flag : std::string(e.what())) + "; run 'fakeprovider --help'"});
  }
  const auto run = check_provider_run(args);
  return run.command ? serve_provider(*run.command) : say_usage_errors("fakeprovider", run.errors);
}

}  // namespace

int main(int argc, char** argv) {
  return run_or_say("fakeprovider", "a smaller --max-items or --max-connections",
                    [&] { return provider_main(argc, argv); });
}
