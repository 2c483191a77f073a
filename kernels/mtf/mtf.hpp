// Move-to-front transform and its reverse on the GPU (Patel et al., thesis sections 2.2 and 3.2).
//
// The 256-entry list starts as the identity and restarts at every segment of
// Config::segment_bytes (each BWT block is transformed on its own); the serial oracle is
// reference/mtf.hpp. All entry points are asynchronous on `stream`, take device pointers, and need
// caller-provided scratch of at least scratch_bytes(...) bytes.
//
// Variants:
//   paper  the thesis's scan: per-thread partial lists over substrings (Alg. 2 / Alg. 5), combined
//          with AppendUnique (Alg. 3) or list composition (Alg. 6) by an intra-block scan, a
//          block-wise scan per segment, then each thread transforms its substring from its list.
//          Of each thread's lists, the first `shared_list_entries` live in shared memory, the rest
//          in global memory (the thesis's partial-list size, Fig. 4.5): the partial lists of the
//          local scan (double-buffered) and the working list the transform shifts.
//   naive  the survey's (Eirola, section 3.3): one block of 256 threads per segment searches and
//          updates the 256-entry list in parallel for every character.
//   fast   ours: the same scan with long substrings (1024 bytes per thread forward, 4096 reverse),
//          each thread's whole list in shared memory as 32-bit words (rows padded against bank
//          conflicts), searched and shifted four entries at a time.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace parcomp::mtf {

enum class Variant { paper, naive, fast };
enum class Direction { forward, reverse };

struct Config {
  std::size_t segment_bytes = std::size_t{1} << 20;  // the list restarts here (a BWT block)
  unsigned chars_per_thread = 64;                     // substring length per thread (paper, fast)
  unsigned shared_list_entries = 40;                  // list entries kept in shared memory (paper)
  unsigned block_threads = 64;                        // threads per block (paper, fast); a power of 2
};

std::string_view name(Variant v);
// The thesis's parameters for paper (64-character substrings; partial lists of 40 entries forward
// and 76 reverse, its optima on a GTX 460), and ours for fast.
Config default_config(Variant v, Direction d);

std::size_t scratch_bytes(Variant v, Direction d, std::size_t n, const Config& config);

// d_out[0..n-1] = MTF (forward) or reverse MTF of d_in[0..n-1]; d_out must not alias d_in.
// Throws ContractError on a bad configuration or scratch too small.
void transform(Variant v, Direction d, const std::uint8_t* d_in, std::size_t n, std::uint8_t* d_out, void* d_scratch,
               std::size_t scratch_bytes, const Config& config, cudaStream_t stream);
// Step 1 alone, the thesis's "local scan" (Fig. 4.5): every thread's partial list and the scan
// over each block's threads (the paper variant with the first shared_list_entries entries of each
// list in shared memory), left in the scratch. For timing that step apart; paper and fast only.
void local_scan(Variant v, Direction d, const std::uint8_t* d_in, std::size_t n, void* d_scratch,
                std::size_t scratch_bytes, const Config& config, cudaStream_t stream);

}  // namespace parcomp::mtf
