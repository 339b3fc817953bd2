#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "model/provider_policy.hpp"
#include "model/send_attribution.hpp"
#include "model/versioned_row.hpp"
#include "scenario_clock.hpp"

namespace stampede {

// Where an arrival was recorded, for what is learnt of it later (note_upstream).
struct AdmissionTicket {
  std::size_t thread = 0;
  std::uint64_t epoch = 0;
  std::optional<std::size_t> log_row;  // with keep_log
};

struct Admission {
  std::int64_t t_ns;  // the time the arrival was decided at, in scenario time
  Decision decision;
  std::optional<std::uint64_t> row_version;  // a row request's: the version to send as the ETag
  AdmissionTicket ticket;
};

// One arrival, as the provider is asked about it. The views are the caller's.
struct ProviderArrival {
  std::size_t thread = 0;           // the server thread that read it: its recorder
  std::int64_t seen_steady_ns = 0;  // when its bytes came in (a steady_clock reading)
  std::string_view tenant;
  SendClaim send;  // what its headers say of its send number, numbered in decision order
  std::string_view client_id;  // its client header's key; may be empty
  RowRequest row;              // occ mode's row request
  DeclaredTokens tokens;
  std::optional<LlmCharge> llm;  // an LLM request's body: what it asks of the token limits
};

// A loop's own line to a provider in another process, or to a shared store (StoreLine): one
// question in flight at a time, its answer read once the descriptor is readable, so the loop
// serves its other connections meanwhile. To another process no thread of ours stands between
// the loop and the provider (each thread between them cost two context switches a batch).
class AdmissionLine {
 public:
  virtual ~AdmissionLine() = default;
  // Readable when the answer is in, or when the provider is gone.
  virtual int fd() const = 0;
  // The arrivals, to be decided in their order.
  virtual void ask(std::span<const ProviderArrival> arrivals) = 0;
  // Once fd() is readable: one admission per arrival asked; with the provider gone, each
  // arrival's connection dropped.
  virtual std::vector<Admission> answer(std::size_t asked) = 0;
};

// What the data plane needs of the provider: its rules, and its decisions. LockedProvider
// decides in this process; a data-plane worker (fakeprovider --processes) asks the process
// that owns the provider.
class Admitter {
 public:
  virtual ~Admitter() = default;
  virtual const ProviderConfig& config() const = 0;
  virtual const SendRules& send_rules() const = 0;
  // For its time scale: a worker's clock is not restarted with the provider's.
  virtual const ScenarioClock& clock() const = 0;

  virtual Admission admit(const ProviderArrival& arrival) = 0;
  // The arrivals decided one after another, in their order: one admission each.
  virtual std::vector<Admission> admit_all(std::span<const ProviderArrival> arrivals) = 0;
  // The loop's own line, or null: a loop that has one asks on it instead of admit_all.
  virtual AdmissionLine* line(std::size_t /*loop*/) { return nullptr; }
  // Proxy mode: what the upstream answered an admitted arrival.
  virtual void note_upstream(const AdmissionTicket& ticket, int upstream) = 0;
  // An LLM answer admitted holding a reservation has ended (written, broken, or its client
  // gone), having written output_tokens (docs/LLM.md): the tokens it did not use go back now
  // and it is no longer open. Learnt later, as note_upstream is; a provider in another
  // process holds no reservations (the flags that make them are refused with --processes).
  virtual void settle_answer(const AdmissionTicket& /*ticket*/, std::string_view /*tenant*/,
                             const Reservation& /*r*/, std::int64_t /*output_tokens*/) {}
  // One network hop of provider.hop_delay, in scenario time, from the provider's own stream.
  virtual std::int64_t draw_hop_ns() = 0;
};

}  // namespace stampede
