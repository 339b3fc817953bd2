#pragma once

#include <cstdint>

#include "hop_delay.hpp"
#include "results.hpp"
#include "rng.hpp"
#include "scenario.hpp"
#include "sim/sim_engine.hpp"

namespace stampede {

// occ mode in virtual time, the model of the AWS Architecture Blog's "Exponential Backoff And
// Jitter" (2015): each item is a read of the row's version, then a write that names it,
// retried after a 412 (the backoff, then a fresh read). Every message between a client and the
// provider takes one network hop (fleet.hop_delay); the provider answers after its layers'
// service time (none by default) and its row decides a write the moment it arrives. Every
// draw, hops included, comes from the client's stream: deterministic for a seed.
// No timeouts: a hop is milliseconds.
Results simulate_occ(const Scenario& scenario, const SimOptions& options = {});

}  // namespace stampede
