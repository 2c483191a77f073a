// Huffman stage: histogram, tree, the thesis's block encoder and decoder. See huffman.hpp.
#include "../common/cuda_check.hpp"
#include "../common/launch.cuh"
#include "../common/nvtx.hpp"
#include "../common/scratch.hpp"
#include "../common/widen.cuh"
#include "../vle/decode_step.cuh"
#include "huffman.hpp"
#include "tree.cuh"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <string>

namespace parcomp::huffman {

namespace {

using namespace detail;
constexpr int kPaperThreads = 128;
static_assert(kPaperThreads == kTreeSearchThreads, "the paper tree's search block");
constexpr int kSymbolsPerThread = static_cast<int>(kBlockSymbols) / kPaperThreads;  // 32

// ---- histogram --------------------------------------------------------------------------------

constexpr int kHistWarps = kPaperThreads / 32;

// Brown et al.: each warp counts into its own 256 bins in shared memory; the block sums them.
__global__ void block_histogram_kernel(const std::uint8_t* in, std::int64_t n, std::uint32_t* partial) {
  __shared__ std::uint32_t bins[kHistWarps][256];
  const int warp = static_cast<int>(threadIdx.x / 32);
  for (int i = static_cast<int>(threadIdx.x); i < kHistWarps * 256; i += kPaperThreads) (&bins[0][0])[i] = 0;
  __syncthreads();
  for (std::int64_t i = grid_thread_index(); i < n; i += grid_stride()) atomicAdd(&bins[warp][in[i]], 1u);
  __syncthreads();
  for (int c = static_cast<int>(threadIdx.x); c < 256; c += kPaperThreads) {
    std::uint32_t sum = 0;
    for (int w = 0; w < kHistWarps; ++w) sum += bins[w][c];
    partial[static_cast<std::size_t>(blockIdx.x) * 256 + static_cast<std::size_t>(c)] = sum;
  }
}

// The final merge, in one block.
__global__ void merge_histograms_kernel(const std::uint32_t* partial, int blocks, std::uint64_t* hist) {
  for (int c = static_cast<int>(threadIdx.x); c < 256; c += static_cast<int>(blockDim.x)) {
    std::uint64_t sum = 0;
    for (int b = 0; b < blocks; ++b) sum += partial[static_cast<std::size_t>(b) * 256 + static_cast<std::size_t>(c)];
    hist[c] = sum;
  }
}

__global__ void widen_kernel(const unsigned* counts, std::uint64_t* hist) {
  if (threadIdx.x < 256) hist[threadIdx.x] = counts[threadIdx.x];
}

// ---- tree -------------------------------------------------------------------------------------

// The thesis's tree: one block of 128 threads; per merge a reduction over 4 entries a thread.
__global__ void __launch_bounds__(kPaperThreads) tree_block_kernel(const std::uint64_t* hist, std::uint8_t* lengths,
                                                                  std::uint32_t* depth) {
  __shared__ TreeShared s;
  if (threadIdx.x == 0) *depth = 0;
  tree_init(hist, s);
  const int t = static_cast<int>(threadIdx.x);
  for (int j = 0; j + 1 < s.used; ++j) {
    unsigned long long a = kNone, b = kNone;
    for (int q = 0; q < 4; ++q) keep_two(a, b, s.key[4 * t + q]);
    s.best[t][0] = a;
    s.best[t][1] = b;
    __syncthreads();
    for (int stride = kPaperThreads / 2; stride > 0; stride /= 2) {
      if (t < stride) {
        unsigned long long x = s.best[t][0], y = s.best[t][1];
        keep_two(x, y, s.best[t + stride][0]);
        keep_two(x, y, s.best[t + stride][1]);
        s.best[t][0] = x;
        s.best[t][1] = y;
      }
      __syncthreads();
    }
    if (t == 0) tree_merge(s, s.best[0][0], s.best[0][1], 256 + j);
    __syncthreads();
  }
  tree_lengths(s, lengths, depth);
}

// Ours: the same merges without a search per merge. The used leaves are sorted by key (each of 256
// threads counts the keys below its own), then one thread merges with two queues, the sorted
// leaves and the internal nodes in creation order: internal nodes are created with nondecreasing
// weights, and among equal weights in node order, so the smaller of the two queue fronts is always
// the least active key -- the same node the reference's priority queue would take.
__global__ void __launch_bounds__(256) tree_queues_kernel(const std::uint64_t* hist, std::uint8_t* lengths,
                                                          std::uint32_t* depth) {
  __shared__ TreeShared s;
  __shared__ TreeQueues q;
  if (threadIdx.x == 0) *depth = 0;
  tree_init(hist, s);
  tree_queues(s, q);
  tree_lengths(s, lengths, depth);
}

// ---- paper encode ---------------------------------------------------------------------------

__device__ __forceinline__ void load_table(const std::uint32_t* global, std::uint32_t* shared) {
  for (int i = static_cast<int>(threadIdx.x); i < 256; i += static_cast<int>(blockDim.x)) shared[i] = global[i];
  __syncthreads();
}

__device__ __forceinline__ std::uint32_t thread_bits(const std::uint8_t* in, std::int64_t n, std::int64_t first,
                                                     const std::uint32_t* table) {
  std::uint32_t bits = 0;
  for (int k = 0; k < kSymbolsPerThread; ++k)
    if (first + k < n) bits += table[in[first + k]] & 0xFFu;
  return bits;
}

__global__ void __launch_bounds__(kPaperThreads)
    block_sizes_kernel(const std::uint8_t* in, std::int64_t n, const std::uint32_t* table_global, std::uint32_t* sizes) {
  using Reduce = cub::BlockReduce<std::uint32_t, kPaperThreads>;
  __shared__ std::uint32_t table[256];
  __shared__ typename Reduce::TempStorage storage;
  load_table(table_global, table);
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * static_cast<std::int64_t>(kBlockSymbols) +
                             static_cast<std::int64_t>(threadIdx.x) * kSymbolsPerThread;
  const std::uint32_t bits = Reduce(storage).Sum(thread_bits(in, n, first, table));
  if (threadIdx.x == 0) sizes[blockIdx.x] = (bits + 7u) / 8u;
}

__global__ void total_kernel(const std::uint64_t* offsets, const std::uint32_t* sizes, std::int64_t blocks,
                             std::uint64_t* total) {
  *total = offsets[blocks - 1] + sizes[blocks - 1];
}

// Each thread writes its 32 codewords at its bit offset in the block's array (assembled in shared
// memory with atomicOr, as threads share bytes), then the block copies its bytes out.
__global__ void __launch_bounds__(kPaperThreads)
    block_encode_kernel(const std::uint8_t* in, std::int64_t n, const std::uint32_t* table_global,
                        const std::uint64_t* offsets, const std::uint32_t* sizes, std::uint8_t* out) {
  using Scan = cub::BlockScan<std::uint32_t, kPaperThreads>;
  __shared__ std::uint32_t table[256];
  __shared__ typename Scan::TempStorage storage;
  extern __shared__ std::uint32_t words[];
  load_table(table_global, table);
  const std::uint32_t size = sizes[blockIdx.x];
  const int nwords = static_cast<int>((size + 3u) / 4u);
  for (int i = static_cast<int>(threadIdx.x); i < nwords; i += kPaperThreads) words[i] = 0;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * static_cast<std::int64_t>(kBlockSymbols) +
                             static_cast<std::int64_t>(threadIdx.x) * kSymbolsPerThread;
  std::uint32_t offset;
  Scan(storage).ExclusiveSum(thread_bits(in, n, first, table), offset);
  __syncthreads();
  std::uint32_t word = offset >> 5;
  int fill = static_cast<int>(offset & 31u);
  std::uint64_t acc = 0;
  for (int k = 0; k < kSymbolsPerThread && first + k < n; ++k) {
    const std::uint32_t e = table[in[first + k]];
    const int length = static_cast<int>(e & 0xFFu);
    acc = (acc << length) | (e >> 8);
    fill += length;
    if (fill >= 32) {
      fill -= 32;
      atomicOr(words + word, static_cast<std::uint32_t>(acc >> fill));
      ++word;
    }
  }
  if (fill > 0) atomicOr(words + word, static_cast<std::uint32_t>(acc << (32 - fill)));
  __syncthreads();
  std::uint8_t* dst = out + offsets[blockIdx.x];
  for (std::uint32_t i = threadIdx.x; i < size; i += kPaperThreads)
    dst[i] = static_cast<std::uint8_t>(words[i / 4] >> (24 - 8 * (i % 4)));
}

// ---- paper decode ---------------------------------------------------------------------------

using vle::kBadCode;
constexpr std::uint32_t kBadSize = vle::kBadLength;  // a block's bits do not fill exactly its bytes

// The thesis's decoding step (sec. 3.1): one bit at a time down the code tree until a leaf. For a
// canonical code the tree's level l holds the codes of length l in order, so walking it is a
// compare per bit: after l bits, the code read so far is a leaf iff it lies in [first[l],
// first[l] + count[l]). Returns false when no codeword matches within max_length bits.
__device__ __forceinline__ bool decode_bit_serial(const vle::DecodeTable& t, std::uint64_t& window, int& avail,
                                                  std::uint64_t& used, std::uint32_t& symbol) {
  std::uint32_t code = 0;
  for (int l = 1; l <= t.max_length; ++l) {
    code = (code << 1) | static_cast<std::uint32_t>(window >> 63);
    window <<= 1;
    if (code - t.first[l] < t.count[l]) {
      symbol = t.symbols[t.offset[l] + code - t.first[l]];
      avail -= l;
      used += static_cast<std::uint64_t>(l);
      return true;
    }
  }
  return false;
}

// One thread per block: walk its byte array, write four symbols at a time. BitSerial: the
// thesis's walk (gpu.paper); else the 10-bit lookup table and per-length search (ours,
// vle::decode_next, gpu.paper.lut).
template <bool BitSerial>
__global__ void block_decode_kernel(const std::uint8_t* data, std::uint64_t data_bytes, const std::uint32_t* sizes,
                                    const std::uint64_t* offsets, std::int64_t n, const vle::DecodeTable* table_global,
                                    std::uint8_t* out, std::uint32_t* status) {
  __shared__ vle::DecodeTable t;
  vle::load_decode_table(table_global, t);
  const std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t blocks = (n + static_cast<std::int64_t>(kBlockSymbols) - 1) / static_cast<std::int64_t>(kBlockSymbols);
  if (b >= blocks) return;
  const std::uint64_t begin = offsets[b], size = sizes[b];
  if (begin + size > data_bytes || begin + size < begin) {
    vle::report_damage(status, kBadSize, b);
    return;
  }
  const std::uint8_t* src = data + begin;
  const std::int64_t first = b * static_cast<std::int64_t>(kBlockSymbols);
  const int count = static_cast<int>(min(static_cast<std::int64_t>(kBlockSymbols), n - first));
  std::uint64_t buf = 0, pos = 0, used = 0;
  int avail = 0;
  std::uint32_t pack = 0;
  for (int i = 0; i < count; ++i) {
    while (avail <= 56) {  // bytes past the array read as zero
      buf |= static_cast<std::uint64_t>(pos < size ? src[pos] : 0u) << (56 - avail);
      ++pos;
      avail += 8;
    }
    std::uint32_t symbol;
    const bool ok = BitSerial ? decode_bit_serial(t, buf, avail, used, symbol) : vle::decode_next(t, buf, avail, used, symbol);
    if (!ok) {
      vle::report_damage(status, kBadCode, b);
      return;
    }
    pack |= symbol << (8 * (i & 3));
    if ((i & 3) == 3) {
      reinterpret_cast<std::uint32_t*>(out + first)[i >> 2] = pack;
      pack = 0;
    }
  }
  for (int i = count & ~3; i < count; ++i) out[first + i] = static_cast<std::uint8_t>(pack >> (8 * (i & 3)));
  if ((used + 7) / 8 != size) vle::report_damage(status, kBadSize, b);
}

struct Scratch {
  std::uint64_t* offsets;
  void* temp;
  std::size_t temp_bytes;
};

Scratch carve_scan(ScratchCarver& c, std::size_t blocks) {
  Scratch s{};
  s.offsets = c.take<std::uint64_t>(blocks);
  PARCOMP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, s.temp_bytes, widen(nullptr),
                                                   static_cast<std::uint64_t*>(nullptr), static_cast<std::int64_t>(blocks)));
  s.temp = c.take_bytes(s.temp_bytes);
  return s;
}

constexpr int kHistogramBlocksPerSm = 4;

}  // namespace

std::size_t histogram_scratch_bytes(Variant v, std::size_t n) {
  ScratchCarver c;
  if (v == Variant::paper) {
    c.take<std::uint32_t>(static_cast<std::size_t>(sm_count() * kHistogramBlocksPerSm) * 256);
  } else {
    if (n >= (std::size_t{1} << 31)) throw ContractError("huffman fast histogram: n must be below 2^31 (CUB's int counters)");
    std::size_t bytes = 0;
    PARCOMP_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, bytes, static_cast<const std::uint8_t*>(nullptr),
                                                           static_cast<unsigned*>(nullptr), 257, 0, 256,
                                                           static_cast<int>(std::max<std::size_t>(n, 1))));
    c.take<unsigned>(256);
    c.take_bytes(bytes);
  }
  return c.used();
}

void histogram(Variant v, const std::uint8_t* d_in, std::size_t n, std::uint64_t* d_hist, void* d_scratch,
               std::size_t scratch_bytes, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("huffman::histogram");
  ScratchCarver c(d_scratch, scratch_bytes);
  if (v == Variant::paper) {
    const int blocks = sm_count() * kHistogramBlocksPerSm;
    std::uint32_t* partial = c.take<std::uint32_t>(static_cast<std::size_t>(blocks) * 256);
    block_histogram_kernel<<<blocks, kPaperThreads, 0, stream>>>(d_in, static_cast<std::int64_t>(n), partial);
    PARCOMP_CHECK_LAUNCH();
    merge_histograms_kernel<<<1, 256, 0, stream>>>(partial, blocks, d_hist);
    PARCOMP_CHECK_LAUNCH();
    return;
  }
  if (n >= (std::size_t{1} << 31)) throw ContractError("huffman fast histogram: n must be below 2^31 (CUB's int counters)");
  unsigned* counts = c.take<unsigned>(256);
  std::size_t bytes = 0;
  PARCOMP_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, bytes, d_in, counts, 257, 0, 256,
                                                         static_cast<int>(std::max<std::size_t>(n, 1))));
  void* temp = c.take_bytes(bytes);
  if (n == 0) {
    PARCOMP_CUDA_CHECK(cudaMemsetAsync(d_hist, 0, 256 * sizeof(std::uint64_t), stream));
    return;
  }
  PARCOMP_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp, bytes, d_in, counts, 257, 0, 256, static_cast<int>(n), stream));
  widen_kernel<<<1, 256, 0, stream>>>(counts, d_hist);
  PARCOMP_CHECK_LAUNCH();
}

void tree(Variant v, const std::uint64_t* d_hist, std::uint8_t* d_lengths, std::uint32_t* d_depth, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("huffman::tree");
  if (v == Variant::paper) tree_block_kernel<<<1, kPaperThreads, 0, stream>>>(d_hist, d_lengths, d_depth);
  else tree_queues_kernel<<<1, 256, 0, stream>>>(d_hist, d_lengths, d_depth);
  PARCOMP_CHECK_LAUNCH();
}

Code code_from_lengths(const std::array<std::uint8_t, 256>& tree_lengths, const codes::Histogram& hist) {
  Code c;
  c.lengths = tree_lengths;
  if (*std::max_element(c.lengths.begin(), c.lengths.end()) > kMaxCodeLength)
    c.lengths = codes::code_lengths(hist, kMaxCodeLength);
  c.table = codes::canonical_codes(c.lengths);
  std::array<std::uint32_t, 256> codes{};
  for (int s = 0; s < 256; ++s) codes[s] = c.table[s].bits;
  c.packed = vle::pack_table(codes, c.lengths);
  if (c.packed.max_length > 0) c.decode = vle::make_decode_table(codes, c.lengths);
  return c;
}

Code code_from_device_histogram(const std::uint64_t* d_hist, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("huffman::host_tree");
  codes::Histogram h{};
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(h.data(), d_hist, sizeof h, cudaMemcpyDeviceToHost, stream));
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return code_from_lengths(codes::huffman_code_lengths(h, kMaxCodeLength), h);
}

std::size_t paper_encode_scratch_bytes(std::size_t n) {
  ScratchCarver c;
  carve_scan(c, std::max<std::size_t>(block_count(n), 1));
  return c.used();
}

void encode_paper(const std::uint8_t* d_in, std::size_t n, const std::uint32_t* d_table, int max_length,
                  std::uint8_t* d_out, std::size_t out_bytes, std::uint32_t* d_block_bytes,
                  std::uint64_t* d_total_bytes, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("huffman::encode_paper");
  if (max_length < 1 || max_length > 24) throw ContractError("huffman::encode_paper: codes must be 1..24 bits");
  if (out_bytes < paper_output_bytes(n, max_length))
    throw ContractError("huffman::encode_paper: output of " + std::to_string(out_bytes) + " bytes, need " +
                        std::to_string(paper_output_bytes(n, max_length)));
  if (n == 0) {
    PARCOMP_CUDA_CHECK(cudaMemsetAsync(d_total_bytes, 0, sizeof(std::uint64_t), stream));
    return;
  }
  const std::size_t blocks = block_count(n);
  ScratchCarver c(d_scratch, scratch_bytes);
  Scratch s = carve_scan(c, blocks);
  block_sizes_kernel<<<static_cast<unsigned>(blocks), kPaperThreads, 0, stream>>>(d_in, static_cast<std::int64_t>(n),
                                                                                   d_table, d_block_bytes);
  PARCOMP_CHECK_LAUNCH();
  PARCOMP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(s.temp, s.temp_bytes, widen(d_block_bytes), s.offsets,
                                                   static_cast<std::int64_t>(blocks), stream));
  total_kernel<<<1, 1, 0, stream>>>(s.offsets, d_block_bytes, static_cast<std::int64_t>(blocks), d_total_bytes);
  PARCOMP_CHECK_LAUNCH();
  const std::size_t shared = (kBlockSymbols * static_cast<std::size_t>(max_length) + 31) / 32 * 4;
  ensure_dynamic_shared(block_encode_kernel, shared);
  block_encode_kernel<<<static_cast<unsigned>(blocks), kPaperThreads, shared, stream>>>(
      d_in, static_cast<std::int64_t>(n), d_table, s.offsets, d_block_bytes, d_out);
  PARCOMP_CHECK_LAUNCH();
}

std::size_t paper_decode_scratch_bytes(std::size_t n) { return paper_encode_scratch_bytes(n); }

void decode_paper(const std::uint8_t* d_data, std::size_t data_bytes, const std::uint32_t* d_block_bytes, std::size_t n,
                  const vle::DecodeTable* d_table, std::uint8_t* d_out, std::uint32_t* d_status, void* d_scratch,
                  std::size_t scratch_bytes, cudaStream_t stream, DecodeMethod method) {
  PARCOMP_NVTX_RANGE(method == DecodeMethod::bit_serial ? "huffman::decode_paper" : "huffman::decode_paper.lut");
  if (reinterpret_cast<std::uintptr_t>(d_out) % 4 != 0) throw ContractError("huffman::decode_paper: output must be 4-byte aligned");
  const std::uint32_t init[kDecodeStatusWords] = {0u, 0xFFFFFFFFu};
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(d_status, init, sizeof init, cudaMemcpyHostToDevice, stream));
  if (n == 0) return;
  const std::size_t blocks = block_count(n);
  ScratchCarver c(d_scratch, scratch_bytes);
  Scratch s = carve_scan(c, blocks);
  PARCOMP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(s.temp, s.temp_bytes, widen(d_block_bytes), s.offsets,
                                                   static_cast<std::int64_t>(blocks), stream));
  constexpr int kThreads = 64;
  auto kernel = method == DecodeMethod::bit_serial ? block_decode_kernel<true> : block_decode_kernel<false>;
  kernel<<<static_cast<unsigned>((blocks + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      d_data, data_bytes, d_block_bytes, s.offsets, static_cast<std::int64_t>(n), d_table, d_out, d_status);
  PARCOMP_CHECK_LAUNCH();
}

void check_decode_status(const std::uint32_t* d_status, cudaStream_t stream) {
  std::uint32_t s[kDecodeStatusWords] = {};
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s, d_status, sizeof s, cudaMemcpyDeviceToHost, stream));
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (s[0] == 0) return;
  throw CorruptDataError("huffman::decode_paper: corrupt block " + std::to_string(s[1]) + ": " +
                         ((s[0] & kBadCode) != 0 ? "no codeword matches" : "its bits do not fill exactly its bytes"));
}

}  // namespace parcomp::huffman
