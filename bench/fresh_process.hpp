// A measurement in a fresh process (ours; parcomp-exit-cost, parcomp-start-cost): CUDA's costs at a
// process's start and exit are only seen once a process, so each run forks a child that does the
// work and writes its timed steps as JSON members to a pipe; the parent reads them and times the
// child's reaping.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace parcomp::bench {

inline double monotonic_now() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct FreshRun {
  std::string members;  // what the child wrote
  double reaped_at = 0;  // monotonic_now() once the child was reaped
};

// Runs `child(fd)` in a forked child, which must write to fd and exit (std::exit or _Exit) with
// status 0; nothing where the fork, the pipe or the child failed.
template <class Child>
std::optional<FreshRun> run_fresh(Child&& child) {
  int p[2];
  if (::pipe(p) != 0) return std::nullopt;
  const pid_t pid = ::fork();
  if (pid < 0) return std::nullopt;
  if (pid == 0) {
    ::close(p[0]);
    child(p[1]);
    std::_Exit(3);  // the child returned instead of exiting
  }
  ::close(p[1]);
  FreshRun r;
  char buf[512];
  for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) r.members.append(buf, static_cast<std::size_t>(n));
  ::close(p[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.reaped_at = monotonic_now();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return r;
}

// Writes `s` to fd whole and closes it, or leaves the process with status 3.
inline void write_members(int fd, const std::string& s) {
  if (::write(fd, s.data(), s.size()) != static_cast<ssize_t>(s.size())) std::_Exit(3);
  ::close(fd);
}

// --devices 0,1: the devices named, in order (std::stoi's exception for a name that is no number).
inline std::vector<int> parse_devices(const std::string& list) {
  std::vector<int> out;
  std::stringstream ss(list);
  for (std::string d; std::getline(ss, d, ',');) out.push_back(std::stoi(d));
  return out;
}

}  // namespace parcomp::bench
