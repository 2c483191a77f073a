// The worker pool of the oracles: core/parallel.hpp's.
#pragma once

#include "core/parallel.hpp"

namespace parcomp::reference {
using parcomp::for_each_block;
}  // namespace parcomp::reference
