// .bz2 blocks decoded on a GPU, host side (ours): uploads the input windows that hold a
// batch of blocks, runs the GPU's stages (kernels/bz2: symbols and inverse BWT), downloads each
// block's bytes and ends every block on the host threads (bz2::finish_block: the inverse initial
// run-length stage and the CRC). The streaming engine's GPU workers, the GPU tests and the
// bz2.decompress benchmark all decode through this class.
#pragma once

#include "bz2.hpp"
#include "kernels/bz2/bz2_decode.hpp"
#include "kernels/common/device_buffer.hpp"

#include <cuda_runtime_api.h>

#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <span>
#include <vector>

namespace parcomp::bz2 {

struct GpuBlockIn {
  const std::vector<std::uint8_t>* window = nullptr;  // host bytes that hold the block (blocks may share one)
  std::uint64_t bit = 0;                               // the block magic's bit in *window
  bool window_is_end = true;                           // the window reaches the input's end
  Where where;                                         // for messages (its base: the input's bit of window[0])
};
struct GpuBlockOut {
  std::exception_ptr error;  // a CorruptDataError naming the block, or null
  std::vector<std::uint8_t> bytes;
  BlockResult r;  // end_bit in bits of the block's window
};

// Where collect() takes each block's output vector from (a caller's recycled ones: a fresh vector of
// a block's size is page faults and, once freed, an unmapping on every host thread); none: new ones.
using OutputBuffers = std::function<std::vector<std::uint8_t>()>;

class GpuBlockDecoder {
 public:
  // Blocks of at most block_limit(level) bytes; the device work is queued on `stream`.
  explicit GpuBlockDecoder(cudaStream_t stream, int level = 9);
  // Waits for the copies from its pinned stage before that memory goes (the stream may be gone).
  ~GpuBlockDecoder();
  GpuBlockDecoder(const GpuBlockDecoder&) = delete;
  GpuBlockDecoder& operator=(const GpuBlockDecoder&) = delete;
  // Uploads the blocks' windows (each distinct window once) and the block table; the windows may
  // go once it returns.
  void load(std::span<const GpuBlockIn> blocks);
  // The GPU's stages over the loaded blocks (asynchronous: collect() or the stream waits for them).
  void run();
  // The walk's lookup bits and threads for the next run()s (bz2gpu::WalkConfig; the bits are the same).
  void set_walk(bz2gpu::WalkConfig walk) { walk_ = walk; }
  // The bytes collect() brings back and ends at a time (consecutive blocks; one block where a block
  // is larger); 32 MiB unless set (tests set small pieces).
  void set_host_piece(std::size_t bytes) { host_piece_ = bytes == 0 ? 1 : bytes; }
  // Blocks that decode to more than this many bytes are left compact (bz2::finish_block's
  // compact_over): 0, the default, ends every block whole.
  void set_compact_over(std::size_t bytes) { compact_over_ = bytes; }
  // Waits for run(), downloads, and ends every block on the host threads (0: all of them).
  std::vector<GpuBlockOut> collect(std::span<const GpuBlockIn> blocks, unsigned threads = 0, const OutputBuffers& buffers = {});
  // The device bytes this decoder holds.
  std::size_t device_bytes() const;
  // Where the last collect()'s seconds went: waiting for the GPU, the copies back, the host's end.
  struct CollectSeconds {
    double wait = 0, download = 0, finish = 0;
  };
  CollectSeconds last_collect() const { return last_collect_; }
  // collect()'s host side: ends every block from its decoded fields (info) and its bytes
  // (bytes[offset[i] .. offset[i + 1]) for block i; empty where info[i] has an error).
  static std::vector<GpuBlockOut> finish(std::span<const GpuBlockIn> blocks, std::span<const BlockSymbols> info,
                                         std::span<const std::uint8_t> bytes, std::span<const std::size_t> offset, unsigned threads = 0,
                                         const OutputBuffers& buffers = {}, std::size_t compact_over = 0);

 private:
  CollectSeconds last_collect_;
  bz2gpu::WalkConfig walk_;
  cudaStream_t stream_;
  std::uint32_t limit_;
  std::size_t count_ = 0;
  DeviceBuffer<std::uint8_t> windows_, out_;
  DeviceBuffer<bz2gpu::BatchBlock> table_;
  DeviceBuffer<BlockSymbols> info_;
  DeviceBytes scratch_;
  // The decoded bytes' host copy, one piece of a batch (host_piece_), kept from batch to batch and
  // allocated while the GPU decodes the first batch (run()): pinned, so that the copies back run at
  // the link's rate; where pinning fails, pageable memory with its pages touched on every host
  // thread, so the copies back do not stop on page faults (docs/defaults.md).
  struct HostFree {
    bool pinned;  // no default member initialiser: the enclosing class is not complete here
    void operator()(std::uint8_t* p) const;
  };
  std::unique_ptr<std::uint8_t[], HostFree> host_;
  std::size_t host_bytes_ = 0;
  // The batch's windows and block table on their way up (pinned; none where pinning failed).
  std::unique_ptr<std::uint8_t[], HostFree> stage_;
  std::size_t stage_bytes_ = 0;
  cudaEvent_t uploaded_ = nullptr;  // recorded after the last copy from the stage
  // collect() brings a batch's bytes back and ends its blocks a piece of this many bytes at a time,
  // so that the pinned memory kept is a piece, not the batch's 230 MB (docs/tool.md, --gpu-host-piece).
  std::size_t host_piece_ = std::size_t{32} << 20;
  std::size_t compact_over_ = 0;
  void ready_host(std::size_t bytes);
  // run()'s ready_host on a thread of its own, waited for by collect(): pinning takes long enough
  // to hold up the next batch's upload on the lane's thread. Declared after host_: a
  // decoder destroyed mid-allocation waits for it before host_ goes.
  std::future<void> host_ready_;
};

// A batch of blocks sorted and encoded on the GPU (ours; .bz2's GPU compression, one per lane).
// sort() uploads the blocks' run-length stages (`blocks`, each a block's) one after the other, and
// their CRCs, and sorts every block at once (bwt::forward_segments); it calls `uploaded` once the
// blocks' bytes may go (the uploads done, before the sort's rounds) and returns once the sort is
// done. encode() writes each block's bits (bz2gpu::encode_batch: the CPU encoder's rules) and
// brings them back. The device work is queued on `stream`; the buffers are kept from batch to batch.
class GpuBlockEncoder {
 public:
  explicit GpuBlockEncoder(cudaStream_t stream) : stream_(stream) {}
  GpuBlockEncoder(const GpuBlockEncoder&) = delete;
  GpuBlockEncoder& operator=(const GpuBlockEncoder&) = delete;
  void sort(std::span<const std::span<const std::uint8_t>> blocks, std::span<const std::uint32_t> crc,
            const std::function<void()>& uploaded = {});
  std::vector<BlockBits> encode();

 private:
  cudaStream_t stream_;
  std::vector<std::uint32_t> crc_;
  std::vector<std::uint64_t> offsets_h_;  // where each block starts in in_, and the end
  std::size_t stride_ = 0;
  DeviceBuffer<std::uint8_t> in_, last_, out_;
  DeviceBuffer<std::uint32_t> primary_, crc_d_;
  DeviceBuffer<std::uint64_t> offsets_, bits_;
  DeviceBytes scratch_, encode_scratch_;
};

}  // namespace parcomp::bz2
