#include "cli/junit_writer.hpp"

#include <algorithm>
#include <cstdio>

namespace stampede {
namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 has no way to spell most control characters; drop them.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n' || c == '\r') out += c;
    }
  }
  return out;
}

std::string format_junit(const std::string& suite_name, const std::vector<Verdict>& verdicts,
                         double time_s) {
  const auto failures =
      std::count_if(verdicts.begin(), verdicts.end(), [](const Verdict& v) { return !v.passed; });
  const std::string suite = xml_escape(suite_name);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites tests=\"" + std::to_string(verdicts.size()) + "\" failures=\"" +
         std::to_string(failures) + "\" time=\"" + number(time_s) + "\">\n";
  out += "  <testsuite name=\"" + suite + "\" tests=\"" + std::to_string(verdicts.size()) +
         "\" failures=\"" + std::to_string(failures) + "\" errors=\"0\" time=\"" + number(time_s) +
         "\">\n";
  for (const auto& v : verdicts) {
    out += "    <testcase classname=\"" + suite + "\" name=\"" + xml_escape(v.text) + "\"";
    if (v.passed) {
      out += "/>\n";
      continue;
    }
    const std::string message = xml_escape(v.text + " failed: actual " + number(v.actual) +
                                           ", compared with " + number(v.expected));
    out += ">\n      <failure message=\"" + message + "\">" + message +
           "</failure>\n    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace stampede
