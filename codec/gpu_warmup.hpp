// CUDA's start-up off the critical path: the driver's initialisation and one context per device
// (0.2 to 0.35 s on the H200 host) run on background threads from the first call on, while the
// CPU workers already compress. A GPU worker joins once its device is ready; work that ends
// before then never waits for it. The threads are detached: a program that finishes early leaves
// with _Exit (the parcomp program does), not by destroying a CUDA runtime that is still starting.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace parcomp::gpu_warmup {

// Starts the warm-up of every device (once per process; later calls do nothing).
void start();

struct State {
  bool done = false;          // the device count is known and every device's context is made
  std::vector<int> ready;     // devices with a context
  std::string why_none;       // when ready is empty: the reason
  double seconds = 0;         // from start() to done
};
// The state now (non-blocking).
State poll();

}  // namespace parcomp::gpu_warmup
