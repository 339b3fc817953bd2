#include "provider_agreement.hpp"

#include "scenario_fields.hpp"
#include "scenario_flags.hpp"

namespace stampede {
namespace {

// A printed field as its flag spells it; a field printed as nothing is its default, or none.
std::string as_flag_text(const ScenarioField& f, const std::optional<nlohmann::json>& printed) {
  if (!printed) return f.default_text.empty() ? "none" : std::string(f.default_text);
  if (printed->is_string()) return printed->get<std::string>();
  if (!printed->is_array()) return printed->dump();
  std::string list;
  for (const auto& v : *printed)
    list += (list.empty() ? "" : ",") + (v.is_string() ? v.get<std::string>() : v.dump());
  return list.empty() ? "none" : list;
}

std::string setter_of(const ScenarioField& f) {
  return (f.in & kLoadgen) != 0 ? loadgen_flag(f) : std::string(f.name);
}

}  // namespace

Parsed<ProviderAgreement> agree_on_provider(const Scenario& ours, const nlohmann::json& enforced) {
  using Result = Parsed<ProviderAgreement>;
  if (!enforced.is_object()) return Result::fail("its provider section is not an object");
  // The fleet stays loadgen's: what a field prints may depend on it (the token fields).
  Scenario theirs = ours;
  theirs.provider = ProviderConfig{};
  for (const auto& [key, value] : enforced.items()) {
    if (auto e = set_field(theirs, "provider." + key, value)) return Result::fail(*e);
  }
  ProviderAgreement agreement{theirs.provider, {}};
  for (const auto& f : scenario_fields()) {
    if (f.section() != "provider" || !ours.given.contains(std::string(f.name))) continue;
    const auto said = f.print(ours);
    const auto enforced_value = f.print(theirs);
    if (said == enforced_value) continue;
    agreement.disagreements.push_back({std::string(f.key()), setter_of(f), as_flag_text(f, said),
                                       as_flag_text(f, enforced_value)});
  }
  return Result::ok(std::move(agreement));
}

std::string disagreement_error(const std::vector<ProviderDisagreement>& disagreements,
                               const std::string& where) {
  std::string ours, theirs, setters;
  for (const auto& d : disagreements) {
    const char* sep = ours.empty() ? "" : ", ";
    ours += sep + d.key + " " + d.ours;
    theirs += sep + d.key + " " + d.theirs;
    setters += (setters.empty() ? "" : " and ") + d.flag;
  }
  return "loadgen's scenario says " + ours + ", the provider at " + where + " enforces " + theirs +
         ": start fakeprovider with the same --scenario and flags, or drop " + setters +
         " (loadgen then takes the provider's)";
}

}  // namespace stampede
