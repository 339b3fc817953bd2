// The process group with real children: forked here, each doing one thing and ending.
#include <doctest/doctest.h>

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "process/process_group.hpp"

using namespace stampede;

namespace {

// Each member i runs body(i) in a forked child and exits with what it returns.
ProcessGroup::Launch forked(int (*body)(std::size_t)) {
  return [body](std::size_t i, pid_t group) {
    // SIGTERM stays blocked until the child has put back the default action: a stop sent
    // before that would reach doctest's handler, which (deferred under TSan) could leave the
    // child paused for ever and the group waiting on it.
    sigset_t term, before;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &term, &before);
    const pid_t pid = ProcessGroup::fork_member(group, SIGKILL);
    if (pid == 0) {
      signal(SIGTERM, SIG_DFL);  // not doctest's handler, which would report a crash
      pthread_sigmask(SIG_SETMASK, &before, nullptr);
      _exit(body(i));
    }
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    return ProcessGroup::Launched{pid, pid < 0 ? "fork failed" : ""};
  };
}

// Member 0 fails at once; the others wait for a signal.
int first_fails(std::size_t i) {
  if (i == 0) return 3;
  pause();
  return 0;
}

int waits(std::size_t) {
  pause();
  return 0;
}

int ignores_sigterm(std::size_t) {
  signal(SIGTERM, SIG_IGN);
  pause();
  return 0;
}

}  // namespace

TEST_CASE("process group: a member that fails stops the rest, each marked running at the stop") {
  ProcessGroup group({{0, false, true}, false});
  REQUIRE_FALSE(group.start(3, forked(first_fails)));
  const auto reaped = group.wait_for(0);
  CHECK(reaped.verdict.failed);
  CHECK(reaped.verdict.stop_rest);
  CHECK(group.stopping());
  group.wait_all();
  CHECK(group.running() == 0);
  CHECK(group.members()[0].end.exit_code == 3);
  CHECK_FALSE(group.members()[0].end.running_at_stop);
  for (std::size_t i : {1u, 2u}) {
    CHECK(group.members()[i].end.term_signal == SIGTERM);
    CHECK(group.members()[i].end.running_at_stop);
  }
}

TEST_CASE("process group: independent members: a failure stops no one") {
  ProcessGroup group({{0, false, false}, false});
  REQUIRE_FALSE(group.start(2, forked(first_fails)));
  const auto reaped = group.wait_for(0);
  CHECK(reaped.verdict.failed);
  CHECK_FALSE(reaped.verdict.stop_rest);
  CHECK_FALSE(group.stopping());
  CHECK(group.running() == 1);
}  // the group kills and reaps member 1 as it goes

TEST_CASE("process group: a member ending well before the gate opens fails the gated group") {
  ProcessGroup group({{1, true, true}, false});
  REQUIRE_FALSE(group.start(2, forked([](std::size_t i) {
                              if (i == 0) return 0;
                              pause();
                              return 0;
                            })));
  CHECK(group.wait_for(0).verdict.stop_rest);
  group.wait_all();
  CHECK(group.members()[1].end.term_signal == SIGTERM);
}

TEST_CASE("process group: a member that cannot start leaves none of the others running") {
  ProcessGroup group({{0, false, true}, false});
  const auto error = group.start(3, [](std::size_t i, pid_t g) {
    if (i == 2) return ProcessGroup::Launched{-1, "cannot start member 2"};
    return forked(waits)(i, g);
  });
  REQUIRE(error);
  CHECK(*error == "cannot start member 2");
  REQUIRE(group.members().size() == 2);
  for (const auto& m : group.members()) {
    CHECK(m.ended);
    CHECK(m.end.term_signal == SIGKILL);
  }
}

TEST_CASE("process group: members added after the start join it; one that cannot start, alone") {
  ProcessGroup group({{0, false, false}, true});
  REQUIRE_FALSE(group.start(0, forked(waits)));
  REQUIRE_FALSE(group.add(forked(waits)));
  const auto error = group.add([](std::size_t i, pid_t) {
    return ProcessGroup::Launched{-1, "cannot start member " + std::to_string(i)};
  });
  REQUIRE(error);
  CHECK(*error == "cannot start member 1");
  REQUIRE_FALSE(group.add(forked(waits)));
  // The failed one left the others running, and the next took its index.
  CHECK(group.members().size() == 2);
  CHECK(group.running() == 2);
  group.stop(SIGTERM, std::nullopt);
  group.wait_all();
  for (const auto& m : group.members()) CHECK(m.end.term_signal == SIGTERM);
}

TEST_CASE("process group: a stop's SIGKILL goes once due, to a member deaf to SIGTERM") {
  ProcessGroup group({{0, false, true}, false});
  REQUIRE_FALSE(group.start(1, forked(ignores_sigterm)));
  group.stop(SIGTERM, 1'000);
  REQUIRE(group.pending_kill_ns() == 1'000);
  group.kill_if_due(999);
  REQUIRE(group.pending_kill_ns() == 1'000);
  group.kill_if_due(1'000);
  CHECK_FALSE(group.pending_kill_ns());
  group.wait_all();
  CHECK(group.members()[0].end.term_signal == SIGKILL);
  CHECK(group.members()[0].end.running_at_stop);
}

TEST_CASE("process group: a held group's close kills what the members left behind") {
  int pipe_ends[2];
  REQUIRE(pipe(pipe_ends) == 0);
  {
    ProcessGroup group({{0, false, false}, true});
    // The member leaves a child holding the pipe's write end, and exits.
    REQUIRE_FALSE(group.start(1, [&](std::size_t, pid_t g) {
      const pid_t pid = ProcessGroup::fork_member(g, SIGKILL);
      if (pid == 0) {
        close(pipe_ends[0]);
        if (fork() == 0) {
          pause();
          _exit(0);
        }
        _exit(0);
      }
      return ProcessGroup::Launched{pid, ""};
    }));
    close(pipe_ends[1]);
    group.wait_all();
    CHECK(group.members()[0].end.exit_code == 0);
    pollfd left{pipe_ends[0], POLLIN, 0};
    CHECK(poll(&left, 1, 0) == 0);  // its child still holds the pipe
    group.close_group();
  }
  // Its end: the pipe's, once the child is gone (a hang guard, not a measure).
  pollfd gone{pipe_ends[0], POLLIN, 0};
  REQUIRE(poll(&gone, 1, 30'000) == 1);
  char byte;
  CHECK(read(pipe_ends[0], &byte, 1) == 0);
  close(pipe_ends[0]);
}
