#include "stages.hpp"

#include "duration.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {

// A target: a rate as --rate takes it, or a zero count in one of its units ("0/s").
Parsed<Rate> parse_target(std::string_view text) {
  const auto slash = text.find('/');
  if (slash != std::string_view::npos && text.substr(0, slash) == "0") {
    auto unit = parse_rate("1" + std::string(text.substr(slash)));
    if (!unit) return parse_rate(text);  // its error names the unit
    return Parsed<Rate>::ok(Rate{0, unit->window_ns});
  }
  return parse_rate(text);
}

Parsed<Stage> parse_stage(std::string_view text) {
  const auto colon = text.find(':');
  const auto bad = [&](const std::string& why) {
    return Parsed<Stage>::fail("stage '" + std::string(text) + "': " + why);
  };
  if (colon == std::string_view::npos) return bad("expected DURATION:RATE, e.g. 30s:10/s");
  const auto duration = parse_duration_ns(text.substr(0, colon));
  if (!duration) return bad(duration.error());
  if (*duration <= 0) return bad("its duration must be longer than zero");
  const auto target = parse_target(text.substr(colon + 1));
  if (!target) return bad(target.error());
  return Parsed<Stage>::ok({*duration, *target});
}

}  // namespace

double per_second(const Rate& r) {
  return r.count == 0 ? 0.0 : r.per_second();
}

Parsed<Stages> parse_stages(std::string_view text) {
  const auto fail = [](const std::string& why) { return Parsed<Stages>::fail(why); };
  if (text.empty())
    return fail("empty; expected DURATION:RATE stages, e.g. 30s:10/s,2m:100/s,30s:0/s");
  Stages out;
  std::size_t pos = 0;
  bool first = true;
  while (pos <= text.size()) {
    const auto comma = text.find(',', pos);
    const auto part = text.substr(pos, comma == std::string_view::npos ? comma : comma - pos);
    if (part.empty()) return fail("'" + std::string(text) + "' has an empty stage");
    if (first && part.find(':') == std::string_view::npos) {
      const auto start = parse_target(part);
      if (!start) return fail("start rate: " + start.error());
      out.start = *start;
    } else {
      const auto stage = parse_stage(part);
      if (!stage) return fail(stage.error());
      if (out.stages.size() == kMaxStages)
        return fail("more than " + std::to_string(kMaxStages) + " stages");
      out.stages.push_back(*stage);
    }
    first = false;
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (out.stages.empty()) return fail("'" + std::string(text) + "' has a start rate but no stage");
  if (stages_duration_ns(out) == kMaxNs) return fail("the stages last longer than int64 time");
  return Parsed<Stages>::ok(std::move(out));
}

std::string format_stages(const Stages& s) {
  std::string out;
  if (s.start.count != 0) out = format_rate(s.start);
  for (const auto& stage : s.stages) {
    if (!out.empty()) out += ",";
    out += format_duration(stage.duration_ns) + ":" + format_rate(stage.target);
  }
  return out;
}

std::int64_t stages_duration_ns(const Stages& s) {
  std::int64_t total = 0;
  for (const auto& stage : s.stages) total = saturating_add(total, stage.duration_ns);
  return total;
}

double stages_area(const Stages& s) {
  double area = 0;
  double from = per_second(s.start);
  for (const auto& stage : s.stages) {
    const double to = per_second(stage.target);
    area += (from + to) / 2 * ns_to_s(stage.duration_ns);
    from = to;
  }
  return area;
}

}  // namespace stampede
