// Blocks whose rotations tie: the initial run-length stage's output of a periodic block (a shorter
// string repeated, as runs of 255 equal bytes give) has equal rotations. Any order of them gives
// the same L column, but origPtr is the row of rotation 0 among its equals, and bzip2's block
// sort orders equals its own way (neither by ascending nor by descending start; it depends on
// which of its two sorts ran and on their partitions). For bzip2's bytes that row is asked of
// libbz2, the format's library: it compresses the block's input alone and its origPtr is read back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <optional>
#include <span>

namespace parcomp::bz2 {

// The smallest p dividing t.size() with t[i] == t[(i + p) mod n] for all i: t.size() when no two
// rotations of t are equal. Cheap where there is no such p: one compare per prime factor of the
// length, each ending at the first difference.
std::size_t rotation_period(std::span<const std::uint8_t> t);

// bzip2's origPtr for the block whose initial run-length stage's output is `rle`, of rotation
// period `period` (rotation_period(rle) < rle.size()), as bzip2's program writes it (work factor
// 30; the sort depends neither on the level nor on the block's place in the stream). The rows of
// blocks of a period up to 64 bytes (the runs of a zero-filled region) are kept for the process:
// such a block is asked of libbz2 once. `input`: the block's input where the caller has it (else
// it is decoded from `rle`).
std::uint32_t bzip2_primary(std::span<const std::uint8_t> rle, std::size_t period, std::span<const std::uint8_t> input = {});

// From then on, a block's ask runs on a thread of its own started here, at the calling thread's
// scheduling priority, whenever that thread is free (else on the asking thread, as before): a CPU
// worker at SCHED_IDLE (while CUDA starts) that meets a block of long runs would wait for a core
// behind every other thread, and the ask (the block's whole input through libbz2, 45.9 MB at
// most) is then the job's longest step. Called by the engine's .bz2 compression; once a process
// (a process forked after it asks on the asking thread until it calls this itself).
void start_asking();
// How many asks ran on that thread in this process (for tests).
std::uint64_t asks_aside();

// The same, without waiting where another thread is asking libbz2 for the same block: then no
// row, and `later` holds that ask's row to come (a block written with another row of its equals
// takes it with set_orig_ptr, bz2.hpp).
std::optional<std::uint32_t> bzip2_primary_now(std::span<const std::uint8_t> rle, std::size_t period, std::span<const std::uint8_t> input,
                                               std::shared_future<std::uint32_t>& later);

}  // namespace parcomp::bz2
