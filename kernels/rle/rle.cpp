// Public entry points of kernels/rle: argument checks, then the variant.
#include "rle.hpp"

#include "rle_common.hpp"

namespace parcomp::rle {

std::string_view name(EncodeVariant v) {
  switch (v) {
    case EncodeVariant::paper: return "gpu.paper";
    case EncodeVariant::cub: return "gpu.cub";
  }
  return "?";
}

std::string_view name(DecodeVariant v) {
  switch (v) {
    case DecodeVariant::paper: return "gpu.paper";
    case DecodeVariant::cub: return "gpu.cub";
  }
  return "?";
}

std::size_t encode_scratch_bytes(EncodeVariant v, std::size_t n) {
  detail::check_size(n, "rle::encode_scratch_bytes");
  return v == EncodeVariant::paper ? detail::paper_encode_scratch_bytes(n) : detail::cub_encode_scratch_bytes(n);
}

void encode(EncodeVariant v, const std::int32_t* d_in, std::size_t n, std::int32_t* d_symbols, std::int32_t* d_counts,
            std::int32_t* d_num_runs, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  detail::check_size(n, "rle::encode");
  if (n == 0) {  // no run; the variants' kernels assume n >= 1
    PARCOMP_CUDA_CHECK(cudaMemsetAsync(d_num_runs, 0, sizeof(std::int32_t), stream));
    return;
  }
  if (v == EncodeVariant::paper)
    detail::paper_encode(d_in, n, d_symbols, d_counts, d_num_runs, d_scratch, scratch_bytes, stream);
  else
    detail::cub_encode(d_in, n, d_symbols, d_counts, d_num_runs, d_scratch, scratch_bytes, stream);
}

std::size_t decode_scratch_bytes(DecodeVariant v, std::size_t runs, std::size_t n) {
  detail::check_size(n, "rle::decode_scratch_bytes");
  if (runs > n) throw ContractError("rle::decode_scratch_bytes: more runs than output elements");
  return v == DecodeVariant::paper ? detail::paper_decode_scratch_bytes(runs, n)
                                   : detail::cub_decode_scratch_bytes(runs, n);
}

void decode(DecodeVariant v, const std::int32_t* d_symbols, const std::int32_t* d_counts, std::size_t runs,
            std::size_t n, std::int32_t* d_out, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  detail::check_size(n, "rle::decode");
  if (runs > n) throw ContractError("rle::decode: " + std::to_string(runs) + " runs cannot decode to " +
                                    std::to_string(n) + " elements (counts are >= 1)");
  if (runs == 0 && n != 0) throw ContractError("rle::decode: no runs cannot decode to " + std::to_string(n) + " elements");
  if (n == 0) return;  // nothing to write
  if (v == DecodeVariant::paper)
    detail::paper_decode(d_symbols, d_counts, runs, n, d_out, d_scratch, scratch_bytes, stream);
  else
    detail::cub_decode(d_symbols, d_counts, runs, n, d_out, d_scratch, scratch_bytes, stream);
}

}  // namespace parcomp::rle
