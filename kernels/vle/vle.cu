// PAVLE kernels (gm32, sm32, sm64huff; table and aggregate caching; DPT) and the scan they share.
#include "../common/cuda_check.hpp"
#include "../common/launch.cuh"
#include "../common/nvtx.hpp"
#include "../common/scratch.hpp"
#include "../common/widen.cuh"
#include "vle_internal.hpp"

#include <cub/device/device_scan.cuh>

#include <string>

namespace parcomp::vle {

namespace {

struct Geometry {
  std::int64_t n, words, elements;  // symbols, 32-bit input words, elements (dpt words each)
  int dpt, B;
  std::int64_t blocks;
};

Geometry make_geometry(std::size_t n, const Config& c) {
  Geometry g{};
  g.n = static_cast<std::int64_t>(n);
  g.words = (g.n + 3) / 4;
  g.dpt = static_cast<int>(c.dpt);
  g.B = static_cast<int>(c.block_threads);
  g.elements = (g.words + g.dpt - 1) / g.dpt;
  g.blocks = (g.elements + g.B - 1) / g.B;
  return g;
}

struct Scratch {
  std::uint32_t* lengths;       // bits per element
  std::uint64_t* offsets;       // exclusive scan of lengths
  void* scan_temp;
  std::size_t scan_temp_bytes;
};

std::size_t scan_temp_bytes(std::size_t elements) {
  std::size_t bytes = 0;
  const auto in = widen(nullptr);
  PARCOMP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, static_cast<std::uint64_t*>(nullptr),
                                                   static_cast<std::int64_t>(elements)));
  return bytes;
}

void run_scan(const std::uint32_t* lengths, std::size_t elements, std::uint64_t* offsets, void* temp,
              std::size_t temp_bytes, cudaStream_t stream) {
  const auto in = widen(lengths);
  PARCOMP_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, offsets, static_cast<std::int64_t>(elements), stream));
}

Scratch carve(ScratchCarver& c, const Geometry& g) {
  Scratch s{};
  const auto e = static_cast<std::size_t>(g.elements);
  s.lengths = c.take<std::uint32_t>(e);
  s.offsets = c.take<std::uint64_t>(e);
  s.scan_temp_bytes = scan_temp_bytes(e);
  s.scan_temp = c.take_bytes(s.scan_temp_bytes);
  return s;
}

// The table lives in global memory, or is copied to shared memory by each block first.
template <bool Shared>
__device__ const std::uint32_t* table_for_block(const std::uint32_t* table, std::uint32_t* shared) {
  if constexpr (Shared) {
    for (int i = static_cast<int>(threadIdx.x); i < 256; i += static_cast<int>(blockDim.x)) shared[i] = table[i];
    __syncthreads();
    return shared;
  } else {
    return table;
  }
}

// The aggregate codeword: the four codewords of input word w concatenated (fewer at the tail of
// the input). gm32 and sm32 hold it in 32 bits (four codewords of at most 8 bits), sm64huff in 64
// bits (at most 16 bits each: "twice the original data size").
template <typename Agg>
__device__ void aggregate(const std::uint8_t* in, std::int64_t n, std::int64_t w, const std::uint32_t* table,
                          Agg& bits, int& length) {
  bits = 0;
  length = 0;
  const std::int64_t first = w * 4;
  if (first + 4 <= n) {
    const std::uint32_t v = reinterpret_cast<const std::uint32_t*>(in)[w];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const std::uint32_t e = table[(v >> (8 * j)) & 0xFFu];
      const int l = static_cast<int>(e & 0xFFu);
      bits = (bits << l) | static_cast<Agg>(e >> 8);
      length += l;
    }
  } else {
    for (std::int64_t i = first; i < n; ++i) {
      const std::uint32_t e = table[in[i]];
      const int l = static_cast<int>(e & 0xFFu);
      bits = (bits << l) | static_cast<Agg>(e >> 8);
      length += l;
    }
  }
}

// put_bits_atomic (Balevic, Listing 1, lines 9-28): the aggregate split at destination word
// boundaries, one atomicOr for every word it touches (the destination zeroed in advance). With
// FullWordStores (sm64huff's additional test, Balevic sec. 4): a word that the aggregate covers
// whole is written with a plain store, since no other thread writes to it. `base` is the word
// index of target[0].
template <bool FullWordStores, typename Agg>
__device__ void put_bits_atomic(std::uint32_t* target, std::int64_t base, std::uint64_t pos, Agg bits, int length) {
  while (length > 0) {
    const std::int64_t word = static_cast<std::int64_t>(pos >> 5);
    const int start = static_cast<int>(pos & 31u);
    const int room = 32 - start;
    const int take = length < room ? length : room;
    const auto chunk = static_cast<std::uint32_t>((static_cast<std::uint64_t>(bits) >> (length - take)) &
                                                  ((std::uint64_t{1} << take) - 1));
    if (FullWordStores && take == 32) {
      target[word - base] = chunk;
    } else {
      atomicOr(target + (word - base), chunk << (room - take));
    }
    length -= take;
    pos += static_cast<std::uint64_t>(take);
  }
}

// Phase 1: codeword lengths per element (DPT input words a thread).
template <bool Shared, typename Agg>
__global__ void lengths_kernel(const std::uint8_t* in, Geometry g, const std::uint32_t* table_global, Scratch s) {
  __shared__ std::uint32_t table_shared[Shared ? 256 : 1];
  const std::uint32_t* table = table_for_block<Shared>(table_global, table_shared);
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= g.elements) return;
  std::uint32_t total = 0;
  for (int d = 0; d < g.dpt; ++d) {
    const std::int64_t w = e * g.dpt + d;
    if (w >= g.words) break;
    Agg bits;
    int length;
    aggregate(in, g.n, w, table, bits, length);
    total += static_cast<std::uint32_t>(length);
  }
  s.lengths[e] = total;
}

__global__ void total_bits_kernel(Scratch s, std::int64_t elements, std::uint64_t* bits) {
  *bits = s.offsets[elements - 1] + s.lengths[elements - 1];
}

// The kernel's choices as types: the aggregate's width and sm64huff's full-word stores.
template <typename AggT, bool FullWordStoresV>
struct Output {
  using Agg = AggT;
  static constexpr bool kFullWordStores = FullWordStoresV;
};
using Output32 = Output<std::uint32_t, false>;       // gm32, sm32
using Output64Huff = Output<std::uint64_t, true>;    // sm64huff

// An element's aggregates written into `target` (word `base` of the stream at target[0]) from the
// element's scanned bit offset: the output step of every paper kernel. With aggregate caching
// (Balevic's "caching aggregate codewords for every DPT elements in a local buffer"), the thread
// first computes its DPT aggregates into an on-chip buffer (`cache`, shared memory, DPT x block
// entries), then writes them out from there.
template <typename O, bool Cache>
__device__ void write_element(const std::uint8_t* in, const Geometry& g, const std::uint32_t* table, const Scratch& s,
                              std::int64_t e, std::uint32_t* target, std::int64_t base, typename O::Agg* cache_bits,
                              std::uint8_t* cache_lengths) {
  using Agg = typename O::Agg;
  std::uint64_t pos = s.offsets[e];
  if constexpr (Cache) {
    for (int d = 0; d < g.dpt; ++d) {
      const std::int64_t w = e * g.dpt + d;
      if (w >= g.words) break;
      Agg bits;
      int length;
      aggregate(in, g.n, w, table, bits, length);
      cache_bits[d * g.B + static_cast<int>(threadIdx.x)] = bits;
      cache_lengths[d * g.B + static_cast<int>(threadIdx.x)] = static_cast<std::uint8_t>(length);
    }
  }
  for (int d = 0; d < g.dpt; ++d) {
    const std::int64_t w = e * g.dpt + d;
    if (w >= g.words) break;
    Agg bits;
    int length;
    if constexpr (Cache) {
      bits = cache_bits[d * g.B + static_cast<int>(threadIdx.x)];
      length = cache_lengths[d * g.B + static_cast<int>(threadIdx.x)];
    } else {
      aggregate(in, g.n, w, table, bits, length);
    }
    put_bits_atomic<O::kFullWordStores>(target, base, pos, bits, length);
    pos += static_cast<std::uint64_t>(length);
  }
}

// The dynamic shared memory of an output kernel: [table (256 words)] [aggregate cache] [buffer].
template <typename O, bool Shared, bool Cache>
struct OutputShared {
  static std::size_t cache_bytes(const Geometry& g) {
    return Cache ? static_cast<std::size_t>(g.dpt) * static_cast<std::size_t>(g.B) * (sizeof(typename O::Agg) + 1) : 0;
  }
  static std::size_t table_bytes() { return Shared ? 256 * sizeof(std::uint32_t) : 0; }
};

template <typename O, bool Shared, bool Cache>
__device__ void carve_output_shared(unsigned char* dynamic, const Geometry& g, std::uint32_t*& table_shared,
                                    typename O::Agg*& cache_bits, std::uint8_t*& cache_lengths, std::uint32_t*& buffer) {
  using Agg = typename O::Agg;
  const std::size_t entries = Cache ? static_cast<std::size_t>(g.dpt) * static_cast<std::size_t>(g.B) : 0;
  cache_bits = reinterpret_cast<Agg*>(dynamic);  // 8-byte aligned first
  table_shared = reinterpret_cast<std::uint32_t*>(dynamic + entries * sizeof(Agg));
  cache_lengths = reinterpret_cast<std::uint8_t*>(table_shared + (Shared ? 256 : 0));
  buffer = reinterpret_cast<std::uint32_t*>(cache_lengths + (entries + 3) / 4 * 4);
}

// Phase 3, gm32: each thread ORs its aggregates straight into global memory.
template <typename O, bool Shared, bool Cache>
__global__ void output_global_kernel(const std::uint8_t* in, Geometry g, const std::uint32_t* table_global, Scratch s,
                                     std::uint32_t* out) {
  extern __shared__ __align__(8) unsigned char dynamic_global[];
  std::uint32_t *table_shared, *buffer;
  typename O::Agg* cache_bits;
  std::uint8_t* cache_lengths;
  carve_output_shared<O, Shared, Cache>(dynamic_global, g, table_shared, cache_bits, cache_lengths, buffer);
  const std::uint32_t* table = table_for_block<Shared>(table_global, table_shared);
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= g.elements) return;
  write_element<O, Cache>(in, g, table, s, e, out, 0, cache_bits, cache_lengths);
}

// Phase 3, sm32 / sm64huff: the block's output range is assembled in a shared-memory buffer with
// shared atomics (the buffer zeroed first), then copied out; only the two edge words, shared with
// the neighbouring blocks, need global atomics.
template <typename O, bool Shared, bool Cache>
__global__ void output_shared_kernel(const std::uint8_t* in, Geometry g, const std::uint32_t* table_global, Scratch s,
                                     std::uint32_t* out, int buffer_words) {
  extern __shared__ __align__(8) unsigned char dynamic_shared[];
  std::uint32_t *table_shared, *buffer;
  typename O::Agg* cache_bits;
  std::uint8_t* cache_lengths;
  carve_output_shared<O, Shared, Cache>(dynamic_shared, g, table_shared, cache_bits, cache_lengths, buffer);
  const std::uint32_t* table = table_for_block<Shared>(table_global, table_shared);
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x;
  const std::int64_t last = min(g.elements, first + static_cast<std::int64_t>(blockDim.x)) - 1;
  const std::uint64_t begin = s.offsets[first], end = s.offsets[last] + s.lengths[last];
  const std::int64_t w0 = static_cast<std::int64_t>(begin >> 5);
  const int words = static_cast<int>(static_cast<std::int64_t>((end + 31) >> 5) - w0);
  for (int i = static_cast<int>(threadIdx.x); i < buffer_words; i += static_cast<int>(blockDim.x)) buffer[i] = 0;
  __syncthreads();
  const std::int64_t e = first + threadIdx.x;
  if (e <= last) write_element<O, Cache>(in, g, table, s, e, buffer, w0, cache_bits, cache_lengths);
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < words; i += static_cast<int>(blockDim.x)) {
    const std::uint32_t v = buffer[i];
    if (i == 0 || i == words - 1) {
      atomicOr(out + w0 + i, v);
    } else {
      out[w0 + i] = v;
    }
  }
}

int shared_buffer_words(const Config& c) {
  // At most limit * 4 bits per input word, plus the two partial edge words.
  return static_cast<int>(c.block_threads * c.dpt * static_cast<unsigned>(max_code_length(c.kernel)) / 8) + 2;
}

template <typename O, bool Shared, bool Cache>
void launch_phases(const Config& c, const std::uint8_t* d_in, const Geometry& g, const std::uint32_t* d_table,
                   std::uint32_t* d_out, std::uint64_t* d_bits, const Scratch& s, cudaStream_t stream) {
  using Agg = typename O::Agg;
  const auto blocks = static_cast<unsigned>(g.blocks);
  lengths_kernel<Shared, Agg><<<blocks, g.B, 0, stream>>>(d_in, g, d_table, s);
  PARCOMP_CHECK_LAUNCH();
  run_scan(s.lengths, static_cast<std::size_t>(g.elements), s.offsets, s.scan_temp, s.scan_temp_bytes, stream);
  total_bits_kernel<<<1, 1, 0, stream>>>(s, g.elements, d_bits);
  PARCOMP_CHECK_LAUNCH();
  const std::size_t cache = OutputShared<O, Shared, Cache>::cache_bytes(g);
  const std::size_t head = cache + OutputShared<O, Shared, Cache>::table_bytes() + 3;
  if (c.kernel == Kernel::gm32) {
    auto kernel = output_global_kernel<O, Shared, Cache>;
    ensure_dynamic_shared(kernel, head);
    kernel<<<blocks, g.B, head, stream>>>(d_in, g, d_table, s, d_out);
  } else {
    const int buffer_words = shared_buffer_words(c);
    const std::size_t shared = head + static_cast<std::size_t>(buffer_words) * sizeof(std::uint32_t);
    auto kernel = output_shared_kernel<O, Shared, Cache>;
    ensure_dynamic_shared(kernel, shared);
    kernel<<<blocks, g.B, shared, stream>>>(d_in, g, d_table, s, d_out, buffer_words);
  }
  PARCOMP_CHECK_LAUNCH();
}

template <typename O>
void launch_kernel(const Config& c, const std::uint8_t* d_in, const Geometry& g, const std::uint32_t* d_table,
                   std::uint32_t* d_out, std::uint64_t* d_bits, const Scratch& s, cudaStream_t stream) {
  if (c.table_in_shared) {
    if (c.cache_aggregates) launch_phases<O, true, true>(c, d_in, g, d_table, d_out, d_bits, s, stream);
    else launch_phases<O, true, false>(c, d_in, g, d_table, d_out, d_bits, s, stream);
  } else {
    if (c.cache_aggregates) launch_phases<O, false, true>(c, d_in, g, d_table, d_out, d_bits, s, stream);
    else launch_phases<O, false, false>(c, d_in, g, d_table, d_out, d_bits, s, stream);
  }
}

// The index for decode(): the start bit of every kIndexStride-th symbol, from the scan.
__global__ void gather_index_kernel(const std::uint64_t* offsets, std::int64_t entries, std::int64_t elements_per_entry,
                                   std::uint64_t* index) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < entries) index[k] = offsets[k * elements_per_entry];
}

void validate(const Config& c) {
  if (c.kernel == Kernel::fast) return;  // dpt and the caching options are the paper kernels'
  if (c.dpt == 0 || c.dpt > 64) throw ContractError("vle: dpt must be in 1..64, got " + std::to_string(c.dpt));
  if (c.block_threads == 0 || c.block_threads > 1024 || c.block_threads % 32 != 0)
    throw ContractError("vle: block_threads must be a multiple of 32 up to 1024");
}

}  // namespace

std::size_t scratch_bytes(const Config& c, std::size_t n) {
  validate(c);
  if (n == 0) return 0;
  if (c.kernel == Kernel::fast) return detail::fast_scratch_bytes(1, n);
  ScratchCarver sizing;
  carve(sizing, make_geometry(n, c));
  return sizing.used();
}

void encode(const Config& c, const std::uint8_t* d_in, std::size_t n, const std::uint32_t* d_table, int max_length,
            std::uint32_t* d_out, std::size_t out_words, std::uint64_t* d_bits, void* d_scratch, std::size_t scratch_size,
            cudaStream_t stream, std::uint64_t* d_index) {
  validate(c);
  PARCOMP_NVTX_RANGE("vle::encode");
  if (reinterpret_cast<std::uintptr_t>(d_in) % 4 != 0)
    throw ContractError("vle::encode: the input must be 4-byte aligned (it is read as 32-bit words)");
  if (max_length > max_code_length(c.kernel))
    throw ContractError(name(c) + ": codewords of up to " + std::to_string(max_length) + " bits may not fit: " +
                        (c.kernel == Kernel::fast       ? "gpu.fast takes codewords of at most 24 bits"
                         : c.kernel == Kernel::sm64huff ? "sm64huff holds four codewords of at most 16 bits"
                                                        : "gm32/sm32 hold four codewords of at most 8 bits (use sm64huff)"));
  if (max_length < 1 && n != 0) throw ContractError("vle::encode: the table has no codeword");
  if (d_index != nullptr && c.kernel != Kernel::fast && 256 % c.dpt != 0)
    throw ContractError("vle::encode: an index needs dpt dividing 256, got " + std::to_string(c.dpt));
  if (out_words < output_words(n, max_length))
    throw ContractError("vle::encode: output of " + std::to_string(out_words) + " words, need " +
                        std::to_string(output_words(n, max_length)));
  if (n == 0) {
    PARCOMP_CUDA_CHECK(cudaMemsetAsync(d_bits, 0, sizeof(std::uint64_t), stream));
    return;
  }
  ScratchCarver carver(d_scratch, scratch_size);
  if (c.kernel == Kernel::fast) {
    Segments one;
    one.capacity = n;
    detail::encode_fast(one, d_in, d_table, max_length, d_out, d_bits, carver, stream, d_index, c.fast_symbols_per_thread, n);
    return;
  }
  // The paper kernels OR their bits into an output zeroed in advance (Balevic sec. 3.3: "set in
  // advance (all zeros)"): the caller zeroes it (zero_output), outside any timed region.
  const Geometry g = make_geometry(n, c);
  const Scratch s = carve(carver, g);
  if (c.kernel == Kernel::sm64huff) launch_kernel<Output64Huff>(c, d_in, g, d_table, d_out, d_bits, s, stream);
  else launch_kernel<Output32>(c, d_in, g, d_table, d_out, d_bits, s, stream);
  if (d_index != nullptr) {
    const auto entries = static_cast<std::int64_t>(index_entries(n));
    gather_index_kernel<<<static_cast<unsigned>((entries + 255) / 256), 256, 0, stream>>>(
        s.offsets, entries, static_cast<std::int64_t>(kIndexStride / (4 * c.dpt)), d_index);
    PARCOMP_CHECK_LAUNCH();
  }
}

void zero_output(const Config& c, std::uint32_t* d_out, std::size_t out_words, cudaStream_t stream) {
  if (c.kernel != Kernel::fast && out_words != 0)
    PARCOMP_CUDA_CHECK(cudaMemsetAsync(d_out, 0, out_words * sizeof(std::uint32_t), stream));
}

std::size_t segments_scratch_bytes(const Segments& g) { return detail::fast_scratch_bytes(g.count, g.capacity); }

void encode_segments(const Segments& g, const std::uint8_t* d_in, const std::uint32_t* d_tables, int max_length,
                     std::uint32_t* d_out, std::uint64_t* d_bits, std::uint64_t* d_index, void* d_scratch,
                     std::size_t scratch_size, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("vle::encode_segments");
  if (g.count == 0) return;
  if (g.d_sizes == nullptr || g.tables < 1 || g.tables > kMaxSegmentTables || g.capacity % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(d_in) % 16 != 0)
    throw ContractError("vle::encode_segments: sizes on the device, 1 to 6 tables, 16-byte aligned slots");
  if (max_length < 1 || max_length > max_code_length(Kernel::fast))
    throw ContractError("vle::encode_segments: codewords of 1 to 24 bits");
  if (g.out_stride < output_words(g.capacity, max_length))
    throw ContractError("vle::encode_segments: output slots of " + std::to_string(g.out_stride) + " words, need " +
                        std::to_string(output_words(g.capacity, max_length)));
  if (d_index != nullptr && g.index_stride < index_entries(g.capacity))
    throw ContractError("vle::encode_segments: index slots too small");
  ScratchCarver carver(d_scratch, scratch_size);
  detail::encode_fast(g, d_in, d_tables, max_length, d_out, d_bits, carver, stream, d_index, 0, 0);
}

std::size_t scan_scratch_bytes(std::size_t elements) { return scan_temp_bytes(elements); }

void scan_only(const std::uint32_t* d_lengths, std::size_t elements, std::uint64_t* d_offsets, void* d_scratch,
               std::size_t scratch_size, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("vle::scan");
  run_scan(d_lengths, elements, d_offsets, d_scratch, scratch_size, stream);
}

}  // namespace parcomp::vle
