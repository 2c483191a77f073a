// .bz2 blocks decoded on a GPU, host side. See bz2_gpu.hpp.
#include "bz2_gpu.hpp"
#include "bz2_ties.hpp"

#include "core/parallel.hpp"
#include "kernels/bwt/bwt.hpp"
#include "kernels/bz2/bz2_encode.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/nvtx.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace parcomp::bz2 {

GpuBlockDecoder::GpuBlockDecoder(cudaStream_t stream, int level)
    : stream_(stream), limit_(static_cast<std::uint32_t>(block_limit(level))) {
  if (level < 1 || level > 9) throw ContractError("bz2::GpuBlockDecoder: level " + std::to_string(level));
}

GpuBlockDecoder::~GpuBlockDecoder() {
  if (host_ready_.valid()) host_ready_.wait();
  if (uploaded_ != nullptr) {  // an event of its own: the stream may be gone by now
    PARCOMP_CUDA_CHECK_NOTHROW(cudaEventSynchronize(uploaded_));
    PARCOMP_CUDA_CHECK_NOTHROW(cudaEventDestroy(uploaded_));
  }
}

void GpuBlockDecoder::load(std::span<const GpuBlockIn> blocks) {
  PARCOMP_NVTX_RANGE("bz2::GpuBlockDecoder::load");
  std::map<const std::vector<std::uint8_t>*, std::size_t> at;  // each window's offset on the device
  std::size_t total = 0;
  for (const GpuBlockIn& b : blocks) {
    if (b.window == nullptr) throw ContractError("bz2::GpuBlockDecoder::load: a block without its window");
    if (at.emplace(b.window, total).second) total += b.window->size();
  }
  // Grown with room to spare, since a batch's windows vary: a reallocation's cudaFree waits for the
  // whole device, the other slot's kernels too.
  const std::size_t window_bytes = total + bz2gpu::kWindowPad;
  windows_.grow(window_bytes <= windows_.size() ? window_bytes : window_bytes + total / 4);
  std::vector<bz2gpu::BatchBlock> table(blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i)
    table[i] = {windows_.data() + at[blocks[i].window], blocks[i].window->size(), blocks[i].bit};
  count_ = blocks.size();
  table_.grow(std::max<std::size_t>(count_, 1));
  info_.grow(std::max<std::size_t>(count_, 1));
  out_.grow(std::max<std::size_t>(count_ * limit_, 1));
  const std::size_t need = bz2gpu::decode_scratch_bytes(count_, limit_);
  if (need > scratch_.size_bytes()) scratch_ = DeviceBytes(need);
  // The windows and the table go up from pinned memory at the link's rate, copied there on a few
  // host threads; where pinning fails, from the windows themselves (pageable: a staged, slower copy).
  const std::size_t table_at = (total + 15) / 16 * 16, staged = table_at + count_ * sizeof(bz2gpu::BatchBlock);
  if (staged > stage_bytes_) {
    stage_.reset();
    stage_bytes_ = 0;
    void* pinned = nullptr;
    const std::size_t want = staged + staged / 4;  // room for the next batches' windows to vary
    if (cudaMallocHost(&pinned, want) == cudaSuccess) {
      stage_ = std::unique_ptr<std::uint8_t[], HostFree>(static_cast<std::uint8_t*>(pinned), HostFree{true});
      stage_bytes_ = want;
    } else {
      (void)cudaGetLastError();  // not sticky
    }
  }
  if (stage_) {
    std::vector<std::pair<const std::vector<std::uint8_t>*, std::size_t>> order(at.begin(), at.end());
    std::uint8_t* const stage = stage_.get();
    for_each_block(order.size(), 4, [&](std::size_t k) {
      if (!order[k].first->empty()) std::memcpy(stage + order[k].second, order[k].first->data(), order[k].first->size());
    });
    if (count_ > 0) std::memcpy(stage + table_at, table.data(), count_ * sizeof(bz2gpu::BatchBlock));
    if (total > 0) PARCOMP_CUDA_CHECK(cudaMemcpyAsync(windows_.data(), stage, total, cudaMemcpyHostToDevice, stream_));
    if (count_ > 0)
      PARCOMP_CUDA_CHECK(cudaMemcpyAsync(table_.data(), stage + table_at, count_ * sizeof(bz2gpu::BatchBlock), cudaMemcpyHostToDevice, stream_));
    if (uploaded_ == nullptr) PARCOMP_CUDA_CHECK(cudaEventCreateWithFlags(&uploaded_, cudaEventDisableTiming));
    PARCOMP_CUDA_CHECK(cudaEventRecord(uploaded_, stream_));
  } else {
    for (const auto& [w, off] : at)
      if (!w->empty()) PARCOMP_CUDA_CHECK(cudaMemcpyAsync(windows_.data() + off, w->data(), w->size(), cudaMemcpyHostToDevice, stream_));
    if (count_ > 0)
      PARCOMP_CUDA_CHECK(cudaMemcpyAsync(table_.data(), table.data(), count_ * sizeof(bz2gpu::BatchBlock), cudaMemcpyHostToDevice, stream_));
  }
  PARCOMP_CUDA_CHECK(cudaMemsetAsync(windows_.data() + total, 0, bz2gpu::kWindowPad, stream_));  // read ahead by the walk
  // Poisoned, so that a byte the GPU leaves unwritten shows as a CRC error, never as stale data.
  if (count_ > 0) PARCOMP_CUDA_CHECK(cudaMemsetAsync(out_.data(), 0xA5, count_ * std::size_t{limit_}, stream_));
  // Zeroed: the kernel writes each block's BlockSymbols as a whole, not its padding bytes, which the
  // copy back would read uninitialised (compute-sanitizer's initcheck).
  if (count_ > 0) PARCOMP_CUDA_CHECK(cudaMemsetAsync(info_.data(), 0, count_ * sizeof(BlockSymbols), stream_));
  // From pageable memory the copies must end before the windows may go; the stage is reused only
  // after collect(), which waits for the stream.
  if (!stage_) PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void GpuBlockDecoder::run() {
  bz2gpu::decode_batch(table_.data(), count_, limit_, info_.data(), out_.data(), scratch_.data(), scratch_.size_bytes(), stream_, walk_);
  const std::size_t bytes = std::min(count_ * std::size_t{limit_}, host_piece_);
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

std::vector<GpuBlockOut> GpuBlockDecoder::collect(std::span<const GpuBlockIn> blocks, unsigned threads, const OutputBuffers& buffers) {
  PARCOMP_NVTX_RANGE("bz2::GpuBlockDecoder::collect");
  if (blocks.size() != count_) throw ContractError("bz2::GpuBlockDecoder::collect: not the blocks loaded");
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  std::vector<BlockSymbols> info(count_);
  if (count_ > 0)
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(info.data(), info_.data(), count_ * sizeof(BlockSymbols), cudaMemcpyDeviceToHost, stream_));
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  const auto t1 = Clock::now();
  // Each decoded block's bytes, packed, come back in pieces of consecutive blocks of at most
  // host_piece_ bytes (or one block, were it larger), each ended on the host threads before the next
  // comes: the kept host copy is one piece, not the batch.
  std::vector<std::size_t> offset(count_ + 1, 0);
  for (std::size_t i = 0; i < count_; ++i)
    offset[i + 1] = offset[i] + (info[i].error == BlockError::none ? info[i].nblock : 0);
  std::size_t largest = 1;
  for (std::size_t i = 0; i < count_; ++i) largest = std::max(largest, offset[i + 1] - offset[i]);
  if (host_ready_.valid()) host_ready_.get();  // run()'s allocation (its error, if any, thrown here)
  ready_host(std::max(largest, std::min(offset[count_], host_piece_)));
  std::uint8_t* const bytes = host_.get();
  std::vector<GpuBlockOut> outs(count_);
  Clock::duration download{}, ended{};
  for (std::size_t first = 0; first < count_;) {
    std::size_t last = first + 1;  // the piece: blocks first .. last - 1
    while (last < count_ && offset[last + 1] - offset[first] <= host_bytes_) ++last;
    const auto c0 = Clock::now();
    for (std::size_t i = first; i < last; ++i)
      if (offset[i + 1] > offset[i])
        PARCOMP_CUDA_CHECK(cudaMemcpyAsync(bytes + (offset[i] - offset[first]), out_.data() + i * std::size_t{limit_}, offset[i + 1] - offset[i],
                                           cudaMemcpyDeviceToHost, stream_));
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const auto c1 = Clock::now();
    std::vector<std::size_t> at(offset.begin() + static_cast<std::ptrdiff_t>(first), offset.begin() + static_cast<std::ptrdiff_t>(last) + 1);
    for (std::size_t& x : at) x -= offset[first];
    std::vector<GpuBlockOut> part = finish(blocks.subspan(first, last - first), std::span<const BlockSymbols>(info).subspan(first, last - first),
                                           {bytes, at.back()}, at, threads, buffers, compact_over_);
    std::move(part.begin(), part.end(), outs.begin() + static_cast<std::ptrdiff_t>(first));
    download += c1 - c0;
    ended += Clock::now() - c1;
    first = last;
  }
  const auto secs = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  last_collect_ = {secs(t1 - t0), secs(download), secs(ended)};
  return outs;
}

std::vector<GpuBlockOut> GpuBlockDecoder::finish(std::span<const GpuBlockIn> blocks, std::span<const BlockSymbols> info,
                                                 std::span<const std::uint8_t> bytes, std::span<const std::size_t> offset, unsigned threads,
                                                 const OutputBuffers& buffers, std::size_t compact_over) {
  if (info.size() != blocks.size() || offset.size() != blocks.size() + 1 || offset.back() > bytes.size())
    throw ContractError("bz2::GpuBlockDecoder::finish: sizes do not match");
  std::vector<GpuBlockOut> outs(blocks.size());
  for_each_block(blocks.size(), threads, [&](std::size_t i) {
    GpuBlockOut& o = outs[i];
    try {
      if (info[i].error != BlockError::none) throw_block_error(info[i], blocks[i].where, blocks[i].window_is_end);
      if (buffers) o.bytes = buffers();  // a recycled vector: its stale bytes are written over, not zeroed first
      o.r = finish_block(bytes.subspan(offset[i], offset[i + 1] - offset[i]), info[i], blocks[i].bit, o.bytes, blocks[i].where, true,
                         compact_over);
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

void GpuBlockEncoder::sort(std::span<const std::span<const std::uint8_t>> blocks, std::span<const std::uint32_t> crc,
                           const std::function<void()>& uploaded) {
  PARCOMP_NVTX_RANGE("bz2::GpuBlockEncoder::sort");
  if (blocks.size() != crc.size()) throw std::logic_error("GPU .bz2 encoder: a CRC for each block");
  const std::size_t count = crc.size();
  offsets_h_.assign(1, 0);
  std::size_t largest = 0;
  for (const auto& b : blocks) {
    offsets_h_.push_back(offsets_h_.back() + b.size());
    largest = std::max(largest, b.size());
  }
  const std::size_t n = offsets_h_.back();
  const std::span<const std::uint64_t> offsets(offsets_h_);
  stride_ = bz2gpu::encode_stride(largest);
  crc_.assign(crc.begin(), crc.end());
  in_.grow(n);
  last_.grow(n);
  primary_.grow(count);
  crc_d_.grow(count);
  offsets_.grow(count + 1);
  bits_.grow(count);
  out_.grow(count * stride_);
  const std::size_t need = bwt::forward_segments_scratch_bytes(n, count);
  if (need > scratch_.size_bytes()) {
    scratch_.reset();  // freed first: the old and the new are never held at once
    scratch_ = DeviceBytes(need);
  }
  if (bz2gpu::encode_scratch_bytes(count) > encode_scratch_.size_bytes()) {
    encode_scratch_.reset();
    encode_scratch_ = DeviceBytes(bz2gpu::encode_scratch_bytes(count));
  }
  // Blocks with equal rotations get bzip2's row of rotation 0 among them (the sort's is the last),
  // from the host, found before the upload so that the blocks' bytes may go once they are up.
  std::vector<std::uint32_t> tied, period;
  for (std::size_t i = 0; i < count; ++i)
    if (const std::size_t p = rotation_period(blocks[i]); p < blocks[i].size()) {
      tied.push_back(static_cast<std::uint32_t>(i));
      period.push_back(static_cast<std::uint32_t>(p));
    }
  std::vector<std::uint32_t> row(tied.size());
  for_each_block(tied.size(), 0, [&](std::size_t k) { row[k] = bzip2_primary(blocks[tied[k]], period[k]); });
  for (std::size_t i = 0; i < count; ++i)
    if (!blocks[i].empty())
      PARCOMP_CUDA_CHECK(cudaMemcpyAsync(in_.data() + offsets[i], blocks[i].data(), blocks[i].size(), cudaMemcpyHostToDevice, stream_));
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(offsets_.data(), offsets.data(), (count + 1) * sizeof(std::uint64_t), cudaMemcpyHostToDevice, stream_));
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(crc_d_.data(), crc_.data(), count * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream_));
  if (uploaded) {
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the blocks' bytes may go
    uploaded();
  }
  bwt::forward_segments(in_.data(), offsets, last_.data(), primary_.data(), scratch_.data(), scratch_.size_bytes(), stream_);
  // forward_segments waits for its last round, and so for the uploads before it.
  for (std::size_t k = 0; k < tied.size(); ++k)
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(primary_.data() + tied[k], &row[k], sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream_));
  if (!tied.empty()) PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `row` may go
}

std::vector<BlockBits> GpuBlockEncoder::encode() {
  PARCOMP_NVTX_RANGE("bz2::GpuBlockEncoder::encode");
  const std::size_t count = crc_.size();
  bz2gpu::encode_batch(last_.data(), offsets_.data(), primary_.data(), crc_d_.data(), count, out_.data(), stride_, bits_.data(),
                       encode_scratch_.data(), encode_scratch_.size_bytes(), stream_);
  std::vector<std::uint64_t> bits(count);
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(bits.data(), bits_.data(), count * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream_));
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<BlockBits> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (bits[i] == 0 || (bits[i] + 7) / 8 > stride_)
      throw std::logic_error("GPU .bz2 encoder: block " + std::to_string(i) + " of a batch came back with " + std::to_string(bits[i]) + " bits");
    out[i].bits = bits[i];
    out[i].crc = crc_[i];
    out[i].bytes.resize((bits[i] + 7) / 8);
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(out[i].bytes.data(), out_.data() + i * stride_, out[i].bytes.size(), cudaMemcpyDeviceToHost, stream_));
  }
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return out;
}

}  // namespace parcomp::bz2
