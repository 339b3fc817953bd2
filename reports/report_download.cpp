#include "report_download.hpp"

#include <httplib.h>

#include "html_report.hpp"
#include "json_text.hpp"

namespace stampede {

void send_report_download(httplib::Response& res, const Parsed<Results>& results,
                          const std::string& label, const std::string& filename) {
  res.set_header("Cache-Control", "no-store");
  if (!results) {
    res.status = 500;
    res.set_content(json_text({{"error", "no report to save: " + results.error()}}) + "\n",
                    "application/json");
    return;
  }
  res.set_header("Content-Disposition", "attachment; filename=\"" + filename + "\"");
  res.set_content(render_report({*results}, {label}), "text/html; charset=utf-8");
}

}  // namespace stampede
