#include "help_layout.hpp"

#include <algorithm>
#include <memory>
#include <sstream>
#include <utility>

namespace stampede {
namespace {

bool named(const CLI::Option& opt, const std::string& flag) {
  return opt.check_name(flag);
}

std::string joined_names(const std::set<CLI::Option*>& opts) {
  std::string out;
  for (const auto* o : opts) out += (out.empty() ? "" : " or ") + o->get_name();
  return out;
}

std::string indented(const std::string& text) {
  std::string out = "  ";
  for (const char c : text) out += c == '\n' ? std::string("\n  ") : std::string(1, c);
  return out + "\n";
}

class PlainHelp : public CLI::Formatter {
 public:
  explicit PlainHelp(HelpLayout layout = {}) : layout_(std::move(layout)) {}

  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::ostringstream out;
    out << make_description(app) << make_usage(app, name);
    if (!layout_.example.empty()) out << "\nExample:\n" << indented(layout_.example);
    out << make_positionals(app) << first_group(app) << other_groups(app, mode)
        << make_subcommands(app, mode) << '\n'
        << make_footer(app);
    return out.str();
  }

  // The purpose alone: CLI11 adds "REQUIRED" and counts of options to it.
  std::string make_description(const CLI::App* app) const override {
    const auto& d = app->get_description();
    return d.empty() ? "" : d + "\n";
  }

  // The type and the default; the rest of CLI11's notation is said in make_option_desc.
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
    if (opt->get_type_size() == 0) return "";
    std::string out;
    if (!opt->get_type_name().empty()) out += " " + get_label(opt->get_type_name());
    if (!opt->get_default_str().empty()) out += "=" + opt->get_default_str();
    if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
    return out;
  }

  std::string make_option_desc(const CLI::Option* opt) const override {
    std::string d = opt->get_description();
    if (opt->get_required()) d += " (required)";
    if (!opt->get_envname().empty()) d += " (when not given: $" + opt->get_envname() + ")";
    if (!opt->get_needs().empty()) d += " (needs " + joined_names(opt->get_needs()) + ")";
    if (!opt->get_excludes().empty()) d += " (not with " + joined_names(opt->get_excludes()) + ")";
    return d;
  }

 private:
  bool is_first(const CLI::Option& opt) const {
    return std::any_of(layout_.first.begin(), layout_.first.end(),
                       [&](const std::string& f) { return named(opt, f); });
  }

  std::string first_group(const CLI::App* app) const {
    std::vector<const CLI::Option*> opts;
    for (const auto& f : layout_.first) {
      const auto found = app->get_options([&](const CLI::Option* o) { return named(*o, f); });
      opts.insert(opts.end(), found.begin(), found.end());
    }
    return opts.empty() ? "" : make_group(kFirstGroup, false, opts);
  }

  // In the order they were declared, CLI11's default group ("Options": --help) after the
  // command's own and Advanced last.
  std::string other_groups(const CLI::App* app, CLI::AppFormatMode mode) const {
    auto groups = app->get_groups();
    std::stable_partition(groups.begin(), groups.end(), [](const std::string& g) {
      return g != kAdvancedGroup && g != "Options";
    });
    std::stable_partition(groups.begin(), groups.end(),
                          [](const std::string& g) { return g != kAdvancedGroup; });
    std::string out;
    for (const auto& group : groups) {
      if (group.empty()) continue;
      const auto opts = app->get_options([&](const CLI::Option* o) {
        return o->get_group() == group && o->nonpositional() && !is_first(*o) &&
               (mode != CLI::AppFormatMode::Sub ||
                (o != app->get_help_ptr() && o != app->get_help_all_ptr()));
      });
      if (!opts.empty()) out += make_group(group, false, opts);
    }
    return out;
  }

  HelpLayout layout_;
};

}  // namespace

void use_plain_help(CLI::App& app) {
  app.formatter(std::make_shared<PlainHelp>());
}

void lay_out_help(CLI::App& cmd, HelpLayout layout) {
  cmd.formatter(std::make_shared<PlainHelp>(std::move(layout)));
}

}  // namespace stampede
