// .bz2 blocks written on the GPU. See bz2_encode.hpp.
#include "../common/cuda_check.hpp"
#include "../common/nvtx.hpp"
#include "bz2_encode.hpp"
#include "codec/common/bz2_encode.hpp"
#include "codec/common/errors.hpp"

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

// One thread per block, a CTA each, so that the blocks spread over the SMs.
__global__ void encode_kernel(EncodeBatch a, std::size_t count) {
  if (threadIdx.x == 0 && blockIdx.x < count) encode_one(a, blockIdx.x);
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
                  cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("bz2gpu::encode_batch");
  if (count == 0) return;
  const EncodeBatch a = make(last, offsets, primary, crc, count, out, stride, bits, scratch, scratch_bytes, "bz2gpu::encode_batch");
  encode_kernel<<<static_cast<unsigned>(count), 1, 0, stream>>>(a, count);
  PARCOMP_CHECK_LAUNCH();
}

void encode_batch_host(const std::uint8_t* last, const std::uint64_t* offsets, const std::uint32_t* primary, const std::uint32_t* crc,
                       std::size_t count, std::uint8_t* out, std::size_t stride, std::uint64_t* bits, void* scratch, std::size_t scratch_bytes) {
  if (count == 0) return;
  const EncodeBatch a = make(last, offsets, primary, crc, count, out, stride, bits, scratch, scratch_bytes, "bz2gpu::encode_batch_host");
  for (std::size_t b = 0; b < count; ++b) encode_one(a, b);
}

}  // namespace parcomp::bz2gpu
