// CUDA's start-up off the critical path: the driver's initialisation and one context per device run
// on a background thread from the first call on, while the CPU workers already work. Only the
// devices asked for get a context (--devices 0 on a two-GPU host makes none on GPU 1), one after
// another in the order asked, so that the first is ready as soon as it would be alone; each
// device's readiness is known on its own, so that a GPU worker joins as soon as its own device is
// ready, and work that ends before then never waits for it. The threads are detached: a program
// that finishes early either leaves with _Exit (the parcomp program does) or waits for them
// (wait(): the library does), never destroying a CUDA runtime that is still starting.
#pragma once

#include <string>
#include <vector>

namespace parcomp::gpu_warmup {

// Starts the warm-up of `devices` (empty: every device). The first call starts the clock and the
// driver; a later call adds the devices not yet started and leaves the others as they are.
void start(const std::vector<int>& devices = {});

struct Device {
  int id = 0;
  bool done = false;     // its context was made, or failed
  bool ready = false;    // it has a context
  double seconds = 0;    // from the first start() to done
};

struct State {
  bool counted = false;         // the driver is up and the device count is known
  int count = 0;                // devices the driver sees
  std::string why_none;         // when count is 0: the reason
  std::vector<Device> devices;  // those started, in the order asked
  // The entry for device d, or nullptr when it was not started (or does not exist).
  const Device* find(int d) const;
};
// The state now (non-blocking).
State poll();
// Returns once the warm-up has nothing left to do: the devices counted and every context asked for
// made (or failed), its threads done with CUDA. The library's calls wait for it before they
// return, so that a program may end as soon as they do; nothing to wait for when CUDA was not started.
void wait();

}  // namespace parcomp::gpu_warmup
