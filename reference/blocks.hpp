// The worker pool of the oracles: codec/common/parallel.hpp's.
#pragma once

#include "codec/common/parallel.hpp"

namespace parcomp::reference {
using parcomp::for_each_block;
}  // namespace parcomp::reference
