#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "server/admitter.hpp"
#include "server/batch_thread.hpp"

namespace stampede {

// A loop's line to a shared store (--store): the loop hands its batch over and serves its
// other connections while a thread of the line's own makes the round trip (one for the
// batch), then finds the answer in its poll, as a worker of --processes finds its owner's.
// The arrivals are copied when asked: the thread outlives nothing of the loop's.
class StoreLine : public AdmissionLine {
 public:
  using Decide = std::function<std::vector<Admission>(std::span<const ProviderArrival>)>;
  explicit StoreLine(Decide decide);
  ~StoreLine() override;
  StoreLine(const StoreLine&) = delete;
  StoreLine& operator=(const StoreLine&) = delete;

  int fd() const override { return fd_; }
  void ask(std::span<const ProviderArrival> arrivals) override;
  std::vector<Admission> answer(std::size_t asked) override;

 private:
  // An arrival whose views are into strings of its own.
  struct OwnedArrival {
    ProviderArrival arrival;
    std::string tenant;
    std::string client_id;
    std::optional<std::string> if_match;
  };
  using Question = std::vector<OwnedArrival>;
  void decide(const Question& question);

  const Decide decide_;
  const int fd_;  // an eventfd, written once the answer is in
  std::mutex mu_;
  std::vector<Admission> answer_;  // under mu_: the thread's, until the loop takes it
  // Last: destroyed first, deciding what was asked before it stops.
  std::unique_ptr<BatchThread<Question>> thread_;
};

}  // namespace stampede
