#include "old_spelling.hpp"

#include <iostream>

namespace stampede {

void keep_old_spelling(CLI::App& app, const CLI::Option& current, const std::string& old,
                       std::vector<std::string>& values, const std::string& program) {
  const auto now = current.get_name();
  auto* opt = app.add_option(old, [&values, now, old, program](const CLI::results_t& given) {
    std::cerr << program << ": " << old << " is now " << now << " (the old name still works)\n";
    values.insert(values.end(), given.begin(), given.end());
    return true;
  });
  opt->group("")
      ->expected(current.get_expected_min(), current.get_expected_max())
      ->multi_option_policy(current.get_multi_option_policy());
}

}  // namespace stampede
