#include "charts.hpp"

#include <algorithm>

#include "chart_kinds.hpp"

namespace stampede {
namespace {

// A chart of the page: what the page says about it, and what draws it.
Chart entry(const ChartKind& kind, std::string_view id, std::string_view title,
            std::string_view note) {
  return {id, title, note, kind.applies, kind.extent, kind.draw, kind.legend, kind.tail};
}

}  // namespace

const std::vector<Chart>& report_charts() {
  static const std::vector<Chart> charts{
      entry(
          kArrivalsChart, "arrivals", "Arrivals per second, by outcome",
          "What the provider saw each second (the clients' sends when it kept no record), against "
          "its allowance. A lockstep fleet arrives in spikes many times the allowance; a jittered "
          "one in a low, even band."),
      entry(kWavesChart, "waves", "Sends per second, by send number",
            "Every send coloured by which send of its item it was: first sends, first retries, "
            "second retries ... as the clients numbered them (the provider's count from X-Attempt "
            "when they kept no record). Lockstep retries come back as one wave per send number."),
      entry(kRetriesChart, "retries", "Retries per second, from the first retry on",
            "The retries alone, on their own scale, from where the gate's peak_retry_ratio starts "
            "counting (t=1 s, or the end of the last outage): the first sends at t=0 would "
            "flatten them. The dashed line is the declared allowance, not a measurement."),
      entry(kStatusesChart, "statuses", "Status codes per second",
            "Each answer as the clients read it, by status, by the time it was sent: a run that "
            "fails shows here what it was answered."),
      entry(kFidelityChart, "fidelity", "Client sends and provider arrivals",
            "The harness's fidelity: what the clients sent each second against what reached the "
            "provider. The lines should coincide."),
      entry(kTraceChart, "trace", "The trace against the fleet",
            "A trace run's arrivals per second as the trace has them (after --speed, --scale, "
            "--from and --to), beside the fleet's first sends and the retries its policy added. "
            "The first sends should lie on the trace; where they fall short, arrivals found "
            "every client busy and were dropped."),
      entry(kBackoffChart, "backoff", "Items waiting in backoff",
            "How many items were asleep between a failed send and their next one."),
      entry(
          kLatencyChart, "latency", "Item latency",
          "When each delivered item got through, counted from when it was meant to start, backoff "
          "included."),
      entry(kAttemptsChart, "attempts", "Sends per item",
            "How many sends each finished item took: every extra send is load on the provider."),
      entry(
          kLatenessChart, "lateness", "Wake lateness",
          "How late the live harness sent each request after the time it meant to: its own error, "
          "small next to the delays it measures."),
      entry(kResponseChart, "response", "Response time by send number",
            "How long each answer took, from writing the request to reading the answer (wall "
            "time), one line per send number: a provider under a herd answers its retries "
            "slower, or faster with a refusal."),
      entry(kStreamsChart, "streams", "Time to first token",
            "A streamed run's answers as its clients read them (wall time from writing the "
            "request): when the first token came, and when a completed stream ended. Under a "
            "storm, the first token waits behind the retries' queue and the provider's pacing."),
      entry(kOpenStreamsChart, "open-streams", "Open streams over time",
            "Streams open at the end of each second of scenario time, each from its request's "
            "send to its last byte, broken ones too. A provider bound by concurrency fills up "
            "here while the request rate stays flat."),
      entry(kRefusalsChart, "refusals-by-limit", "Refusals per second, by limit",
            "Each 429 by the limit that refused it (its body's reason, else the rate-limit "
            "header at 0): a fleet whose LLM requests are refused by output tokens while their "
            "output is small is caught by max_tokens, not by what it writes."),
      entry(kInputTokensChart, "input-tokens", "Input tokens admitted per second",
            "The input tokens of the LLM requests admitted each second, against the input-token "
            "and token allowances in force (a per-minute allowance drawn as its rate a second)."),
      entry(kOutputTokensChart, "output-tokens", "Output tokens reserved and settled",
            "At admission a request reserves its max_tokens of the output allowance; at its "
            "answer's end it is settled to the tokens written, and the rest goes back. Reserved "
            "far above settled, at the allowance's line, is the max_tokens trap."),
      entry(kDeadLetterChart, "dead-letters", "Dead letters by reason",
            "Items given up on, by why, and the items a stop left unfinished: nothing is lost "
            "silently."),
  };
  return charts;
}

std::int64_t column_ns_for(const std::vector<Results>& runs) {
  std::int64_t bin_ns = kNsPerSec;
  std::size_t bins = 0;
  for (const auto& r : runs) {
    const auto& rec = r.recording;
    for (const BinnedCounts* h :
         {&rec.provider_by_outcome, &rec.provider_by_send, &rec.client_by_outcome, &rec.backoff,
          &rec.streams.open_transitions, &rec.tokens.flows, &rec.tokens.refusals}) {
      bin_ns = std::max(bin_ns, h->bin_ns());
      bins = std::max(bins, h->bins());
    }
  }
  const auto per_column = std::max<std::size_t>(1, (bins + kMaxColumns - 1) / kMaxColumns);
  return bin_ns * static_cast<std::int64_t>(per_column);
}

ChartScale shared_scale(const Chart& chart, const std::vector<Results>& runs,
                        std::int64_t column_ns) {
  ChartScale shared;
  shared.column_ns = column_ns;
  bool first = true;
  for (const auto& r : runs) {
    if (!chart.applies(r)) continue;
    const auto s = chart.extent(r, column_ns);
    shared.x_min = first ? s.x_min : std::min(shared.x_min, s.x_min);
    first = false;
    shared.x_max = std::max(shared.x_max, s.x_max);
    shared.y_max = std::max(shared.y_max, s.y_max);
  }
  return shared;
}

std::optional<ChartScale> tail_zoom(const Chart& chart, const std::vector<Results>& runs,
                                    const ChartScale& shared) {
  if (!chart.tail) return std::nullopt;
  double top = 0;
  for (const auto& r : runs) {
    if (chart.applies(r)) top = std::max(top, chart.tail(r, shared));
  }
  if (!(top > 0)) return std::nullopt;
  auto zoom = shared;
  zoom.y_max = top;
  return zoom;
}

}  // namespace stampede
