// .bz2 blocks decoded on a GPU, host side. See bz2_gpu.hpp.
#include "bz2_gpu.hpp"

#include "codec/common/parallel.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/nvtx.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>

namespace parcomp::bz2 {

GpuBlockDecoder::GpuBlockDecoder(cudaStream_t stream, int level)
    : stream_(stream), limit_(static_cast<std::uint32_t>(block_limit(level))) {
  if (level < 1 || level > 9) throw ContractError("bz2::GpuBlockDecoder: level " + std::to_string(level));
}

void GpuBlockDecoder::load(std::span<const GpuBlockIn> blocks) {
  PARCOMP_NVTX_RANGE("bz2::GpuBlockDecoder::load");
  std::map<const std::vector<std::uint8_t>*, std::size_t> at;  // each window's offset on the device
  std::size_t total = 0;
  for (const GpuBlockIn& b : blocks) {
    if (b.window == nullptr) throw ContractError("bz2::GpuBlockDecoder::load: a block without its window");
    if (at.emplace(b.window, total).second) total += b.window->size();
  }
  windows_.grow(total + bz2gpu::kWindowPad);
  for (const auto& [w, off] : at)
    if (!w->empty()) PARCOMP_CUDA_CHECK(cudaMemcpyAsync(windows_.data() + off, w->data(), w->size(), cudaMemcpyHostToDevice, stream_));
  PARCOMP_CUDA_CHECK(cudaMemsetAsync(windows_.data() + total, 0, bz2gpu::kWindowPad, stream_));  // read ahead by the walk
  std::vector<bz2gpu::BatchBlock> table(blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i)
    table[i] = {windows_.data() + at[blocks[i].window], blocks[i].window->size(), blocks[i].bit};
  count_ = blocks.size();
  table_.grow(std::max<std::size_t>(count_, 1));
  info_.grow(std::max<std::size_t>(count_, 1));
  out_.grow(std::max<std::size_t>(count_ * limit_, 1));
  // Poisoned, so that a byte the GPU leaves unwritten shows as a CRC error, never as stale data.
  if (count_ > 0) PARCOMP_CUDA_CHECK(cudaMemsetAsync(out_.data(), 0xA5, count_ * std::size_t{limit_}, stream_));
  // Zeroed: the kernel writes each block's BlockSymbols as a whole, not its padding bytes, which the
  // copy back would read uninitialised (compute-sanitizer's initcheck).
  if (count_ > 0) PARCOMP_CUDA_CHECK(cudaMemsetAsync(info_.data(), 0, count_ * sizeof(BlockSymbols), stream_));
  const std::size_t need = bz2gpu::decode_scratch_bytes(count_, limit_);
  if (need > scratch_.size_bytes()) scratch_ = DeviceBytes(need);
  if (count_ > 0)
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(table_.data(), table.data(), count_ * sizeof(bz2gpu::BatchBlock), cudaMemcpyHostToDevice, stream_));
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host windows may go once this returns
}

void GpuBlockDecoder::run() {
  bz2gpu::decode_batch(table_.data(), count_, limit_, info_.data(), out_.data(), scratch_.data(), scratch_.size_bytes(), stream_, walk_);
  const std::size_t bytes = count_ * std::size_t{limit_};
  if (bytes > host_bytes_ && !host_ready_.valid()) {  // while the GPU decodes, off the lane's thread
    int device = 0;
    PARCOMP_CUDA_CHECK(cudaGetDevice(&device));
    host_ready_ = std::async(std::launch::async, [this, bytes, device] {
      PARCOMP_CUDA_CHECK(cudaSetDevice(device));
      ready_host(bytes);
    });
  }
}

void GpuBlockDecoder::HostFree::operator()(std::uint8_t* p) const {
  if (pinned)
    PARCOMP_CUDA_CHECK_NOTHROW(cudaFreeHost(p));
  else
    delete[] p;
}

void GpuBlockDecoder::ready_host(std::size_t bytes) {
  if (bytes <= host_bytes_) return;
  PARCOMP_NVTX_RANGE("bz2::GpuBlockDecoder::ready_host");
  host_.reset();
  host_bytes_ = 0;
  void* pinned = nullptr;
  if (cudaMallocHost(&pinned, bytes) == cudaSuccess) {
    host_ = std::unique_ptr<std::uint8_t[], HostFree>(static_cast<std::uint8_t*>(pinned), HostFree{true});
    host_bytes_ = bytes;
    return;
  }
  (void)cudaGetLastError();  // not sticky: pageable memory instead
  host_ = std::unique_ptr<std::uint8_t[], HostFree>(new std::uint8_t[bytes], HostFree{false});  // not zeroed: the copies back write every byte read
  host_bytes_ = bytes;
  constexpr std::size_t kPiece = std::size_t{4} << 20, kPage = 4096;
  std::uint8_t* const p = host_.get();
  for_each_block((bytes + kPiece - 1) / kPiece, 0, [&](std::size_t k) {
    const std::size_t end = std::min(bytes, (k + 1) * kPiece);
    for (std::size_t i = k * kPiece; i < end; i += kPage) p[i] = 0;
  });
}

std::vector<GpuBlockOut> GpuBlockDecoder::collect(std::span<const GpuBlockIn> blocks, unsigned threads) {
  PARCOMP_NVTX_RANGE("bz2::GpuBlockDecoder::collect");
  if (blocks.size() != count_) throw ContractError("bz2::GpuBlockDecoder::collect: not the blocks loaded");
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  std::vector<BlockSymbols> info(count_);
  if (count_ > 0)
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(info.data(), info_.data(), count_ * sizeof(BlockSymbols), cudaMemcpyDeviceToHost, stream_));
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  const auto t1 = Clock::now();
  // Each decoded block's bytes, packed.
  std::vector<std::size_t> offset(count_ + 1, 0);
  for (std::size_t i = 0; i < count_; ++i)
    offset[i + 1] = offset[i] + (info[i].error == BlockError::none ? info[i].nblock : 0);
  // Into the kept host copy (its pages already touched); the copies cover every byte finish reads.
  if (host_ready_.valid()) host_ready_.get();  // run()'s allocation (its error, if any, thrown here)
  ready_host(std::max<std::size_t>(offset[count_], 1));
  std::uint8_t* const bytes = host_.get();
  for (std::size_t i = 0; i < count_; ++i)
    if (offset[i + 1] > offset[i])
      PARCOMP_CUDA_CHECK(cudaMemcpyAsync(bytes + offset[i], out_.data() + i * std::size_t{limit_}, offset[i + 1] - offset[i],
                                         cudaMemcpyDeviceToHost, stream_));
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  const auto t2 = Clock::now();
  std::vector<GpuBlockOut> outs = finish(blocks, info, {bytes, offset[count_]}, offset, threads);
  const auto secs = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  last_collect_ = {secs(t1 - t0), secs(t2 - t1), secs(Clock::now() - t2)};
  return outs;
}

std::vector<GpuBlockOut> GpuBlockDecoder::finish(std::span<const GpuBlockIn> blocks, std::span<const BlockSymbols> info,
                                                 std::span<const std::uint8_t> bytes, std::span<const std::size_t> offset, unsigned threads) {
  if (info.size() != blocks.size() || offset.size() != blocks.size() + 1 || offset.back() > bytes.size())
    throw ContractError("bz2::GpuBlockDecoder::finish: sizes do not match");
  std::vector<GpuBlockOut> outs(blocks.size());
  for_each_block(blocks.size(), threads, [&](std::size_t i) {
    GpuBlockOut& o = outs[i];
    try {
      if (info[i].error != BlockError::none) throw_block_error(info[i], blocks[i].where, blocks[i].window_is_end);
      o.r = finish_block(bytes.subspan(offset[i], offset[i + 1] - offset[i]), info[i], blocks[i].bit, o.bytes, blocks[i].where);
    } catch (const CorruptDataError&) {
      o.error = std::current_exception();
      o.bytes = std::vector<std::uint8_t>();
    }
  });
  return outs;
}

std::size_t GpuBlockDecoder::device_bytes() const {
  return windows_.size_bytes() + out_.size_bytes() + table_.size_bytes() + info_.size_bytes() + scratch_.size_bytes();
}

}  // namespace parcomp::bz2
