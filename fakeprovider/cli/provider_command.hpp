#pragma once

#include "cli/provider_args.hpp"

namespace stampede {

// Serves the checked provider until SIGINT or SIGTERM (or a --processes worker's end), then
// writes its files. 0; 1 when a port cannot be bound, a worker failed or a file could not be
// written; 2 when --store's Redis cannot be reached. Each error is one line on stderr.
int serve_provider(const ProviderRun& run);

}  // namespace stampede
