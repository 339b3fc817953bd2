#include "nearest_name.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <utility>

namespace stampede {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic-programming table: the swap looks two rows back.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    before.swap(previous);
    previous.swap(row);
  }
  return previous[b.size()];
}

std::optional<std::string> nearest_name(std::string_view given,
                                        const std::vector<std::string>& candidates) {
  if (given.empty()) return std::nullopt;
  // A third of the name: a one-letter change to a two-letter flag ("-x" for "-q") is no slip.
  const std::size_t slack = given.size() / 3;
  std::optional<std::string> best;
  std::size_t best_distance = slack + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(given, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  if (best) return best;
  std::optional<std::string> prefixed;
  for (const auto& c : candidates) {
    if (c.size() <= given.size() || c.compare(0, given.size(), given) != 0) continue;
    if (prefixed) return std::nullopt;  // the start of two names means neither
    prefixed = c;
  }
  return prefixed;
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates) {
  const auto name = nearest_name(given, candidates);
  return name ? "; did you mean '" + *name + "'?" : "";
}

namespace {

// Other tools' words for a flag, which a newcomer types first: the flag that means it here.
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kOtherWords{{
    {"--port", "--listen"},
    {"--host", "--listen"},
    {"--bind", "--listen"},
    {"--admin-port", "--admin-listen"},
    {"--rate", "--allowance"},
}};

bool is_known(std::string_view name, const std::vector<std::string>& known) {
  return std::find(known.begin(), known.end(), name) != known.end();
}

// Another tool's word (certain, so first: "--admin-port" is a few slips from
// "--admin-token" too), else a slip, else the one flag that ends with the given one
// ("--retry-after" is "--provider-retry-after" where a fleet flag took the short name).
std::string flag_fix(const std::string& name, const std::vector<std::string>& known) {
  for (const auto& [other, here] : kOtherWords) {
    if (name == other && is_known(here, known))
      return "; did you mean '" + std::string(here) + "'?";
  }
  if (auto near = did_you_mean(name, known); !near.empty()) return near;
  std::optional<std::string> longer;
  for (const auto& k : known) {
    if (k.size() <= name.size() + 1 || !k.ends_with(name.substr(1))) continue;
    if (longer) return "";  // the end of two names means neither
    longer = k;
  }
  return longer ? "; did you mean '" + *longer + "'?" : "";
}

}  // namespace

std::optional<std::string> unknown_flag(const std::vector<std::string>& args,
                                        const std::vector<std::string>& known) {
  for (const auto& arg : args) {
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9') || arg[1] == '.')
      continue;
    const std::string name = arg.substr(0, arg.find('='));
    if (is_known(name, known)) continue;
    return "unknown flag '" + name + "'" + flag_fix(name, known);
  }
  return std::nullopt;
}

}  // namespace stampede
