// Run-length encoding and decoding of int32 sequences on the GPU (PARLE and peers).
//
// Output format (the PARLE blog's): two arrays of equal length `runs`, symbols[r] and counts[r],
// with counts[r] >= 1 and sum(counts) == n. The serial oracle is reference/rle.hpp.
//
// Every entry point is asynchronous on `stream`, takes device pointers, and needs caller-provided
// scratch of at least *_scratch_bytes(...) bytes (ask once, allocate outside timed regions).
// Limits: n <= kMaxElements (int32 run counts and CUB's int item counts); larger n is a ContractError.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

namespace parcomp::rle {

inline constexpr std::size_t kMaxElements = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());

enum class EncodeVariant {
  paper,  // the blog's four kernels: backward mask, inclusive scan, compact, scatter
  cub,    // cub::DeviceRunLengthEncode::Encode
};
enum class DecodeVariant {
  paper,  // the survey's four steps (Eirola Fig. 2): scan of counts, mark run starts, scan, gather
  cub,    // exclusive scan of counts + cub::DeviceCopy::Batched of constant ranges
};

std::string_view name(EncodeVariant v);
std::string_view name(DecodeVariant v);

// Device scratch bytes that encode(v, ..., n, ...) needs.
std::size_t encode_scratch_bytes(EncodeVariant v, std::size_t n);

// Encode d_in[0..n-1]. Writes d_symbols[0..runs-1], d_counts[0..runs-1] (capacity n each; they
// must not alias d_in) and *d_num_runs = runs (a device int32). n == 0 writes *d_num_runs = 0.
void encode(EncodeVariant v, const std::int32_t* d_in, std::size_t n, std::int32_t* d_symbols,
            std::int32_t* d_counts, std::int32_t* d_num_runs, void* d_scratch, std::size_t scratch_bytes,
            cudaStream_t stream);

// Device scratch bytes that decode(v, ..., runs, n, ...) needs.
std::size_t decode_scratch_bytes(DecodeVariant v, std::size_t runs, std::size_t n);

// Decode runs pairs into d_out[0..n-1], where n == sum(counts) is known to the caller (a container
// records it). Counts must be >= 1; d_out must not alias the inputs.
void decode(DecodeVariant v, const std::int32_t* d_symbols, const std::int32_t* d_counts, std::size_t runs,
            std::size_t n, std::int32_t* d_out, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream);

}  // namespace parcomp::rle
