#include "cli/trace_input.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "policy/trace_arrivals.hpp"

namespace stampede {
bool reads_trace(const FleetConfig& fleet) {
  return fleet.workload == WorkloadKind::kTrace && !fleet.trace.path.empty();
}

namespace {

std::string flag_of(const FleetConfig& fleet) {
  return "--trace " + fleet.trace.path + ": ";
}

// The trace file opened, or the error that says why it is not.
std::optional<std::ifstream> open_trace_file(const FleetConfig& fleet, Errors& errors) {
  std::ifstream file(fleet.trace.path, std::ios::binary);
  if (file) return file;
  errors.push_back(flag_of(fleet) + "cannot open it (" + std::strerror(errno) +
                   "); give the path of a readable trace file");
  return std::nullopt;
}

}  // namespace

void take_trace(Scenario& scenario, Errors& errors) {
  auto& fleet = scenario.fleet;
  if (!reads_trace(fleet)) return;
  auto file = open_trace_file(fleet, errors);
  if (!file) return;
  const auto count = count_trace_arrivals(*file, fleet.trace, fleet.seed);
  if (!count) {
    errors.push_back(flag_of(fleet) + count.error());
    return;
  }
  fleet.items = std::min(fleet.items.value_or(*count), *count);
}

void check_trace_file(const Scenario& scenario, Errors& errors) {
  if (!reads_trace(scenario.fleet)) return;
  if (!open_trace_file(scenario.fleet, errors)) return;
  if (const auto read = trace_read_options(scenario.fleet.trace); !read)
    errors.push_back(flag_of(scenario.fleet) + read.error());
}

namespace {

// simulate's pass: the trace read through, its arrivals kept and keep finished; what was wrong.
std::optional<std::string> keep_trace(const FleetConfig& fleet, PlayedArrivals& keep) {
  Errors errors;
  auto file = open_trace_file(fleet, errors);
  if (!file) {
    keep.finish(false);
    return errors.front();
  }
  const auto count = count_trace_arrivals(*file, fleet.trace, fleet.seed, &keep);
  keep.finish(static_cast<bool>(count));
  if (!count) return flag_of(fleet) + count.error();
  return std::nullopt;
}

}  // namespace

TracePass::TracePass(const FleetConfig& fleet, std::shared_ptr<PlayedArrivals> keep)
    : fleet_(fleet),
      keep_(std::move(keep)),
      thread_([this] { error_ = keep_trace(fleet_, *keep_); }) {}

TracePass::~TracePass() {
  if (thread_.joinable()) thread_.join();
}

std::optional<std::string> TracePass::error() {
  if (thread_.joinable()) thread_.join();
  if (!error_ && !keep_->total())
    return flag_of(fleet_) +
           "its arrivals could not be kept for the run in a temporary file (one that could not "
           "be written or read back, or two arrivals more than 146 years apart): give TMPDIR a "
           "writable directory with room, or cut the trace with --from/--to";
  return error_;
}

}  // namespace stampede
