// The errors of parcomp's libraries, as values a caller can tell apart (the program maps them to
// messages and exit codes): a broken contract of an entry point, and corrupt input data.
#pragma once

#include <stdexcept>
#include <string>

namespace parcomp {

// Thrown when the caller breaks an entry point's contract (sizes, capacities, limits).
class ContractError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Thrown when input data is corrupt (a stream or container that cannot be decoded); what() names
// where (stream offset, frame, block, subsequence) the damage was found.
class CorruptDataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace parcomp
