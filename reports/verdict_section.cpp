#include "verdict_section.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>

#include "check_advice.hpp"
#include "html_escape.hpp"

namespace stampede {
namespace {

// A check that did not pass, and the run it is of ("" when the report has one run).
struct Failure {
  std::string run;
  Verdict verdict;
};

// The failed checks that share one advice, in the order the first of them came; refused
// checks (not judged) have none: their line says what to do.
struct AdviceGroup {
  std::optional<CheckAdvice> advice;
  std::vector<Failure> failures;
};

std::vector<AdviceGroup> advice_groups(const std::vector<Results>& runs,
                                       const std::vector<std::string>& labels) {
  std::vector<AdviceGroup> groups;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const auto& v : distinct_verdicts(runs[i].verdicts)) {
      if (v.passed) continue;
      std::optional<CheckAdvice> advice;
      if (!v.refused) advice = advice_for(checked_metric(v.text), fleet_jitter(runs[i]));
      auto group = std::find_if(groups.begin(), groups.end(), [&](const AdviceGroup& g) {
        return g.advice.has_value() == advice.has_value() &&
               (!advice ||
                (g.advice->topic == advice->topic && g.advice->change == advice->change));
      });
      if (group == groups.end()) group = groups.insert(groups.end(), AdviceGroup{advice, {}});
      group->failures.push_back({runs.size() > 1 ? labels[i] : "", v});
    }
  }
  return groups;
}

std::string failure_item(const Failure& f) {
  std::string out = "<li>";
  if (!f.run.empty()) out += html_element("b", f.run) + ": ";
  return out + html_element("span", verdict_label(f.verdict), "fail") + " " +
         html_element("code", f.verdict.text) + ": " + html_escape(miss_text(f.verdict)) + "</li>";
}

// The advice as HTML, each flag it names set as code that does not break across lines.
std::string advice_html(std::string_view text) {
  std::string out;
  std::size_t plain = 0;
  for (std::size_t at = text.find("--"); at != std::string_view::npos;
       at = text.find("--", at + 2)) {
    auto end = at + 2;
    while (end < text.size() && (std::islower(static_cast<unsigned char>(text[end])) ||
                                 (text[end] == '-' && end > at + 2)))
      ++end;
    if (end == at + 2 || at < plain) continue;
    out += html_escape(text.substr(plain, at - plain)) +
           html_element("code", text.substr(at, end - at), "flag");
    plain = end;
  }
  return out + html_escape(text.substr(plain));
}

std::string checks_counted(std::size_t failed, std::size_t all) {
  return std::to_string(failed) + " of " + std::to_string(all) + (all == 1 ? " check" : " checks");
}

std::string verdict_headline(const std::vector<Results>& runs,
                             const std::vector<std::string>& labels) {
  std::size_t all = 0;
  std::string failed_runs;
  std::size_t failed_checks = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto shown = distinct_verdicts(runs[i].verdicts);
    const auto failed = static_cast<std::size_t>(
        std::count_if(shown.begin(), shown.end(), [](const Verdict& v) { return !v.passed; }));
    all += shown.size();
    failed_checks += failed;
    if (failed > 0) {
      failed_runs += (failed_runs.empty() ? "" : ", ") + labels[i] + " (" +
                     checks_counted(failed, shown.size()) + ")";
    }
  }
  if (all == 0) return "No checks were run: nothing here was judged";
  if (failed_checks == 0) {
    if (runs.size() > 1) return "Passed: every check of every run held";
    return all == 1 ? "Passed: its one check held"
                    : "Passed: all " + std::to_string(all) + " checks held";
  }
  if (runs.size() > 1) return "Failed: " + failed_runs;
  return "Failed: " + checks_counted(failed_checks, all);
}

// What held, after what did not: the passed checks of one run, or each run that passed all.
std::string passed_note(const std::vector<Results>& runs, const std::vector<std::string>& labels) {
  std::string text;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto shown = distinct_verdicts(runs[i].verdicts);
    if (runs.size() == 1) {
      for (const auto& v : shown) {
        if (v.passed) text += (text.empty() ? "Passed: " : ", ") + v.text;
      }
    } else if (!shown.empty() &&
               std::all_of(shown.begin(), shown.end(), [](const Verdict& v) { return v.passed; })) {
      text += (text.empty() ? "" : " ") + labels[i] + ": all " + std::to_string(shown.size()) +
              " checks passed.";
    }
  }
  if (text.empty()) return "";
  return html_element("p", runs.size() == 1 ? text + "." : text, "note");
}

}  // namespace

std::string verdict_section(const std::vector<Results>& runs,
                            const std::vector<std::string>& labels) {
  const auto groups = advice_groups(runs, labels);
  std::string out = "<section id=\"verdict\" class=\"verdict " +
                    std::string(groups.empty() ? "held" : "failed") + "\">" +
                    html_element("h2", verdict_headline(runs, labels));
  for (const auto& group : groups) {
    out += "<ul>";
    for (const auto& f : group.failures) out += failure_item(f);
    out += "</ul>";
    if (group.advice) {
      out += "<p class=\"change\"><b>What to change</b> " +
             html_escape("(" + group.advice->topic + "): ") + advice_html(group.advice->change) +
             "</p>";
    }
  }
  out += passed_note(runs, labels);
  const bool exec_failed = std::any_of(runs.begin(), runs.end(), [](const Results& r) {
    return r.engine == "exec" && std::any_of(r.verdicts.begin(), r.verdicts.end(),
                                             [](const Verdict& v) { return !v.passed; });
  });
  if (exec_failed) {
    out += html_element("p",
                        "An exec fleet retries by its program's own policy: the flags above are "
                        "loadgen's names for what to change in that program's retry settings.",
                        "note");
  }
  return out + "</section>\n";
}

}  // namespace stampede
