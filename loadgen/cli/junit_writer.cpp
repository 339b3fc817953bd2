#include "cli/junit_writer.hpp"

#include <algorithm>

#include "output_path.hpp"
#include "report_format.hpp"

namespace stampede {

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

std::vector<JunitCase> junit_cases(const std::vector<Verdict>& verdicts) {
  std::vector<JunitCase> cases;
  for (const auto& v : verdicts) {
    if (v.passed) {
      cases.push_back({v.text, JunitCase::State::kPassed, {}});
      continue;
    }
    // A check the run could not judge is the gate's error, not the fleet's failure.
    if (v.refused) {
      cases.push_back({v.text, JunitCase::State::kError, v.text + " refused: " + v.why});
      continue;
    }
    std::string message = v.text + " failed: actual " + format_general(v.actual) +
                          ", compared with " + format_general(v.expected);
    if (!v.why.empty()) message += ": " + v.why;
    cases.push_back({v.text, JunitCase::State::kFailed, std::move(message)});
  }
  return cases;
}

std::string format_junit(const std::string& suite_name, const std::vector<JunitCase>& cases,
                         double time_s) {
  const auto count = [&](JunitCase::State state) {
    return std::to_string(std::count_if(cases.begin(), cases.end(),
                                        [&](const JunitCase& c) { return c.state == state; }));
  };
  const std::string failures = count(JunitCase::State::kFailed);
  const std::string errors = count(JunitCase::State::kError);
  const std::string tests = std::to_string(cases.size());
  const std::string suite = xml_escape(suite_name);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites tests=\"" + tests + "\" failures=\"" + failures + "\" errors=\"" + errors +
         "\" time=\"" + format_general(time_s) + "\">\n";
  out += "  <testsuite name=\"" + suite + "\" tests=\"" + tests + "\" failures=\"" + failures +
         "\" errors=\"" + errors + "\" time=\"" + format_general(time_s) + "\">\n";
  for (const auto& c : cases) {
    out += "    <testcase classname=\"" + suite + "\" name=\"" + xml_escape(c.name) + "\"";
    if (c.state == JunitCase::State::kPassed) {
      out += "/>\n";
      continue;
    }
    const char* element = c.state == JunitCase::State::kError ? "error" : "failure";
    const std::string message = xml_escape(c.message);
    out += ">\n      <" + std::string(element) + " message=\"" + message + "\">" + message + "</" +
           element + ">\n    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

std::optional<std::string> write_verdicts_junit(const std::string& path,
                                                const std::string& suite_name,
                                                const std::vector<Verdict>& verdicts) {
  return write_output(path, format_junit(suite_name, junit_cases(verdicts), 0));
}

}  // namespace stampede
