// .bz2 blocks written on the GPU. See bz2_encode.hpp.
#include "../common/cuda_check.hpp"
#include "../common/nvtx.hpp"
#include "bz2_encode.hpp"
#include "core/bz2_encode.hpp"
#include "core/errors.hpp"

#include <algorithm>
#include <string>

namespace parcomp::bz2gpu {

namespace {

struct EncodeBatch {
  const std::uint8_t* last;
  const std::uint64_t* offsets;
  const std::uint32_t *primary, *crc;
  std::uint8_t* out;
  std::size_t stride;
  std::uint64_t* bits;
  bz2::EncodeWork* work;
};

// What the thread of block b does.
__host__ __device__ inline void encode_one(const EncodeBatch& a, std::size_t b) {
  const std::uint64_t at = a.offsets[b], n = a.offsets[b + 1] - at;
  a.bits[b] = n > bz2::kMaxMtfSymbols - 1
                  ? 0
                  : bz2::encode_block_bits(a.last + at, static_cast<std::uint32_t>(n), a.primary[b], a.crc[b], a.work[b], a.out + b * a.stride,
                                           a.stride);
}

// A CTA per block, its tables in shared memory: every thread runs the MTF on its chunk, every
// thread takes groups in the four rounds (shared-memory atomics for the frequencies), a thread per
// table builds its code lengths and codes, and every thread writes groups' codes at their starts.
// kEncodeThreads threads (a chunk each): a batch has a CTA per block, 128 to 231 of them on 132
// SMs, so the SMs hold few warps and each CTA's length is the kernel's; more threads a block
// shorten its chunks and its share of groups.
template <unsigned kEncodeThreads>
__global__ void __launch_bounds__(kEncodeThreads) encode_kernel(EncodeBatch a, std::size_t count) {
  __shared__ bz2::EncodeTables t;
  const std::size_t b = blockIdx.x;
  if (b >= count) return;
  const unsigned tid = threadIdx.x;
  const std::uint64_t at = a.offsets[b], n = a.offsets[b + 1] - at;
  if (n == 0 || n > bz2::kMaxMtfSymbols - 1) {  // the same for every thread of the CTA
    if (tid == 0) a.bits[b] = 0;
    return;
  }
  bz2::EncodeWork& w = a.work[b];
  const std::uint8_t* last = a.last + at;
  static_assert(kEncodeThreads <= bz2::kMtfChunks && kEncodeThreads % 32 == 0, "a chunk per thread");
  // The chained lists' 256 places, kRounds rows of kEncodeThreads.
  constexpr unsigned kRounds = (256 + kEncodeThreads - 1) / kEncodeThreads;
  // MTF on chunks at once: each chunk's list at its start comes from the lists of the chunks before.
  __shared__ std::uint32_t used[8];
  __shared__ bz2::MtfTail tails[kEncodeThreads];
  __shared__ std::uint64_t runs[kEncodeThreads], at_symbol[kEncodeThreads + 1];
  const std::size_t ca = n * tid / kEncodeThreads, cb = n * (tid + 1) / kEncodeThreads;
  // The used bytes: every thread marks its chunk's bytes in one shared array (plain stores of the
  // same value), then 8 threads gather the bitmap's words. (Each thread's own 256-byte array, as
  // encode_used_bits keeps on the CPU, came out of nvcc 13.0's sm_90 code with bytes missing in
  // this kernel: bytes coded at wrong MTF places, and a read past the list on the GPU tests.)
  __shared__ std::uint8_t seen[256];
  for (unsigned v = tid; v < 256; v += kEncodeThreads) seen[v] = 0;
  __syncthreads();
  for (std::size_t i = ca; i < cb; ++i) seen[last[i]] = 1;
  __syncthreads();
  if (tid < 8) {
    std::uint32_t word = 0;
    for (unsigned j = 0; j < 32; ++j) word |= static_cast<std::uint32_t>(seen[tid * 32 + j] != 0) << j;
    used[tid] = word;
  }
  __syncthreads();
  if (tid == 0) bz2::encode_set_used(t, used);
  __syncthreads();
  const int n_in_use = t.alpha - 2;
  {
    std::uint8_t list[256];
    const int count = bz2::mtf_chunk_list(last, t.to_seq, ca, cb, list);
    for (int k = 0; k < count; ++k) w.chunk_state[tid][k] = list[k];
    tails[tid].zeros = static_cast<std::uint64_t>(count);  // the list's length, until the indices
  }
  __syncthreads();
  // The lists at the chunks' starts, chunk after chunk, every place at once (mtf_next_state's
  // lines, in parallel): the chunk's list goes first, then the places before it whose bytes it did
  // not move, in order (their new places: a ballot's prefix count, 128 places a row).
  {
    __shared__ std::uint8_t state[2][256];
    // The last chunk (1-based) that moved each byte: 16 bits, as chunk numbers pass 255 with 512
    // threads (8 bits wrapped there and dropped bytes from the lists).
    __shared__ std::uint16_t mark[256];
    __shared__ int kept[kRounds][kEncodeThreads / 32];
    constexpr unsigned kWarps = kEncodeThreads / 32;
    const unsigned lane = tid % 32, warp = tid / 32;
    for (unsigned q = tid; q < 256; q += kEncodeThreads) {
      state[0][q] = static_cast<std::uint8_t>(q);
      mark[q] = 0;
    }
    __syncthreads();
    for (unsigned c = 0; c < kEncodeThreads; ++c) {
      const std::uint8_t* before = state[c % 2];
      std::uint8_t* after = state[1 - c % 2];
      const int count = static_cast<int>(tails[c].zeros);
      std::uint8_t mine[kRounds];
      for (int k = static_cast<int>(tid); k < count; k += kEncodeThreads) {
        mine[k / kEncodeThreads] = w.chunk_state[c][k];
      }
      __syncthreads();  // the chunk's list read before its start list goes over it
      for (int k = static_cast<int>(tid); k < count; k += kEncodeThreads) {
        mark[mine[k / kEncodeThreads]] = static_cast<std::uint16_t>(c + 1);
        after[k] = mine[k / kEncodeThreads];
      }
      for (int q = static_cast<int>(tid); q < n_in_use; q += kEncodeThreads) w.chunk_state[c][q] = before[q];
      __syncthreads();
      bool keep[kRounds];
      for (unsigned r = 0; r < kRounds; ++r) {
        const int q = static_cast<int>(tid + r * kEncodeThreads);
        keep[r] = q < n_in_use && mark[before[q]] != static_cast<std::uint16_t>(c + 1);
        const unsigned ballot = __ballot_sync(0xffffffffu, keep[r]);
        if (lane == 0) kept[r][warp] = __popc(ballot);
        mine[r] = static_cast<std::uint8_t>(__popc(ballot & ((1u << lane) - 1u)));  // kept places before q in its warp
      }
      __syncthreads();
      for (unsigned r = 0; r < kRounds; ++r) {
        if (!keep[r]) continue;
        int at = count + mine[r];
        for (unsigned u = 0; u < kWarps; ++u) {
          for (unsigned e = 0; e < r; ++e) at += kept[e][u];  // the earlier rows' kept places
          if (u < warp) at += kept[r][u];
        }
        after[at] = before[tid + r * kEncodeThreads];
      }
      __syncthreads();
    }
  }
  {
    std::uint64_t yy[bz2::kMtfWords];
    bz2::mtf_list_words(w.chunk_state[tid], n_in_use, yy);
    tails[tid] = bz2::mtf_chunk_indices(last, t.to_seq, ca, cb, yy, w.mtf_index);
  }
  __syncthreads();
  if (tid == 0) {
    std::uint64_t run = 0;
    for (unsigned c = 0; c < kEncodeThreads; ++c) {
      runs[c] = run;
      run = bz2::mtf_run_after(run, n * (c + 1) / kEncodeThreads - n * c / kEncodeThreads, tails[c]);
    }
  }
  __syncthreads();
  const bool last_chunk = tid + 1 == kEncodeThreads;
  {
    std::uint64_t count = 0;
    bz2::mtf_chunk_emit(w.mtf_index, ca, cb, runs[tid], last_chunk, [&count](std::uint16_t) { ++count; });
    at_symbol[tid + 1] = count;
  }
  __syncthreads();
  if (tid == 0) {
    at_symbol[0] = 0;
    for (unsigned c = 0; c < kEncodeThreads; ++c) at_symbol[c + 1] += at_symbol[c];
  }
  __syncthreads();
  {
    std::uint64_t o = at_symbol[tid];
    bz2::mtf_chunk_emit(w.mtf_index, ca, cb, runs[tid], last_chunk, [&](std::uint16_t v) {
      w.mtfv[o++] = v;
      atomicAdd(&t.mtf_freq[v], 1);
    });
  }
  __syncthreads();
  if (tid == 0) bz2::encode_end_mtf(w.mtfv, at_symbol[kEncodeThreads], t);
  __syncthreads();
  for (int iter = 0; iter < bz2::kIterations; ++iter) {
    for (unsigned i = tid; i < bz2::kMaxTables * bz2::kMaxAlphabet; i += blockDim.x) (&t.rfreq[0][0])[i] = 0;
    for (int v = static_cast<int>(tid); v < t.alpha; v += static_cast<int>(blockDim.x)) bz2::encode_pack_costs(t, v);
    __syncthreads();
    for (std::size_t g = tid; g < t.n_selectors; g += blockDim.x)
      bz2::encode_choose(w.mtfv, g, t, w.selectors, [](int k, std::uint16_t v) { atomicAdd(&t.rfreq[k][v], 1); });
    __syncthreads();
    if (tid < static_cast<unsigned>(t.groups)) bz2::make_code_lengths(t.rfreq[tid], t.alpha, bz2::kEncodeMaxLength, t.len[tid]);
    __syncthreads();
  }
  if (tid < static_cast<unsigned>(t.groups)) bz2::encode_codes(t, static_cast<int>(tid));
  __syncthreads();
  // The bits: the head on one thread while the others measure each group's codes; the groups'
  // starts (a scan); the bytes after the head zeroed; then every group's codes at its start.
  __shared__ std::uint64_t head_bits, total_bits;
  std::uint8_t* out = a.out + b * a.stride;
  if (tid == 0) {
    bz2::BitSink s(out, a.stride);
    bz2::encode_write_head(w.selectors, t, a.primary[b], a.crc[b], s);
    head_bits = s.finish();
  }
  // Each thread measures a run of consecutive groups (its total in range_bits), one thread scans
  // the 128 totals, each thread turns its run into starts: no thread walks all the groups.
  __shared__ std::uint64_t range_bits[kEncodeThreads + 1];
  const std::size_t ga = t.n_selectors * std::size_t{tid} / kEncodeThreads, gb = t.n_selectors * std::size_t{tid + 1} / kEncodeThreads;
  {
    std::uint64_t sum = 0;
    for (std::size_t g = ga; g < gb; ++g) {
      std::uint64_t bits = 0;
      bz2::encode_group_codes(w.mtfv, w.selectors, t, g, [&bits](std::uint32_t, int length) { bits += static_cast<std::uint64_t>(length); });
      w.group_bit[g + 1] = bits;
      sum += bits;
    }
    range_bits[tid + 1] = sum;
  }
  __syncthreads();
  if (tid == 0) {
    range_bits[0] = head_bits;
    for (unsigned c = 0; c < kEncodeThreads; ++c) range_bits[c + 1] += range_bits[c];
    total_bits = range_bits[kEncodeThreads];
    w.group_bit[0] = head_bits;
  }
  __syncthreads();
  {
    std::uint64_t at = range_bits[tid];
    for (std::size_t g = ga; g < gb; ++g) {
      at += w.group_bit[g + 1];
      w.group_bit[g + 1] = at;
    }
  }
  __syncthreads();
  const std::size_t zero_from = (head_bits + 7) / 8, zero_to = (total_bits + 31) / 32 * 4;
  for (std::size_t i = zero_from + tid; i < zero_to && i < a.stride; i += blockDim.x) out[i] = 0;
  __syncthreads();
  // Groups share the 32-bit words at their ends: OR'd in atomically (bytes in stream order).
  auto* words = reinterpret_cast<std::uint32_t*>(out);
  for (std::size_t g = tid; g < t.n_selectors; g += blockDim.x)
    bz2::encode_group_words(w.mtfv, w.selectors, t, g, w.group_bit[g], [words](std::uint64_t i, std::uint32_t v) { atomicOr(&words[i], v); });
  if (tid == 0) a.bits[b] = total_bits;
}

EncodeBatch make(const std::uint8_t* last, const std::uint64_t* offsets, const std::uint32_t* primary, const std::uint32_t* crc, std::size_t count,
                 std::uint8_t* out, std::size_t stride, std::uint64_t* bits, void* scratch, std::size_t scratch_bytes, const char* what) {
  if (scratch_bytes < encode_scratch_bytes(count))
    throw ContractError(std::string(what) + ": scratch of " + std::to_string(scratch_bytes) + " bytes, needs " +
                        std::to_string(encode_scratch_bytes(count)));
  if (count > 0x7fffffffu) throw ContractError(std::string(what) + ": " + std::to_string(count) + " blocks in one batch");
  return {last, offsets, primary, crc, out, stride, bits, static_cast<bz2::EncodeWork*>(scratch)};
}

}  // namespace

std::size_t encode_scratch_bytes(std::size_t count) { return count * sizeof(bz2::EncodeWork); }
std::size_t encode_stride(std::size_t max_block) { return (bz2::encoded_bytes_bound(max_block) + 255) / 256 * 256; }

void encode_batch(const std::uint8_t* last, const std::uint64_t* offsets, const std::uint32_t* primary, const std::uint32_t* crc,
                  std::size_t count, std::uint8_t* out, std::size_t stride, std::uint64_t* bits, void* scratch, std::size_t scratch_bytes,
                  cudaStream_t stream, unsigned threads) {
  PARCOMP_NVTX_RANGE("bz2gpu::encode_batch");
  if (threads == 0) threads = kEncodeThreadsDefault;
  if (threads != 128 && threads != 256 && threads != 512)
    throw ContractError("bz2gpu::encode_batch: " + std::to_string(threads) + " threads a block (128, 256 or 512)");
  if (count == 0) return;
  const EncodeBatch a = make(last, offsets, primary, crc, count, out, stride, bits, scratch, scratch_bytes, "bz2gpu::encode_batch");
  const unsigned grid = static_cast<unsigned>(count);
  if (threads == 128) encode_kernel<128><<<grid, 128, 0, stream>>>(a, count);
  else if (threads == 256) encode_kernel<256><<<grid, 256, 0, stream>>>(a, count);
  else encode_kernel<512><<<grid, 512, 0, stream>>>(a, count);
  PARCOMP_CHECK_LAUNCH();
}

std::size_t encode_local_bytes() {
  int device = 0;
  PARCOMP_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  PARCOMP_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  std::size_t most = 0;
  for (const void* k : {reinterpret_cast<const void*>(encode_kernel<128>), reinterpret_cast<const void*>(encode_kernel<256>),
                        reinterpret_cast<const void*>(encode_kernel<512>)}) {
    cudaFuncAttributes attr{};
    PARCOMP_CUDA_CHECK(cudaFuncGetAttributes(&attr, k));
    most = std::max<std::size_t>(most, attr.localSizeBytes);
  }
  return most * static_cast<std::size_t>(prop.maxThreadsPerMultiProcessor) * static_cast<std::size_t>(prop.multiProcessorCount);
}

void encode_batch_host(const std::uint8_t* last, const std::uint64_t* offsets, const std::uint32_t* primary, const std::uint32_t* crc,
                       std::size_t count, std::uint8_t* out, std::size_t stride, std::uint64_t* bits, void* scratch, std::size_t scratch_bytes) {
  if (count == 0) return;
  const EncodeBatch a = make(last, offsets, primary, crc, count, out, stride, bits, scratch, scratch_bytes, "bz2gpu::encode_batch_host");
  for (std::size_t b = 0; b < count; ++b) encode_one(a, b);
}

}  // namespace parcomp::bz2gpu
