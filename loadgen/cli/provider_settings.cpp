#include "cli/provider_settings.hpp"

#include "exit_codes.hpp"
#include "provider_agreement.hpp"
#include "url_redaction.hpp"

namespace stampede {
namespace {

EnforcedProvider refused(int code, std::string error) {
  return {std::nullopt, nullptr, code, std::move(error)};
}

// A provider that did not say what it enforces is refused too: loadgen would otherwise
// describe limits nobody checked.
EnforcedProvider unread(const std::string& admin, const std::string& error, long status) {
  // 401 and 403 are a fakeprovider's own answers to a wrong --provider-admin-token.
  if (status == 0 || status == 401 || status == 403)
    return refused(kExitUnreachable, admin_unreachable(error));
  if (status == 404)
    return refused(kExitUsage, "--provider-admin " + admin +
                                   " does not say which settings it enforces (GET "
                                   "/admin/settings answered 404): a fakeprovider older than "
                                   "this loadgen; run one of the same version");
  return refused(kExitUsage, "--provider-admin " + admin + ": " + error);
}

}  // namespace

EnforcedProvider read_enforced_provider(const ProviderAdmin& admin, const Scenario& ours,
                                        const TargetUrl& url) {
  const std::string where = redact_url(admin.url().text);
  long status = 0;
  const auto settings = admin.settings(&status);
  if (!settings) return unread(where, settings.error(), status);
  // Another fakeprovider's admin port (an old one still holding it, a copy-paste of the
  // wrong port) would describe limits the fleet never met.
  if (settings->port != url.port)
    return refused(kExitUsage, "--url " + redact_url(url.text) + " is port " +
                                   std::to_string(url.port) + ", but the provider at " + where +
                                   " serves its data plane at " + settings->listen +
                                   ": point --url at that port, or --provider-admin at the admin "
                                   "API of the fakeprovider on port " +
                                   std::to_string(url.port));
  const auto agreement = agree_on_provider(ours, settings->provider);
  if (!agreement)
    return refused(kExitUsage, "--provider-admin " + where +
                                   ": its settings are not ones this loadgen reads (" +
                                   agreement.error() + "); run a fakeprovider of the same version");
  if (!agreement->disagreements.empty())
    return refused(kExitUsage, disagreement_error(agreement->disagreements, where));
  return {agreement->provider, settings->document, 0, {}};
}

}  // namespace stampede
