#pragma once

#include <string>

#include "parsed.hpp"
#include "results.hpp"

namespace httplib {
struct Response;
}

namespace stampede {

// A live dashboard's "save" (fakeprovider's /dashboard/report, loadgen run/exec --dashboard's):
// the self-contained report `loadgen report` makes of one run's results, labelled as it would
// label them, as a file to keep named `filename`; or a 500 saying why there are no results.
void send_report_download(httplib::Response& res, const Parsed<Results>& results,
                          const std::string& label, const std::string& filename);

}  // namespace stampede
