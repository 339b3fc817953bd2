#include "terminal_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "sparkline.hpp"

namespace stampede {
namespace {

constexpr std::size_t kWavesShown = 10;

std::string fmt(const char* f, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

std::string number(double v) {
  // Only a value a long long holds may be cast to one: a document's count can be anything.
  constexpr double kLongLongEnd = 9'223'372'036'854'775'808.0;  // 2^63
  if (v > -kLongLongEnd && v < kLongLongEnd && v == static_cast<double>(static_cast<long long>(v)))
    return fmt("%lld", static_cast<long long>(v));
  // A mean of trials: whole units are precision enough past a thousand.
  if (v >= 1000 || v <= -1000) return fmt("%.0f", v);
  return fmt("%.3g", v);
}

// A latency or a wait: "%.3f s" would print anything under a millisecond as 0.000 s.
std::string seconds_text(double s) {
  if (s >= 0.9995 || s <= 0) return fmt("%.3f s", s);
  return fmt("%.3g ms", s * 1000);
}

// The arrivals the summary's peak and waves are counted from: the provider's, when it had a view.
const BinnedCounts& arrivals(const Results& r) {
  return r.provider_side ? r.recording.provider_by_outcome : r.recording.client_by_outcome;
}

// The width a peak was counted over, so it can be set beside advise's (over a round's window).
std::string bins_of(const BinnedCounts& h) {
  return number(ns_to_s(h.bin_ns())) + " s bins";
}

std::string waves(const Results& r) {
  const auto& h = arrivals(r);
  const auto first = static_cast<std::size_t>(recovery_ns(r.scenario.provider) / h.bin_ns());
  std::string out;
  std::size_t shown = 0;
  for (std::size_t b = first; b < h.bins(); ++b) {
    const auto n = h.bin_total(b);
    if (n == 0) continue;
    if (shown == kWavesShown) return out + " ...";
    out += fmt("%st=%lld: %lld", shown ? ", " : "  ",
               static_cast<long long>(static_cast<std::int64_t>(b) * h.bin_ns() / kNsPerSec),
               static_cast<long long>(n));
    ++shown;
  }
  // Past the histogram's last bin: counted, but not by second.
  if (const auto late = h.overflow_total(); late > 0) {
    out += fmt("%st>=%lld: %lld (past the last bin)", shown ? ", " : "  ",
               static_cast<long long>(h.overflow_start_ns() / kNsPerSec),
               static_cast<long long>(late));
  }
  return out;
}

// " (30 attempts exhausted, 10 not retryable)": why items were given up on, the most first,
// so a 404 behind a proxy reads apart from a policy's limit. Empty when none was.
std::string why_dead_lettered(const Recording& rec) {
  std::vector<std::pair<std::string, std::int64_t>> reasons(rec.dead_letter_reasons.begin(),
                                                            rec.dead_letter_reasons.end());
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (auto [reason, n] : reasons) {
    if (n <= 0) continue;
    std::replace(reason.begin(), reason.end(), '_', ' ');
    out += (out.empty() ? " (" : ", ") + std::to_string(n) + " " + reason;
  }
  return out.empty() ? out : out + ")";
}

}  // namespace

// The token_limits section: which limits refused, most first, and what the LLM requests
// reserved against what they wrote.
std::string token_lines(const TokenRecording& t) {
  std::string out;
  if (const auto refused = refused_by_line(t); !refused.empty())
    out += "refused by: " + refused + "\n";
  const auto admitted = t.flow_total(TokenRecording::kAdmitted);
  if (admitted == 0) return out;
  const auto reserved = t.flow_total(TokenRecording::kReserved);
  const auto settled = t.flow_total(TokenRecording::kSettled);
  out +=
      fmt("tokens: %lld LLM requests admitted, %lld input tokens; output reserved %lld, "
          "settled %lld",
          static_cast<long long>(admitted),
          static_cast<long long>(t.flow_total(TokenRecording::kInput)),
          static_cast<long long>(reserved), static_cast<long long>(settled));
  // An answer whose output was not read settled nothing here: a share would understate.
  const auto unread = admitted - t.flow_total(TokenRecording::kSettledAnswers);
  if (unread > 0)
    return out + fmt(" (%lld answers' output not read: no usage in the body kept)\n",
                     static_cast<long long>(unread));
  return out + fmt(" (%.1f%% of reserved)\n", reserved > 0 ? 100.0 * static_cast<double>(settled) /
                                                                 static_cast<double>(reserved)
                                                           : 0.0);
}

std::string format_terminal_summary(const Results& r) {
  const auto& s = r.summary;
  const auto& f = r.scenario.fleet;
  const auto& p = r.scenario.provider;
  std::string out;
  if (r.engine == "exec") {
    // The fleet was the user's program: its policy is its own, not the scenario's.
    out += fmt("%s (exec): %lld clients, the program's own retry policy\n", r.scenario.name.c_str(),
               static_cast<long long>(f.clients));
  } else {
    out += fmt("%s (%s): %lld clients, %s workload, %s base %s cap %s, seed %llu\n",
               r.scenario.name.c_str(), r.engine.c_str(), static_cast<long long>(f.clients),
               std::string(to_string(f.workload)).c_str(),
               std::string(to_string(f.strategy)).c_str(), format_duration(f.base_ns).c_str(),
               format_duration(f.cap_ns).c_str(), static_cast<unsigned long long>(f.seed));
  }
  std::string outages;
  for (const auto& w : p.outages) outages += " " + format_outage(w);
  // LLM quotas only when set, so other scenarios' summaries read as before.
  std::string quotas;
  if (p.token_allowance) quotas += ", tokens " + format_rate(*p.token_allowance);
  if (p.input_token_allowance) quotas += ", input tokens " + format_rate(*p.input_token_allowance);
  if (p.output_token_allowance)
    quotas += ", output tokens " + format_rate(*p.output_token_allowance);
  if (p.max_concurrent) quotas += ", " + std::to_string(*p.max_concurrent) + " open at once";
  if (p.spend_cap) quotas += ", spend cap " + std::to_string(*p.spend_cap) + " tokens";
  out += fmt("provider: allowance %s (%s)%s%s%s\n",
             p.allowance ? format_rate(*p.allowance).c_str() : "unlimited",
             std::string(to_string(p.limiter)).c_str(), quotas.c_str(),
             outages.empty() ? "" : ", outages", outages.c_str());
  if (r.trials > 1) {
    out += fmt("the means of %lld trials, trial t with seed %llu + t\n",
               static_cast<long long>(r.trials), static_cast<unsigned long long>(f.seed));
  }
  out += "\n";
  // With no outage there is no recovery: the busiest second is simply that. With no allowance
  // there is nothing to measure it against.
  const bool outage = !p.outages.empty();
  const bool allowance = p.allowance.has_value() || p.capacity.has_value();
  const std::string bins = bins_of(arrivals(r));
  const std::string send_bins = bins_of(r.recording.client_by_send);
  // A peak of nothing is not a peak: "t=0 s, 0 requests" would read as a second at t=0.
  if (s.peak_arrivals > 0) {
    out += fmt("busiest second%s: t=%s s, %s requests (%s%s)\n", outage ? " after recovery" : "",
               number(s.peak_second).c_str(), number(s.peak_arrivals).c_str(),
               allowance ? fmt("%.1fx the allowance; ", s.peak_ratio).c_str() : "", bins.c_str());
  } else if (outage) {
    out += fmt("no request arrived after the recovery at t=%s s\n",
               number(ns_to_s(recovery_ns(p))).c_str());
  }
  if (s.peak_retries > 0) {
    out += fmt("busiest second among retries, past the first: t=%s s, %s retries (%s%s)\n",
               number(s.peak_retry_second).c_str(), number(s.peak_retries).c_str(),
               allowance ? fmt("%.1fx; ", s.peak_retry_ratio).c_str() : "", send_bins.c_str());
  }
  out += fmt("requests made:  %s (%.2f per item, %.0f%% retries)\n", number(s.requests).c_str(),
             s.amplification, 100 * s.retry_share);
  if (s.writes > 0) {
    out += fmt("conditional writes: %s (%.2f per item)\n", number(s.writes).c_str(),
               s.items > 0 ? s.writes / s.items : 0.0);
  }
  out += fmt("delivered %s of %s, dead-lettered %s%s, unfinished %s\n", number(s.delivered).c_str(),
             number(s.items).c_str(), number(s.dead_lettered).c_str(),
             why_dead_lettered(r.recording).c_str(), number(s.unfinished).c_str());
  // The open model only, so the other workloads' summaries read as before.
  if (f.open_model()) {
    out += fmt("dropped %s (%.1f%%): arrived with every one of the %lld clients busy, never sent\n",
               number(s.dropped).c_str(), 100 * s.dropped_ratio, static_cast<long long>(f.clients));
  }
  out += token_lines(r.recording.tokens);
  if (const auto& trace = r.recording.trace) {
    const auto t = trace_fidelity(*trace, r.recording.client_by_send);
    out +=
        fmt("trace replay: first sends late by p99 %.3f ms (max %.3f ms); first sends a second "
            "at most %lld off the trace's (t=%s s); inter-arrival KS distance %.3f\n",
            t.lag_p99_ms, t.lag_max_ms, static_cast<long long>(t.most.count),
            number(t.most.at_s).c_str(), t.gaps_ks);
  }
  if (s.delivered > 0) {
    out += fmt("last item got through at t=%s s; item latency p50 %s, p99 %s\n",
               number(s.drain_s).c_str(), seconds_text(s.p50_s).c_str(),
               seconds_text(s.p99_s).c_str());
  } else {
    out += "no item got through\n";
  }
  if (r.engine == "run") {
    out += fmt("harness wake lateness: p50 %.3f ms, p99 %.3f ms\n", s.lateness_p50_ms,
               s.lateness_p99_ms);
  }
  if (const auto busy = waves(r); !busy.empty())
    out += std::string("\nseconds with any traffic") + (outage ? ", after the outage" : "") +
           ":\n" + busy + "\n";
  if (!r.verdicts.empty()) {
    out += "\n";
    for (const auto& v : r.verdicts) {
      out += fmt("  %s  %s (%s)", verdict_label(v), v.text.c_str(), number(v.actual).c_str());
      out += (v.passed || v.why.empty() ? "" : "  " + v.why) + "\n";
    }
  }
  // Last, so the herd is the one thing on screen without opening the report.
  if (const auto spark = arrivals_sparkline(r); !spark.empty()) out += "\n" + spark + "\n";
  return out;
}

}  // namespace stampede
