#pragma once

#include <nlohmann/json.hpp>

#include "connection_failure.hpp"
#include "provider_section.hpp"
#include "results.hpp"

namespace stampede {

// What a finished run knows of its failed connections (connection_failure judges it).

// loadgen run, one process's or merged: the clients' sends and connection errors, the
// provider's refusals from the document's provider section (with --provider-admin), the
// scenario's reset outages.
ConnectionEvidence run_connection_evidence(const Results& r, const nlohmann::json& doc);

// loadgen exec: the clients are CMD's and unseen, so the provider's count alone; each
// connection it turned away was a send that never arrived.
ConnectionEvidence exec_connection_evidence(const Results& r, const ProviderSection& provider);

}  // namespace stampede
