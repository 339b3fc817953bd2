#include "server/store_line.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <utility>

namespace stampede {

StoreLine::StoreLine(Decide decide)
    : decide_(std::move(decide)),
      fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      thread_(std::make_unique<BatchThread<Question>>([this](std::vector<Question>& questions) {
        for (const Question& q : questions) this->decide(q);
      })) {}

StoreLine::~StoreLine() {
  thread_.reset();
  close(fd_);
}

void StoreLine::ask(std::span<const ProviderArrival> arrivals) {
  Question question;
  question.reserve(arrivals.size());
  for (const ProviderArrival& a : arrivals) {
    question.push_back(
        {a, std::string(a.tenant), std::string(a.client_id),
         a.row.if_match ? std::optional<std::string>(*a.row.if_match) : std::nullopt});
  }
  thread_->put(std::move(question));
}

void StoreLine::decide(const Question& question) {
  std::vector<ProviderArrival> arrivals;
  arrivals.reserve(question.size());
  for (const OwnedArrival& o : question) {
    ProviderArrival a = o.arrival;
    a.tenant = o.tenant;
    a.client_id = o.client_id;
    a.row.if_match = o.if_match ? std::optional<std::string_view>(*o.if_match) : std::nullopt;
    arrivals.push_back(a);
  }
  std::vector<Admission> admitted = decide_(arrivals);
  {
    const std::lock_guard lock(mu_);
    answer_ = std::move(admitted);
  }
  eventfd_write(fd_, 1);
}

std::vector<Admission> StoreLine::answer(std::size_t /*asked*/) {
  eventfd_t ignored;
  eventfd_read(fd_, &ignored);
  const std::lock_guard lock(mu_);
  return std::exchange(answer_, {});
}

}  // namespace stampede
