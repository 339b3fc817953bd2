#include "results.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "json_int.hpp"

namespace stampede {

using json = nlohmann::json;

std::size_t send_label(int send_number) {
  return std::clamp<std::size_t>(static_cast<std::size_t>(std::max(send_number, 1)), 1,
                                 kSendLabels) -
         1;
}

void Recording::record_send(std::int64_t t_ns, int send_number, Outcome client_view) {
  client_by_outcome.add(t_ns, static_cast<std::size_t>(client_view));
  client_by_send.add(t_ns, send_number > 1 ? 1 : 0);
  client_by_send_number.add(t_ns, send_label(send_number));
  ++requests;
}

void Recording::record_response(int send_number, std::int64_t response_ns) {
  response_ns_by_send[send_label(send_number)].record(std::max<std::int64_t>(0, response_ns));
}

void Recording::record_arrival(std::int64_t t_ns, int send_number, Outcome outcome) {
  provider_by_outcome.add(t_ns, static_cast<std::size_t>(outcome));
  provider_by_send.add(t_ns, send_label(send_number));
}

void Recording::merge(const Recording& o) {
  provider_by_outcome.merge(o.provider_by_outcome);
  provider_by_send.merge(o.provider_by_send);
  client_by_outcome.merge(o.client_by_outcome);
  client_by_send.merge(o.client_by_send);
  client_by_send_number.merge(o.client_by_send_number);
  backoff.merge(o.backoff);
  item_latency_ns.merge(o.item_latency_ns);
  sends_per_item.merge(o.sends_per_item);
  lateness_ns.merge(o.lateness_ns);
  // Counts read from documents (loadgen merge) can be anything: a sum past int64 stays there.
  items = saturating_add(items, o.items);
  delivered = saturating_add(delivered, o.delivered);
  dead_lettered = saturating_add(dead_lettered, o.dead_lettered);
  unfinished = saturating_add(unfinished, o.unfinished);
  dropped = saturating_add(dropped, o.dropped);
  requests = saturating_add(requests, o.requests);
  writes = saturating_add(writes, o.writes);
  drain_ns = std::max(drain_ns, o.drain_ns);
  for (const auto& [status, n] : o.statuses) statuses[status] = saturating_add(statuses[status], n);
  for (const auto& [reason, n] : o.dead_letter_reasons)
    dead_letter_reasons[reason] = saturating_add(dead_letter_reasons[reason], n);
  for (std::size_t i = 0; i < kSendLabels; ++i)
    response_ns_by_send[i].merge(o.response_ns_by_send[i]);
  streams.merge(o.streams);
  tokens.merge(o.tokens);
  if (o.trace) {
    if (!trace) trace.emplace();
    trace->merge(*o.trace);
  }
}

namespace {

std::optional<int> parse_status(const std::string& text) {
  if (text.size() != 3 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoi(text);
}

std::vector<std::int64_t> label_totals(const BinnedCounts& h) {
  std::vector<std::int64_t> totals(h.labels(), 0);
  for (std::size_t l = 0; l < h.labels(); ++l) totals[l] = h.label_total(l);
  return totals;
}

// The busiest bin from first_bin on, counting only the labels from first_label up.
struct BusiestBin {
  double count = 0;
  double start_s = 0;
};
BusiestBin busiest_bin(const BinnedCounts& h, std::size_t first_bin, std::size_t first_label) {
  BusiestBin p;
  for (std::size_t b = first_bin; b < h.bins(); ++b) {
    std::int64_t n = 0;
    for (std::size_t l = first_label; l < h.labels(); ++l) n += h.at(b, l);
    if (static_cast<double>(n) > p.count) {
      p.count = static_cast<double>(n);
      p.start_s = ns_to_s(static_cast<std::int64_t>(b) * h.bin_ns());
    }
  }
  return p;
}

// What a peak is measured against: the allowance, else the capacity.
const std::optional<Rate>& declared_limit(const ProviderConfig& provider) {
  return provider.allowance ? provider.allowance : provider.capacity;
}

// Of the requests, the share the clients saw come to these outcomes.
void add_status_ratios(const Recording& r, Summary& s) {
  if (r.requests == 0) return;
  const auto seen = label_totals(r.client_by_outcome);
  const auto share = [&](std::initializer_list<Outcome> outcomes) {
    std::int64_t n = 0;
    for (const auto o : outcomes) n += seen[static_cast<std::size_t>(o)];
    return static_cast<double>(n) / static_cast<double>(r.requests);
  };
  s.status_ratio_2xx = share({Outcome::kOk});
  s.status_ratio_4xx = share({Outcome::kRateLimited, Outcome::kClientError});
  s.status_ratio_5xx = share({Outcome::kUnavailable, Outcome::kOverloaded, Outcome::kServerError});
  s.status_ratio_429 = share({Outcome::kRateLimited});
  s.status_ratio_503 = share({Outcome::kUnavailable});
  s.status_ratio_529 = share({Outcome::kOverloaded});
  s.status_ratio_connect_error = share({Outcome::kConnectError});
  s.status_ratio_timeout = share({Outcome::kTimeout});
  s.status_ratio_bad_response = share({Outcome::kBadResponse});
}

}  // namespace

Summary summarize(const Recording& r, const ProviderConfig& provider, bool provider_side) {
  Summary s;
  s.items = static_cast<double>(r.items);
  s.delivered = static_cast<double>(r.delivered);
  s.dead_lettered = static_cast<double>(r.dead_lettered);
  s.unfinished = static_cast<double>(r.unfinished);
  s.dropped = static_cast<double>(r.dropped);
  s.dropped_ratio = r.items ? s.dropped / s.items : 0;
  s.requests = static_cast<double>(r.requests);
  s.writes = static_cast<double>(r.writes);
  s.amplification = r.items ? s.requests / s.items : 0;
  s.delivered_ratio = r.items ? s.delivered / s.items : 0;
  s.dead_letter_ratio = r.items ? s.dead_lettered / s.items : 0;
  s.retries = static_cast<double>(label_totals(r.client_by_send)[1]);
  s.retry_share = r.requests ? s.retries / s.requests : 0;
  add_status_ratios(r, s);
  s.drain_s = ns_to_s(r.drain_ns);
  s.p50_s = ns_to_s(r.item_latency_ns.quantile(0.50));
  s.p95_s = ns_to_s(r.item_latency_ns.quantile(0.95));
  s.p99_s = ns_to_s(r.item_latency_ns.quantile(0.99));
  s.attempts_p99 = static_cast<double>(r.sends_per_item.quantile(0.99));
  s.lateness_p50_ms = static_cast<double>(r.lateness_ns.quantile(0.50)) / kNsPerMs;
  s.lateness_p99_ms = static_cast<double>(r.lateness_ns.quantile(0.99)) / kNsPerMs;

  // The provider's own view when there is one; the clients' sends otherwise.
  const ArrivalPeak peak =
      arrival_peak(provider_side ? r.provider_by_outcome : r.client_by_outcome, provider);
  s.peak_arrivals = peak.count;
  s.peak_second = peak.start_s;
  s.peak_ratio = peak.ratio;
  // Retries as the clients sent them: they know which send is a retry, where the provider
  // knows only what X-Attempt told it. The first second is the first wave's, whatever the
  // strategy: a fleet that starts together overruns it with first sends and the retries
  // they provoke at once, so it is left out with the outage.
  const auto& sends = r.client_by_send;
  const BusiestBin retry_peak = busiest_bin(
      sends,
      std::max<std::size_t>(1, static_cast<std::size_t>(recovery_ns(provider) / sends.bin_ns())),
      1);
  s.peak_retries = retry_peak.count;
  s.peak_retry_second = retry_peak.start_s;
  if (const auto& limit = declared_limit(provider)) {
    s.peak_retry_ratio = s.peak_retries / (limit->per_second() * ns_to_s(sends.bin_ns()));
  }
  if (provider_side) s.provider_requests = static_cast<double>(r.provider_by_outcome.total());
  return s;
}

ArrivalPeak arrival_peak(const BinnedCounts& arrivals, const ProviderConfig& provider) {
  const auto recovery_bin = static_cast<std::size_t>(recovery_ns(provider) / arrivals.bin_ns());
  const BusiestBin busiest = busiest_bin(arrivals, recovery_bin, 0);
  ArrivalPeak peak{busiest.count, busiest.start_s, 0};
  if (const auto& limit = declared_limit(provider)) {
    peak.ratio = peak.count / (limit->per_second() * ns_to_s(arrivals.bin_ns()));
  }
  return peak;
}

void provider_stands_in_for_clients(Recording& rec) {
  rec.client_by_outcome = rec.provider_by_outcome;
  const BinnedCounts& by_send = rec.provider_by_send;
  rec.client_by_send = BinnedCounts(by_send.bin_ns(), 2);
  const auto first_or_retry = [](std::size_t label) -> std::size_t { return label == 0 ? 0 : 1; };
  for (std::size_t b = 0; b < by_send.bins(); ++b) {
    const auto t_ns = static_cast<std::int64_t>(b) * by_send.bin_ns();
    for (std::size_t l = 0; l < by_send.labels(); ++l) {
      if (const auto n = by_send.at(b, l)) rec.client_by_send.add(t_ns, first_or_retry(l), n);
    }
  }
  for (std::size_t l = 0; l < by_send.labels(); ++l) {
    if (const auto n = by_send.overflow(l))
      rec.client_by_send.add(by_send.overflow_start_ns(), first_or_retry(l), n);
  }
}

std::vector<std::string> outcome_labels() {
  return {kOutcomeNames.begin(), kOutcomeNames.end()};
}

std::vector<std::string> first_or_retry_labels() {
  return {"1", "2+"};
}

std::vector<std::string> send_labels() {
  std::vector<std::string> labels;
  for (std::size_t i = 1; i < kSendLabels; ++i) labels.push_back(std::to_string(i));
  labels.push_back(std::to_string(kSendLabels) + "+");
  return labels;
}

std::string format_utc(std::int64_t unix_ns) {
  // Howard Hinnant's civil_from_days: no time zone, no locale, no gmtime.
  const std::int64_t ms = unix_ns / kNsPerMs - (unix_ns % kNsPerMs < 0 ? 1 : 0);
  const std::int64_t day_ms = 86'400'000;
  const std::int64_t days = ms / day_ms - (ms % day_ms < 0 ? 1 : 0);
  const std::int64_t of_day = ms - days * day_ms;
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ",
                static_cast<long long>(y), m, d, static_cast<long long>(of_day / 3'600'000),
                static_cast<long long>(of_day / 60'000 % 60),
                static_cast<long long>(of_day / 1000 % 60), static_cast<long long>(of_day % 1000));
  return buf;
}

json to_json(const Results& r) {
  const auto& rec = r.recording;
  json verdicts = json::array();
  for (const auto& v : r.verdicts) {
    json verdict{{"assertion", v.text},
                 {"passed", v.passed},
                 {"actual", v.actual},
                 {"expected", v.expected}};
    if (!v.why.empty()) verdict["why"] = v.why;
    if (v.refused) verdict["refused"] = true;
    verdicts.push_back(std::move(verdict));
  }
  json doc{
      {"format", kResultsFormat},
      {"stampede_version", r.stampede_version},
      {"engine", r.engine},
      {"scenario", to_json(r.scenario)},
      {"summary", to_json(r.summary)},
      {"assertions", verdicts},
      {"counts",
       {{"items", rec.items},
        {"delivered", rec.delivered},
        {"dead_lettered", rec.dead_lettered},
        {"unfinished", rec.unfinished},
        {"requests", rec.requests},
        {"drain_ns", rec.drain_ns}}},
      {"histograms",
       {{"provider_side", r.provider_side},
        {"provider_arrivals_by_outcome", rec.provider_by_outcome.to_json(outcome_labels())},
        {"provider_arrivals_by_send", rec.provider_by_send.to_json(send_labels())},
        {"client_sends_by_outcome", rec.client_by_outcome.to_json(outcome_labels())},
        {"client_sends_by_send", rec.client_by_send.to_json(first_or_retry_labels())},
        {"client_sends_by_send_number", rec.client_by_send_number.to_json(send_labels())},
        {"backoff_transitions", rec.backoff.to_json({"entered", "left"})}}},
      {"distributions",
       {{"item_latency_ns", rec.item_latency_ns.to_json()},
        {"sends_per_item", rec.sends_per_item.to_json()},
        {"lateness_ns", rec.lateness_ns.to_json()}}},
  };
  if (rec.writes > 0) doc["counts"]["writes"] = rec.writes;
  // Only the open model drops, and only its documents say so: the others read as before.
  if (r.scenario.fleet.open_model()) {
    doc["counts"]["dropped"] = rec.dropped;
  } else {
    doc["summary"].erase("dropped");
    doc["summary"].erase("dropped_ratio");
  }
  // Only a live run is set against its simulation.
  if (r.engine != "run") doc["summary"].erase("sim_divergence");
  for (const auto& [status, n] : rec.statuses)
    doc["counts"]["statuses"][std::to_string(status)] = n;
  for (const auto& [reason, n] : rec.dead_letter_reasons)
    doc["counts"]["dead_letter_reasons"][reason] = n;
  const auto labels = send_labels();
  for (std::size_t i = 0; i < kSendLabels; ++i) {
    const auto& h = rec.response_ns_by_send[i];
    if (h.count() > 0) doc["distributions"]["response_ns_by_send"][labels[i]] = h.to_json();
  }
  // Only a run that streamed says so: the others' documents read as before.
  if (rec.streams.any()) doc["streams"] = to_json(rec.streams);
  if (rec.tokens.any()) doc["token_limits"] = to_json(rec.tokens);
  if (rec.trace) doc["trace"] = to_json(*rec.trace, rec.client_by_send);
  if (r.context) {
    doc["context"] = {{"target", r.context->target},
                      {"started_utc", r.context->started_utc},
                      {"wall_s", r.context->wall_s},
                      {"time_scale", r.context->time_scale},
                      {"stopped_by", r.context->stopped_by}};
  }
  // Only for a mean of trials, so a single run's document stays as it was.
  if (r.trials > 1) doc["trials"] = r.trials;
  if (r.shard) {
    doc["shard"] = {{"index", r.shard->index},
                    {"count", r.shard->count},
                    {"start_late_s", r.shard->start_late_s}};
  }
  return doc;
}

Parsed<Results> results_from_json(const json& j) {
  try {
    if (!j.is_object() || j.value("format", 0) != kResultsFormat) {
      return Parsed<Results>::fail("not a stampede results document (format " +
                                   std::to_string(kResultsFormat) + ")");
    }
    Results r;
    r.engine = j.at("engine").get<std::string>();
    r.stampede_version = j.at("stampede_version").get<std::string>();
    auto scenario = scenario_from_json(j.at("scenario"));
    if (!scenario) return Parsed<Results>::fail("its scenario: " + scenario.error());
    r.scenario = *scenario;
    r.summary = summary_from_json(j.at("summary"));
    for (const auto& v : j.at("assertions")) {
      r.verdicts.push_back({v.at("assertion").get<std::string>(), v.at("passed").get<bool>(),
                            v.at("actual").get<double>(), v.at("expected").get<double>(),
                            v.value("why", std::string()), v.value("refused", false)});
    }
    const auto& c = j.at("counts");
    auto& rec = r.recording;
    rec.items = json_int64(c.at("items"));
    rec.delivered = json_int64(c.at("delivered"));
    rec.dead_lettered = json_int64(c.at("dead_lettered"));
    rec.unfinished = json_int64(c.at("unfinished"));
    rec.requests = json_int64(c.at("requests"));
    rec.drain_ns = json_int64(c.at("drain_ns"));
    rec.writes = json_int64(c, "writes", 0);
    rec.dropped = json_int64(c, "dropped", 0);
    if (const auto it = c.find("statuses"); it != c.end()) {
      for (const auto& [status, n] : it->items()) {
        const auto code = parse_status(status);
        if (!code)
          return Parsed<Results>::fail("counts.statuses: '" + status + "' is not a status");
        rec.statuses[*code] = json_int64(n);
      }
    }
    if (const auto it = c.find("dead_letter_reasons"); it != c.end()) {
      for (const auto& [reason, n] : it->items()) rec.dead_letter_reasons[reason] = json_int64(n);
    }
    r.trials = json_int64(j, "trials", 1);
    const auto& h = j.at("histograms");
    r.provider_side = h.at("provider_side").get<bool>();
    // By label name: a document from before an outcome was added lacks its column.
    rec.provider_by_outcome =
        BinnedCounts::from_json(h.at("provider_arrivals_by_outcome"), outcome_labels());
    rec.provider_by_send = BinnedCounts::from_json(h.at("provider_arrivals_by_send"));
    rec.client_by_outcome =
        BinnedCounts::from_json(h.at("client_sends_by_outcome"), outcome_labels());
    // Documents before it was recorded have none: no retries are known.
    if (const auto it = h.find("client_sends_by_send"); it != h.end()) {
      rec.client_by_send = BinnedCounts::from_json(*it);
      if (rec.client_by_send.labels() != 2)
        return Parsed<Results>::fail("client_sends_by_send needs the labels 1 and 2+");
    }
    // Documents before these were recorded have none: read as empty.
    if (const auto it = h.find("client_sends_by_send_number"); it != h.end()) {
      rec.client_by_send_number = BinnedCounts::from_json(*it);
      if (rec.client_by_send_number.labels() != kSendLabels)
        return Parsed<Results>::fail("client_sends_by_send_number needs the labels " +
                                     send_labels().front() + " to " + send_labels().back());
    }
    rec.backoff = BinnedCounts::from_json(h.at("backoff_transitions"));
    const auto& d = j.at("distributions");
    rec.item_latency_ns = LogHistogram::from_json(d.at("item_latency_ns"));
    rec.sends_per_item = LogHistogram::from_json(d.at("sends_per_item"));
    rec.lateness_ns = LogHistogram::from_json(d.at("lateness_ns"));
    if (const auto it = d.find("response_ns_by_send"); it != d.end()) {
      const auto labels = send_labels();
      for (const auto& [label, hist] : it->items()) {
        const auto at = std::find(labels.begin(), labels.end(), label);
        if (at == labels.end())
          return Parsed<Results>::fail("distributions.response_ns_by_send: '" + label +
                                       "' is not a send label");
        rec.response_ns_by_send[static_cast<std::size_t>(at - labels.begin())] =
            LogHistogram::from_json(hist);
      }
    }
    if (const auto it = j.find("streams"); it != j.end())
      rec.streams = stream_recording_from_json(*it);
    if (const auto it = j.find("token_limits"); it != j.end())
      rec.tokens = token_recording_from_json(*it);
    if (const auto it = j.find("trace"); it != j.end())
      rec.trace = trace_recording_from_json(*it, rec.client_by_send);
    if (const auto it = j.find("context"); it != j.end()) {
      r.context =
          RunContext{it->at("target").get<std::string>(), it->at("started_utc").get<std::string>(),
                     it->at("wall_s").get<double>(), it->at("time_scale").get<double>(),
                     it->at("stopped_by").get<std::string>()};
    }
    if (j.contains("shard")) {
      const auto& s = j.at("shard");
      r.shard = ShardInfo{json_int64(s.at("index")), json_int64(s.at("count")),
                          s.at("start_late_s").get<double>()};
      if (r.shard->count < 1 || r.shard->count > kMaxShards || r.shard->index < 0 ||
          r.shard->index >= r.shard->count)
        return Parsed<Results>::fail("shard: index " + std::to_string(r.shard->index) + " of " +
                                     std::to_string(r.shard->count) +
                                     ": needs 0 <= index < count <= " + std::to_string(kMaxShards));
    }
    return Parsed<Results>::ok(std::move(r));
  } catch (const std::exception& e) {
    return Parsed<Results>::fail(std::string("malformed results document: ") + e.what());
  }
}

Parsed<Results> load_results_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Parsed<Results>::fail("cannot read results file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  const json j = json::parse(text.str(), nullptr, false);
  if (j.is_discarded())
    return Parsed<Results>::fail("results file '" + path + "' is not valid JSON");
  auto r = results_from_json(j);
  if (!r) return Parsed<Results>::fail("results file '" + path + "': " + r.error());
  return r;
}

}  // namespace stampede
