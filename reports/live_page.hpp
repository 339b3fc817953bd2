#pragma once

#include <string>

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
// page, its styles (the report's) and script inline, that draws its stream's events as they
// come, in the report's charts' layout, layers and colours: arrivals per second by outcome
// against the allowance with the outages shaded, arrivals by send number and the lockstep
// score, the busiest tenants, the totals (the requests in the element with id `requests`);
// a fleet's page the fleet's answers and sends, its wake lateness and the provider's view.
// Its Content-Security-Policy allows no request but to its own origin, and nothing from
// elsewhere. When the stream ends it says so and keeps the last picture.
std::string render_live_page(const LivePage& page);

}  // namespace stampede
