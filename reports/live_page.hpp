#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "binned_counts.hpp"
#include "scenario.hpp"

namespace stampede {

// What a live dashboard's page says and where it reads.
struct LivePage {
  std::string title;        // "fakeprovider on 127.0.0.1:8080"
  std::string stream_path;  // its event stream, on the page's own origin: "/admin/live"
  // The fleet's view (loadgen run): its clients' answers and sends by send number, its
  // loops' wake lateness and the provider's view beside them, no tenants.
  bool fleet = false;
  // Where "save" downloads the run's report so far (fakeprovider's /dashboard/report); none:
  // no save link.
  std::string report_path;
};

// The live dashboard (fakeprovider's GET /dashboard, loadgen's --dashboard): one self-contained
// page, its styles (the report's) and script inline, that shows its stream's events as they
// come, each drawn by the server (live_panels, add_live_figures) and swapped in: the charts,
// the totals (the requests in the element with id `requests`), the lockstep score and the
// busiest tenants; a fleet's page the fleet's items, its wake lateness and the provider's
// view. Its
// Content-Security-Policy allows no request but to its own origin, and nothing from
// elsewhere. When the stream ends it says so and keeps the last picture.
std::string render_live_page(const LivePage& page);

// What the page's two charts are drawn from: the counts so far, binned at the send as the
// report bins them.
struct LiveCounts {
  const BinnedCounts& by_outcome;
  const BinnedCounts& by_send;  // by send number (send_labels)
  // The scenario clock when they were read: the seconds since the reset (or the start).
  std::int64_t now_ns;
  bool provider_side = true;  // arrivals at the provider; else the clients' answers and sends
};

// The live charts' time axis runs to now, not to the last bin with traffic: a quiet spell, or
// an outage that turns every request away, is time that passed, and an outage still going is
// shaded to now (one not begun yet, not at all). Its columns are the report's for the counts
// so far (column_ns), widened when more than kMaxColumns of them would be needed to reach now.
struct LiveAxis {
  std::int64_t column_ns;
  double end_s;  // now, in seconds
};
LiveAxis live_axis(std::int64_t column_ns, std::int64_t now_ns);

// An event's "panels": the page's chart elements by id ("arrivals-chart", "waves-chart", after
// the prefix: "provider-" for the provider's view on the fleet's page) and the SVG each shows,
// drawn by the report's own charts (arrivals by outcome, the waves by send number) as the
// report of these counts under these limits and outages would draw them, their axis to now
// (live_axis). Made once per event, whatever the number of pages that watch.
nlohmann::json live_panels(const LiveCounts& counts, const ProviderConfig& provider,
                           std::string_view prefix = "");

// Adds to an event (of docs/ADMIN_API.md's shape, its charts in "panels" already) the markup
// of the page's figures, from the event's own fields: to "panels" the totals ("requests",
// "more-figures": the rate now and the peak ratio among them), and on the fleet's page
// (fleet_page: loadgen run's) the wake lateness and the provider's view, else the lockstep
// score, the busiest tenants and proxy mode's upstream; "hidden": the sections the page hides
// ("provider-view" when the provider was not read, "tenants" with none, "upstream" without
// one); and "updated": when it was taken, in words, for the page's status line. The page's
// script only swaps them in.
void add_live_figures(nlohmann::json& event, bool fleet_page);

}  // namespace stampede
