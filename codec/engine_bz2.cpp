// The streaming engine for .bz2. See engine.hpp.
#include "bz2.hpp"
#include "bz2_gpu.hpp"
#include "bz2_ties.hpp"
#include "core/errors.hpp"
#include "cpu_codec.hpp"
#include "engine.hpp"
#include "engine_detail.hpp"
#include "core/parallel.hpp"
#include "kernels/bwt/bwt.hpp"
#include "kernels/bz2/bz2_encode.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/nvtx.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <future>
#include <limits>
#include <memory>
#include <set>
#include <span>
#include <thread>

namespace parcomp::engine {

using namespace detail;

namespace {

using Bytes = std::vector<std::uint8_t>;

// The GPU batches of .bz2 (unless Options::bz2_gpu_batch_blocks says): the decoder gives some of
// a block's stages one thread, so it takes more blocks at a time than the writer; the sizes are the
// fastest measured with the least memory (docs/defaults.md).
constexpr std::size_t kBz2GpuCompressBatch = 128, kBz2GpuDecompressBatch = 192;
// .bz2 decompression's batches in flight per GPU: the two the GPU worker's slots hold (one
// decoding, one being ended on the host), the one the writer is writing and the one being read.
// With three (kGpuBatchesInFlight) the reader waited for room at the cap and each batch's stages
// ran one after the other (docs/defaults.md).
constexpr std::size_t kBz2GpuDecompressBatchesInFlight = 4;
// .bz2 decompression's lanes per GPU (Options::bz2_gpu_decode_lanes): each lane's two batches are
// two more in flight.
constexpr unsigned kBz2GpuDecompressLanes = 1;
unsigned bz2_decode_lanes(const Options& o) { return o.bz2_gpu_decode_lanes != 0 ? o.bz2_gpu_decode_lanes : kBz2GpuDecompressLanes; }
// .bz2 compression's lanes per GPU (bz2_gpu_compress; Options::bz2_gpu_lanes), and its batches in
// flight per GPU: one in each lane, one readied in the slot, one being readied. Three lanes and
// five batches were the fastest measured (docs/defaults.md).
constexpr std::size_t kBz2GpuCompressLanes = 3;
std::size_t bz2_lanes(const Options& o) { return o.bz2_gpu_lanes != 0 ? o.bz2_gpu_lanes : kBz2GpuCompressLanes; }
std::size_t bz2_compress_batches_in_flight(const Options& o) { return bz2_lanes(o) + 2; }
// .bz2 compression's input read and not yet written (Job::bytes_cap), and so a GPU's batches: a
// block of long runs holds up to 51 times its block's bytes (45.9 MB at -9), so that blocks alone
// bounded nothing (4 GB of zeros were all read before the first batch of 128 blocks, docs/defaults.md).
// Ordinary inputs' blocks in flight hold less.
constexpr std::uint64_t kBz2InputInFlight = std::uint64_t{1} << 30;
// A .bz2 GPU batch closes at its share of the input in flight (blocks of long runs; 205 MiB with
// three lanes, docs/defaults.md).
std::uint64_t bz2_batch_input_bytes(const Options& o) { return kBz2InputInFlight / bz2_compress_batches_in_flight(o); }
// .bz2 decompression's decoded blocks not yet written (Job::result_bytes_cap): a block of long runs
// decodes to up to 45.9 MB, and 64 of them waited on 16 threads (docs/defaults.md).
constexpr std::uint64_t kBz2OutputInFlight = std::uint64_t{512} << 20;
// .bz2 decompression: a block that decodes to more than this (a block of long runs; ordinary
// blocks decode to about their 900 kB) is kept as its bytes before the inverse run-length stage
// and decoded in pieces as the writer writes it: a worker then holds about 1 MB, not 45.9 MB.
constexpr std::size_t kBz2ExpandOnWrite = std::size_t{8} << 20;

// The options of a .bz2 job with GPUs: the GPU batch is .bz2's (Options::bz2_gpu_batch_blocks).
Options with_bz2_batches(Options o, std::size_t batch) {
  o.gpu_batch_blocks = o.bz2_gpu_batch_blocks != 0 ? o.bz2_gpu_batch_blocks : batch;
  return o;
}

// An input of unknown size: the GPUs join as pipe_join says (4 MiB and the CPU workers behind, or
// 128 MiB; compressed 2 and 64 MiB). CUDA's start-up (0.2-0.35 s) then overlaps the CPU workers'
// first blocks.
PipeJoin bz2_pipe_join(const Options& o, bool decompress) { return pipe_join(bz2_gpu_threshold(o, decompress)); }

// The workers of a .bz2 job (Options::input_bytes): --gpu's GPUs alone; by default, an input of
// bz2_gpu_from_bytes or more on the GPUs (gpu_first: CPU workers on every hardware thread if none
// starts, and while CUDA starts, Options::cpu_while_cuda_starts: in decompression only with
// --cpu-beside-gpus), a smaller one on the CPU workers, one of unknown size (a pipe) on the CPU workers
// until bz2_gpu_from_bytes of it are read, then on the GPUs (gpu_later); --cpu's CPU workers.
Options bz2_workers(const Options& options, bool decompress, bool& gpu_first, bool& gpu_later) {
  const char* what = decompress ? ".bz2 decompression" : ".bz2 compression";
  const std::uint64_t from = bz2_gpu_threshold(options, decompress);
  gpu_first = gpu_later = false;
  if (options.use_gpus && options.require_gpu) return options;
  Options o = options;
  if (options.use_gpus && options.cpu_threads < 0 && options.input_bytes == 0) {
    gpu_later = true;
    note(o, std::string(what) + " of an input of unknown size: on the CPU workers, and on the GPUs once " +
                std::to_string(bz2_pipe_join(options, decompress).after) + " bytes are read and the CPU workers fall behind");
    return o;
  }
  if (bz2_may_use_gpus(options, decompress)) {  // by its size (--gpu returned above)
    o.cpu_threads = 0;
    // Decompression: only where some are kept beside the GPUs (decoding while CUDA started held more
    // memory and did not shorten the run: docs/defaults.md).
    if (decompress && cpu_beside_gpus(o) == 0) o.cpu_while_cuda_starts = false;
    gpu_first = true;
    note(o, std::string(what) + " on the GPUs: an input of " + std::to_string(options.input_bytes) + " bytes, " +
                std::to_string(from) + " or more (--cpu keeps it on the CPU workers)");
    return o;
  }
  if (options.use_gpus) o.require_gpu = false;
  return cpu_only(o, what, "by default below " + std::to_string(from) + " bytes of input (--gpu: the GPUs)");
}

// A block of the input: a view into the read chunk that holds it (not copied out).
struct InBlock {
  std::uint64_t seq = 0;
  std::shared_ptr<const std::uint8_t> chunk;
  std::span<const std::uint8_t> bytes;
};

// The reader's chunks: blocks are views into them, and a chunk of the standard size goes back to
// the pool once its last block is done, so that its pages are not faulted in again (ours). The pool
// keeps every chunk given back: at most as many as were live at once, which the reader's room
// bounds (with --gpu about 30 of them; a pool of 8 faulted most chunks in afresh). Declared before
// the job whose blocks hold them.
class ChunkPool {
 public:
  // Chunks of `size` bytes, and for a need past it (a block of long runs whose input spans reads)
  // chunks of `large` bytes, up to kLargeKept of them kept once given back: fresh ones took their
  // page faults at every read of such an input (docs/defaults.md).
  ChunkPool(std::size_t size, std::size_t large) : size_(size), large_size_(std::max(size, large)) {}
  ChunkPool(const ChunkPool&) = delete;
  ChunkPool& operator=(const ChunkPool&) = delete;
  std::size_t size() const { return size_; }
  // A chunk of at least `need` bytes (size() or more; not zeroed).
  std::shared_ptr<std::uint8_t> take(std::size_t need) {
    if (need > size_) {
      if (need > large_size_) return std::shared_ptr<std::uint8_t>(new std::uint8_t[need], std::default_delete<std::uint8_t[]>());
      auto kept = large_.take();
      std::uint8_t* p = kept ? kept->release() : new std::uint8_t[large_size_];
      return std::shared_ptr<std::uint8_t>(p, [this](std::uint8_t* q) { large_.give_back(std::unique_ptr<std::uint8_t[]>(q)); });
    }
    auto kept = spares_.take();
    std::uint8_t* p = kept ? kept->release() : new std::uint8_t[size_];
    return std::shared_ptr<std::uint8_t>(p, [this](std::uint8_t* q) { spares_.give_back(std::unique_ptr<std::uint8_t[]>(q)); });
  }

 private:
  static constexpr std::size_t kLargeKept = 3;
  std::size_t size_, large_size_;
  Spares<std::unique_ptr<std::uint8_t[]>> spares_{std::numeric_limits<std::size_t>::max(),
                                                   [](const std::unique_ptr<std::uint8_t[]>&) { return std::size_t{0}; }};
  Spares<std::unique_ptr<std::uint8_t[]>> large_{kLargeKept, [](const std::unique_ptr<std::uint8_t[]>&) { return std::size_t{0}; }};
};
struct OutBits {
  bz2::BlockBits bits;
  std::size_t input_bytes = 0;
  bool gpu = false;
  std::shared_future<std::uint32_t> row_later;  // bzip2's origPtr still to come (cpu::bz2_compress_block)
};

// A GPU worker's batch, readied on the host: each block after the initial run-length stage and
// the CRC of each block's input. An empty batch ends the GPU's loop.
struct PreparedBatch {
  std::vector<InBlock> items;
  std::vector<RawBytes> rle;  // the first items.size() used; grown without zeroing, kept from batch to batch (RleSets)
  std::vector<std::uint32_t> crc;
};

// The batches' run-length stages (about 115 MB a batch at -9), back from the lanes once uploaded:
// fresh ones per batch take their page faults every time, on the host threads that bound .bz2
// compression. One set is kept, as a lane gives one back for each the preparer takes.
class RleSets {
 public:
  std::vector<RawBytes> take() {
    auto kept = spares_.take();
    return kept ? std::move(*kept) : std::vector<RawBytes>{};
  }
  void give_back(PreparedBatch& b) {
    if (!b.rle.empty()) spares_.give_back(std::move(b.rle));
    b.rle = {};
  }

 private:
  Spares<std::vector<RawBytes>> spares_{1, [](const std::vector<RawBytes>& set) {
    std::size_t bytes = 0;
    for (const RawBytes& r : set) bytes += r.capacity();
    return bytes;
  }};
};

// One GPU in .bz2 compression: a preparer thread claims a batch and runs the initial run-length
// stage and the CRCs on every host thread; the GPU sorts every block of the batch at once
// (bwt::forward_segments) and writes each block's bits (bz2gpu::encode_batch: bzip2's MTF, zero
// runs, table choice and codes, the CPU workers' own lines), while the preparer readies the next
// batch. The host downloads the blocks and publishes them, as the CPU workers' results.
// A lane that runs out of device memory gives its batch back to the queue and leaves; the others
// go on; when none is left, the batches readied for them go back too, and the GPU leaves
// (DeviceMemoryError to manage_gpus).
template <typename J>
void bz2_gpu_compress(J& job, const Options& o, const GpuPlan& plan, Stats& st, std::mutex& stats_m, int device) {
  std::mutex hm;
  std::condition_variable hcv;
  std::optional<PreparedBatch> slot;  // readied, waiting for the GPU
  bool gpu_gone = false;
  std::atomic<std::uint64_t> blocks_done{0};
  Trace* const tr = o.trace;
  RleSets rle_sets;
  std::thread preparer([&] {
    name_this_thread(("parcomp-prep" + std::to_string(device)).c_str());
    try {
      const std::string lane = tr != nullptr ? tr->lane("prep") : std::string();
      // Blocks of equal rotations, encoded on the host beside the preparer's next batches: a batch
      // holds as few as four blocks of long runs (its share of the input in flight), each tens of
      // milliseconds on one thread, so waiting for them left most host threads idle.
      std::mutex ws_m;
      std::vector<std::unique_ptr<cpu::Workspace>> host_ws;  // kept for the next host encodings
      std::deque<std::future<void>> host_encodes;
      const std::size_t host_threads = std::max(1u, std::thread::hardware_concurrency());
      const std::size_t most_encodes = std::max<std::size_t>(1, host_threads / 4);
      const auto finish_host_encodes = [&](std::size_t keep) {  // the oldest first
        while (host_encodes.size() > keep) {
          std::future<void> f = std::move(host_encodes.front());
          host_encodes.pop_front();
          f.get();
        }
      };
      // Once the input is all read, its last blocks are shared evenly among the lanes: a full batch
      // and a remainder (the tarball's 163 blocks as 128 and 35) left the GPU on one lane's sort.
      std::size_t batch = plan.batch;
      bool tail = false;
      for (;;) {
        PreparedBatch b;
        const double t0 = tr != nullptr ? tr->now() : 0.0;
        if (!tail) {
          if (const std::optional<std::size_t> left = job.pending_once_read()) {
            const std::size_t lanes = bz2_lanes(o);
            batch = std::clamp<std::size_t>((*left + lanes - 1) / lanes, std::min(kMinGpuBatch, plan.batch), plan.batch);
            tail = true;
          }
        }
        b.items = job.claim(batch, true, false, bz2_batch_input_bytes(o));
        if (!b.items.empty()) job.gpu_took_work();
        if (b.items.empty()) finish_host_encodes(0);  // every block published before the GPU's loop ends
        const double t1 = tr != nullptr ? tr->now() : 0.0;
        b.rle = rle_sets.take();
        std::vector<RawBytes>& rle = b.rle;
        if (rle.size() < b.items.size()) rle.resize(b.items.size());
        b.crc.resize(b.items.size());
        std::vector<char> periodic(b.items.size(), 0);
        for_each_block(b.items.size(), 0, [&](std::size_t i) {
          rle[i].clear();
          bz2::rle1_encode(b.items[i].bytes, rle[i]);
          b.crc[i] = bz2::block_crc(b.items[i].bytes);
          periodic[i] = bz2::rotation_period(rle[i]) < rle[i].size() ? 1 : 0;
        });
        // A block of equal rotations (the run-length stage of a long run of one byte is a short
        // string repeated) keeps every rotation tied through all of the GPU sort's doubling rounds;
        // the host's forward BWT takes it in one pass (cpu::least_rotation). Such blocks are encoded
        // on the host, as a CPU worker would, and published; the others go to the GPU.
        std::vector<InBlock> host;
        for (std::size_t i = 0; i < b.items.size(); ++i)
          if (periodic[i] != 0) host.push_back(std::move(b.items[i]));
        if (!host.empty()) {
          host_encodes.push_back(std::async(std::launch::async, [&job, &ws_m, &host_ws, blocks = std::move(host)] {
            name_this_thread("parcomp-hostenc");
            try {  // an error stops the job at once: the writer would wait for these blocks
              std::vector<std::unique_ptr<cpu::Workspace>> ws(blocks.size());
              {
                const std::lock_guard lock(ws_m);
                for (auto& w : ws) {
                  if (host_ws.empty()) break;
                  w = std::move(host_ws.back());
                  host_ws.pop_back();
                }
              }
              for (auto& w : ws)
                if (!w) w = std::make_unique<cpu::Workspace>();
              std::vector<OutBits> outs(blocks.size());
              for_each_block(blocks.size(), 0, [&](std::size_t k) {
                outs[k].input_bytes = blocks[k].bytes.size();
                cpu::bz2_compress_block(blocks[k].bytes, outs[k].bits, *ws[k], 1, &outs[k].row_later);
              });
              for (std::size_t k = 0; k < blocks.size(); ++k) job.publish(blocks[k].seq, std::move(outs[k]));
              const std::lock_guard lock(ws_m);
              for (auto& w : ws) host_ws.push_back(std::move(w));
            } catch (...) {
              job.fail(std::current_exception());
            }
          }));
          finish_host_encodes(most_encodes);
          // the rest, in order, for the GPU
          std::size_t kept = 0;
          for (std::size_t i = 0; i < b.items.size(); ++i) {
            if (periodic[i] != 0) continue;
            if (kept != i) {
              b.items[kept] = std::move(b.items[i]);
              b.crc[kept] = b.crc[i];
              std::swap(rle[kept], rle[i]);
            }
            ++kept;
          }
          b.items.resize(kept);
          b.crc.resize(kept);
          if (kept == 0) {  // every block was the host's: no batch (an empty one ends the GPU's loop)
            rle_sets.give_back(b);
            continue;
          }
        }
        const bool last = b.items.empty();
        const double t2 = tr != nullptr ? tr->now() : 0.0;
        const std::uint64_t blocks = b.items.size();
        std::unique_lock lock(hm);
        hcv.wait(lock, [&] { return !slot.has_value() || gpu_gone; });
        if (gpu_gone) {
          job.give_back(std::move(b.items));
          lock.unlock();
          finish_host_encodes(0);
          return;
        }
        slot = std::move(b);
        hcv.notify_all();
        lock.unlock();
        if (tr != nullptr) {  // waiting for the reader's blocks, the run-length stage and CRCs, waiting for the GPU to take it
          tr->add(lane, "wait", t0, t1, 0);
          tr->add(lane, "prepare", t1, t2, blocks);
          tr->add(lane, "wait", t2, tr->now(), 0);
        }
        if (last) return;
      }
    } catch (...) {
      job.fail(std::current_exception());
      const std::lock_guard lock(hm);
      slot = PreparedBatch{};  // ends the GPU's loop
      hcv.notify_all();
    }
  });
  auto stop_preparer = [&] {
    {
      const std::lock_guard lock(hm);
      gpu_gone = true;
      hcv.notify_all();
    }
    preparer.join();
  };
  // A lane: its own stream and encoder (GpuBlockEncoder); it takes a readied batch, sorts, encodes, downloads and
  // publishes it. The empty batch that ends the work stays in the slot for the other lane.
  auto lane_loop = [&] {
    cudaStream_t stream = nullptr;
    PARCOMP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const std::unique_ptr<CUstream_st, void (*)(cudaStream_t)> owner(stream, [](cudaStream_t s) { PARCOMP_CUDA_CHECK_NOTHROW(cudaStreamDestroy(s)); });
    bz2::GpuBlockEncoder encoder(stream);
    const TraceSteps steps(tr, "stage");
    auto stage = [&steps](const char* what, double& from, std::uint64_t blocks) { steps.step(what, from, blocks); };
    for (;;) {
      PreparedBatch b;
      double at = steps.now();
      {
        std::unique_lock lock(hm);
        hcv.wait(lock, [&] { return slot.has_value() || gpu_gone; });
        if (gpu_gone || slot->items.empty()) return;  // the end (left in the slot for the other lane), or a failure
        b = std::move(*slot);
        slot.reset();
        hcv.notify_all();
      }
      const std::size_t count = b.items.size();
      stage("wait", at, 0);
      std::vector<OutBits> outs(count);
      try {
        // The run-length stages go back once uploaded: lanes sorting at once held a batch's each.
        std::vector<std::span<const std::uint8_t>> blocks(b.rle.begin(), b.rle.begin() + static_cast<std::ptrdiff_t>(count));
        encoder.sort(blocks, b.crc, [&] { rle_sets.give_back(b); });
        stage("upload+sort", at, count);
        std::vector<bz2::BlockBits> bits = encoder.encode();
        stage("encode", at, count);  // and the bits brought back
        for (std::size_t i = 0; i < count; ++i) {
          outs[i].bits = std::move(bits[i]);
          outs[i].input_bytes = b.items[i].bytes.size();
          outs[i].gpu = true;
        }
      } catch (const DeviceMemoryError&) {
        rle_sets.give_back(b);
        job.give_back(std::move(b.items));  // to another lane or the CPU workers
        throw;
      }
      for (std::size_t i = 0; i < count; ++i) job.publish(b.items[i].seq, std::move(outs[i]));
      stage("publish", at, count);
      blocks_done += count;
    }
  };
  // bz2_lanes(o) lanes: while one lane's batch waits on the host (the sort's rounds each
  // end in a copy of a count, the download, the publishing) or leaves SMs idle (64 blocks are 64
  // CTAs of the encoder), the other's runs.
  std::exception_ptr lane_error, memory_error;
  std::mutex lane_error_m;
  std::size_t live = plan.lanes;  // under hm
  auto run_lane = [&] {
    try {
      PARCOMP_CUDA_CHECK(cudaSetDevice(device));
      lane_loop();
    } catch (const DeviceMemoryError&) {
      if (o.require_gpu) {
        const std::lock_guard lock(lane_error_m);
        if (!lane_error) lane_error = std::current_exception();
        job.fail(std::current_exception());
      } else {
        const std::lock_guard lock(lane_error_m);
        memory_error = std::current_exception();
      }
      const std::lock_guard lock(hm);
      if (--live == 0 || o.require_gpu) gpu_gone = true;  // the last lane: the preparer stops
      hcv.notify_all();
      return;
    } catch (...) {
      {
        const std::lock_guard lock(lane_error_m);
        if (!lane_error) lane_error = std::current_exception();
      }
      job.fail(std::current_exception());  // stops the job first: the preparer may wait in claim()
      const std::lock_guard lock(hm);
      gpu_gone = true;  // ends the other lane and the preparer
      hcv.notify_all();
      return;
    }
    const std::lock_guard lock(hm);
    --live;
  };
  std::vector<std::thread> lanes;
  for (std::size_t k = 1; k < std::max(1u, plan.lanes); ++k)
    lanes.emplace_back([&run_lane, device] {
      name_this_thread(("parcomp-lane" + std::to_string(device)).c_str());
      run_lane();
    });
  run_lane();
  for (auto& t : lanes) t.join();
  // The batch readied for lanes that left goes back before the preparer is joined: the preparer may
  // wait in claim() for blocks that only the writer's progress makes room for, and the writer may
  // wait for a block of that batch.
  std::vector<InBlock> readied;
  {
    const std::lock_guard lock(hm);
    gpu_gone = true;
    if (slot && !slot->items.empty()) readied = std::move(slot->items);
    slot.reset();
    hcv.notify_all();
  }
  job.give_back(std::move(readied));
  stop_preparer();
  if (lane_error) return;
  if (blocks_done > 0) count_gpu(st, stats_m, device);
  if (memory_error && job.work_left()) std::rethrow_exception(memory_error);
}

}  // namespace


Stats compress_bz2(Source& in, Sink& out, const Options& options) {
  PARCOMP_NVTX_RANGE("engine::compress_bz2");
  if (options.level < 1 || options.level > 9) throw ContractError("the .bz2 level is 1 to 9, not " + std::to_string(options.level));
  bz2::start_asking();  // from the caller's thread: libbz2's rows of blocks of equal rotations at its priority
  bool gpu_first = false, gpu_later = false;
  Options o = with_bz2_batches(bz2_workers(options, false, gpu_first, gpu_later), kBz2GpuCompressBatch);
  // Reads of 32 MiB (the first of 2 MiB, so that a small file's first blocks start after a few
  // ms), each into a chunk of its own after 1 MiB of room for the unfinished block's bytes; larger
  // reads, since each cut_blocks call starts its threads afresh (docs/defaults.md).
  constexpr std::size_t kRead = std::size_t{32} << 20, kFirstRead = std::size_t{2} << 20, kHead = std::size_t{1} << 20;
  // The largest chunk of its own an unfinished block needs: a block's input (runs of 255 make
  // five bytes of its block_fill) and a read.
  const std::size_t largest_block = (bz2::block_fill(o.level) / 5 + 2) * 255;
  ChunkPool chunks(kHead + kRead, largest_block + kRead);  // before the job: its blocks hold chunks
  // Once a GPU works, the host threads are its (.bz2's GPU path needs every one): no CPU worker beside it
  // unless --cpu-beside-gpus keeps some (at SCHED_IDLE).
  Scheduler<InBlock, OutBits> s(o, Format::bz2, cpu_beside_gpus(o), ".bz2 compression needs CPU workers or --gpu");
  auto& job = s.job;
  Stats& st = s.st;
  job.bytes_cap = kBz2InputInFlight;
  // A file read before the first GPU is ready: the workers that took blocks while CUDA started share
  // the rest with its lanes (at SCHED_IDLE beside a working GPU, below the preparer and the lanes).
  job.cpu_stay_once_read = true;
  job.cpu_claims_newest = true;
  job.bytes_of = [](const InBlock& b) { return static_cast<std::uint64_t>(b.bytes.size()); };
  job.held_result_bytes_of = [](const OutBits& r) { return static_cast<std::uint64_t>(r.bits.bytes.size()); };

  // Blocks where bzip2's program closes them, from reads into chunks of the pool (not zeroed); a
  // block is a view into its chunk. The next read runs on its own thread while the blocks of the
  // last one are cut, and bz2::cut_blocks finds every cut in what has been read at once, its tiles
  // on every host thread (docs/defaults.md). When no block closes in what
  // is there, the unfinished block's bytes go before the next read, in its chunk's room (after a
  // read whose unfinished block was larger than kHead, the next reads leave the largest block's
  // room: a block of long runs spans reads).
  // The cut's threads: the host threads no CPU worker takes (at least one): with --gpu all of them,
  // beside CPU workers on every thread one (then cut_blocks cuts block after block, as before),
  // and all of them while no block waits for a CPU worker.
  // Until every CPU worker has a block, the workers wait for the reader: the reads and the cut take
  // every host thread then.
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency()), cpu_workers = s.cpu_workers();
  const unsigned cut_threads = hardware > cpu_workers ? hardware - cpu_workers : 1;
  const auto threads_now = [&](std::uint64_t handed_out) {
    if (handed_out < cpu_workers) return hardware;
    const std::lock_guard lock(job.m);
    // The CPU workers left for a GPU (an input of unknown size), or no block waits for them (the
    // reader bounds: blocks of long runs are fast to encode): the cut on every host thread.
    return job.gpu_working || job.pending.empty() ? hardware : cut_threads;
  };
  struct Read {
    std::shared_ptr<std::uint8_t> chunk;  // the bytes from `head` on
    std::size_t head = 0, got = 0, asked = 0;
  };
  auto reader = [&] {
    // `head`: the room before the bytes read for the unfinished block's; kHead, or after a read
    // whose unfinished block did not fit there (long runs), the largest block's, so that the read's
    // bytes are not copied again with it.
    auto read_next = [&](std::size_t n, unsigned threads, std::size_t head) {
      return std::async(std::launch::async, [&, n, threads, head] {
        name_this_thread("parcomp-pread");
        Read r;
        r.head = head;
        r.chunk = chunks.take(head + kRead);
        r.asked = n;
        r.got = in.read_full(r.chunk.get() + head, n, std::min(threads, 8u));
        return r;
      });
    };
    std::future<Read> next = read_next(kFirstRead, threads_now(0), kHead);
    std::shared_ptr<std::uint8_t> buf;
    std::size_t len = 0, start = 0;
    std::deque<std::size_t> cuts;  // blocks found from start, not yet handed out
    bool eof = false;
    // --trace: the reader's parts on a lane of their own ("input"): the cut, the wait for a read
    // ("read()"), the unfinished block's bytes copied before it ("chunk").
    const TraceSteps parts(o.trace, "input");
    auto part = [&parts](const char* what, double& from, std::uint64_t blocks) { parts.step(what, from, blocks); };
    for (std::uint64_t seq = 0;;) {
      if (!job.wait_for_room()) return;
      while (cuts.empty()) {
        double at = parts.now();
        const std::vector<std::size_t> found = bz2::cut_blocks({buf.get() + start, len - start}, o.level, eof, threads_now(seq));
        part("cut", at, found.size());
        cuts.assign(found.begin(), found.end());
        if (!cuts.empty() || eof) break;
        Read r = next.get();
        part("read()", at, 0);
        eof = r.got < r.asked;
        const std::size_t tail = len - start;
        const unsigned copy_threads = threads_now(seq);  // a block of long runs spans reads: tens of MB
        if (!eof) next = read_next(kRead, copy_threads, tail > kHead ? largest_block : kHead);
        if (tail <= r.head) {
          if (tail > 0) copy_bytes(r.chunk.get() + r.head - tail, buf.get() + start, tail, copy_threads);
          buf = std::move(r.chunk);
          start = r.head - tail;
          len = r.head + r.got;
        } else {
          std::shared_ptr<std::uint8_t> own = chunks.take(tail + r.got);
          copy_bytes(own.get(), buf.get() + start, tail, copy_threads);
          copy_bytes(own.get() + tail, r.chunk.get() + r.head, r.got, copy_threads);
          buf = std::move(own);
          start = 0;
          len = tail + r.got;
        }
        part("chunk", at, 0);
        s.bytes_in += r.got;
      }
      if (cuts.empty()) break;
      const std::size_t cut = cuts.front();
      cuts.pop_front();
      InBlock b;
      b.seq = seq++;
      b.chunk = buf;
      b.bytes = {buf.get() + start, cut};
      start += cut;
      job.push(std::move(b));
    }
    job.finish_input();
  };
  // A file of fewer blocks than CPU workers leaves threads idle: each block's encoder takes a share
  // of them (its sort is one thread's either way). Unknown sizes (pipes) and large files: one.
  // A small file's blocks share the idle workers: the sort gains from two threads on (book1's: 21
  // ms on two against libdivsufsort's 29 on one, on a 2-core host), the encoder from four
  // (cpu::bz2_compress_block). About one block per `level` x 100 kB of input (the initial
  // run-length stage only makes blocks hold more).
  const unsigned block_threads = threads_per_block(o, s.cpu_workers(), std::uint64_t{100000} * static_cast<std::uint64_t>(o.level));
  auto cpu_worker = [&] {
    cpu_worker_loop(job, [block_threads](const InBlock& b, cpu::Workspace& ws) {
      OutBits r;
      r.input_bytes = b.bytes.size();
      cpu::bz2_compress_block(b.bytes, r.bits, ws, block_threads, &r.row_later);
      return r;
    });
  };
  auto gpu_manager = [&] {
    // A lane's device bytes per block of its batch: the sort's scratch, the block before and after
    // it, the encoder's output and work area (docs/field.md gives them per input byte).
    const auto needs = [&o] {
      const std::size_t block = bz2::block_limit(o.level), k = 16;
      return GpuNeeds{(bwt::forward_segments_scratch_bytes(k * block, k) + 2 * k * block + k * bz2gpu::encode_stride(block) +
                       bz2gpu::encode_scratch_bytes(k)) / k,
                      0, bz2gpu::encode_local_bytes()};
    };
    s.manage([&](int d, const GpuPlan& p) { bz2_gpu_compress(job, o, p, st, s.stats_m, d); }, cpu_worker, needs,
             static_cast<unsigned>(bz2_lanes(o)), false, bz2_compress_batches_in_flight(o), gpu_first, gpu_later ? std::optional(bz2_pipe_join(o, false)) : std::nullopt,
             [&] { return s.bytes_in.load(); });
  };
  auto writer = [&] {
    bz2::StreamWriter stream(o.level);
    Bytes buf;
    stream.header(buf);
    std::uint64_t offset = 0, original = 0;
    auto flush = [&] {
      out.write(buf.data(), buf.size());
      offset += buf.size();
      buf.clear();
    };
    flush();
    const bool whole = s.in_order([&](OutBits& next) {
      if (next.row_later.valid()) bz2::set_orig_ptr(next.bits, next.row_later.get());
      stream.add(next.bits, buf);
      flush();
      original += next.input_bytes;
      job.mark_written(1);
      st.blocks += 1;
      if (next.gpu) st.gpu_blocks += 1;
      s.progress(s.bytes_in, offset);
    });
    if (!whole) return;
    stream.finish(buf);
    flush();
    st.original_bytes = original;
    st.compressed_bytes = offset;
    st.streams = 1;
    s.report(s.bytes_in, offset);
  };
  return s.run(reader, cpu_worker, gpu_manager, writer);
}

// ---- decompression ----------------------------------------------------------------------------
//
// The reader keeps a window of the input (a shared buffer; each read makes a new window that
// starts at the earliest candidate not yet handed out), finds every block and end magic in it,
// and hands out a block candidate once the window holds kMaxBlockBits after it (or the input
// ended), so that a block is always decoded whole from one window. Workers decode candidates in
// any order. The writer follows the chain: the stream header's end, a block, the bit where that
// block ended, ..., the end marker, the next stream's header: a candidate off the chain (a magic
// inside a block's data, or in trailing bytes) is dropped, its result or error unused.

namespace {

struct Candidate {
  std::uint64_t seq = 0;  // the candidate's bit in the input: the job's key
  std::shared_ptr<const Bytes> window;
  std::uint64_t window_bit = 0;  // the input's bit of window[0]'s first bit
  bool window_is_end = false;    // the window reaches the input's end
};
struct Decoded {
  std::exception_ptr error;  // CorruptDataError: used only if the candidate is on the chain
  Bytes bytes;
  bz2::BlockResult r;  // end_bit in input bits
  bool gpu = false;
};
struct EndInfo {
  bool complete = false;    // the 32-bit CRC after the magic is in the input
  std::uint32_t stored_crc = 0;
  std::uint64_t next_byte = 0;  // where a next stream would start
  int next_level = 0;           // its header's level, 0: no header there
  bool next_cut = false;        // the input ends inside what could be a header (bz2::header_cut)
};

constexpr std::uint64_t kAll = std::numeric_limits<std::uint64_t>::max();

// One GPU in .bz2 decompression: batches of candidates decoded on the GPU (bz2::GpuBlockDecoder:
// symbols and inverse BWT there, the inverse initial run-length stage and the CRCs on the host
// threads), two at a time: while the GPU decodes one batch, the host ends the batch before it and
// publishes its results, as a CPU worker's would be.
// A batch whose device memory cannot be had goes back to the queue (after the batch on the GPU is
// ended), and the GPU leaves (DeviceMemoryError to manage_gpus).
template <typename J>
void bz2_gpu_decompress(J& job, const Options& o, const GpuPlan& plan, Stats& st, std::mutex& stats_m, int device,
                        const bz2::OutputBuffers& buffers) {
  struct Slot {
    cudaStream_t stream = nullptr;
    std::unique_ptr<bz2::GpuBlockDecoder> decoder;
    std::vector<Candidate> items;
    std::vector<bz2::GpuBlockIn> in;
    Slot() = default;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() {
      decoder.reset();
      if (stream != nullptr) PARCOMP_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream));
    }
  };
  Slot slots[2];
  for (Slot& sl : slots) {
    PARCOMP_CUDA_CHECK(cudaStreamCreateWithFlags(&sl.stream, cudaStreamNonBlocking));
    sl.decoder = std::make_unique<bz2::GpuBlockDecoder>(sl.stream, 9);  // the level's own limit is checked by the writer
    bz2gpu::WalkConfig walk;
    if (o.bz2_gpu_walk_bits != 0) walk.bits = o.bz2_gpu_walk_bits;
    if (o.bz2_gpu_walk_threads != 0) walk.threads = o.bz2_gpu_walk_threads;
    sl.decoder->set_walk(walk);
    if (o.bz2_gpu_host_piece != 0) sl.decoder->set_host_piece(o.bz2_gpu_host_piece);
    sl.decoder->set_compact_over(kBz2ExpandOnWrite);  // the writer decodes such blocks in pieces
  }
  std::uint64_t blocks_done = 0;
  Trace* const tr = o.trace;
  const std::string lane = tr != nullptr ? tr->lane("stage") : std::string();
  auto finish = [&](Slot& sl) {
    std::vector<bz2::GpuBlockOut> outs = sl.decoder->collect(sl.in, 0, buffers);
    if (tr != nullptr) {  // collect's three parts, back from now
      const auto c = sl.decoder->last_collect();
      const double end = tr->now(), f0 = end - c.finish, d0 = f0 - c.download, w0 = d0 - c.wait;
      tr->add(lane, "wait", w0, d0, 0);
      tr->add(lane, "download", d0, f0, sl.items.size());
      tr->add(lane, "finish", f0, end, sl.items.size());
    }
    const double published_from = tr != nullptr ? tr->now() : 0.0;
    for (std::size_t i = 0; i < sl.items.size(); ++i) {
      Decoded d;
      d.error = outs[i].error;
      d.bytes = std::move(outs[i].bytes);
      d.r = outs[i].r;
      d.r.end_bit += sl.items[i].window_bit;
      d.gpu = true;
      job.publish(sl.items[i].seq, std::move(d));
    }
    if (tr != nullptr) tr->add(lane, "publish", published_from, tr->now(), sl.items.size());
    blocks_done += sl.items.size();
    sl.items.clear();
    sl.in.clear();
  };
  // Slot `next` claims while the other may hold a batch on the GPU. A batch held and not yet
  // published can be what the writer waits for, and then the reader waits for room that only its
  // results make: so with a batch held, the claim takes a full batch only if one is there now, and
  // otherwise the held batch is ended first (found by a test with CPU workers beside the GPU).
  int next = 0;
  bool busy[2] = {false, false};
  for (;;) {
    Slot& sl = slots[next];
    Slot& other = slots[1 - next];
    const bool blocking = !busy[1 - next];
    sl.items = blocking ? job.claim(plan.batch, true) : job.try_claim(plan.batch);
    if (!sl.items.empty()) {
      job.gpu_took_work();
      sl.in.resize(sl.items.size());
      for (std::size_t i = 0; i < sl.items.size(); ++i) {
        sl.in[i].window = sl.items[i].window.get();
        sl.in[i].bit = sl.items[i].seq - sl.items[i].window_bit;
        sl.in[i].window_is_end = sl.items[i].window_is_end;
        sl.in[i].where.stream = 0;
        sl.in[i].where.base = sl.items[i].window_bit;
      }
      const double load_from = tr != nullptr ? tr->now() : 0.0;
      try {
        sl.decoder->load(sl.in);
        sl.decoder->run();
      } catch (const DeviceMemoryError&) {
        job.give_back(std::move(sl.items));
        sl.items.clear();
        sl.in.clear();
        if (busy[1 - next]) finish(other);
        throw;
      }
      // load and run: the windows copied into the pinned stage, their upload and the kernels queued
      if (tr != nullptr) tr->add(lane, "upload", load_from, tr->now(), sl.items.size());
      busy[next] = true;
    }
    if (busy[1 - next]) {  // the batch before: ended on the host while the GPU decodes this one
      finish(other);
      busy[1 - next] = false;
    }
    if (busy[next]) {
      next = 1 - next;
    } else if (blocking) {
      break;  // nothing claimed: the input is done (or the job stopped)
    }  // else: nothing was ready while the other batch was held; it is ended now: claim again
  }
  if (blocks_done > 0) count_gpu(st, stats_m, device);
  if (o.leave_to_exit)  // the device and pinned buffers go with the process's exit (Options::leave_to_exit)
    for (Slot& sl : slots) (void)sl.decoder.release();
}

}  // namespace

Stats decompress_bz2(Source& in, Sink& out, const Options& options) {
  PARCOMP_NVTX_RANGE("engine::decompress_bz2");
  bool gpu_first = false, gpu_later = false;
  Options o = with_bz2_batches(bz2_workers(options, true, gpu_first, gpu_later), kBz2GpuDecompressBatch);
  // The reader's windows go back here once no candidate holds them, so that the next ones reuse
  // their pages instead of faulting fresh ones in (a window is 8 MiB and more). Declared before the
  // job whose candidates hold them.
  Spares<Bytes> window_spares{32, [](const Bytes& b) { return b.capacity(); }};
  // The blocks' decoded bytes likewise: the writer gives each back once written, the workers take
  // them for the next blocks (a fresh megabyte per block was page faults, and unmapping it once
  // written stopped every thread of the process); 256 MiB of them at most (blocks of long runs
  // decode to up to 45.9 MB).
  Spares<Bytes> out_spares{128, [](const Bytes& b) { return b.capacity(); }, std::size_t{256} << 20};
  const bz2::OutputBuffers out_buffers = [&out_spares] { return out_spares.take().value_or(Bytes()); };
  // Once a GPU works, the host threads are its: no CPU worker beside it unless --cpu-beside-gpus
  // keeps some (at SCHED_IDLE).
  Scheduler<Candidate, Decoded> s(o, Format::bz2, cpu_beside_gpus(o), ".bz2 decompression needs CPU workers or --gpu");
  auto& job = s.job;
  Stats& st = s.st;
  job.result_bytes_cap = o.bz2_decoded_in_flight != 0 ? o.bz2_decoded_in_flight : kBz2OutputInFlight;
  job.cpu_claims_newest = true;
  job.result_bytes_of = [](const Decoded& d) { return static_cast<std::uint64_t>(d.bytes.size()); };
  // Shared with the reader, under job.m:
  std::set<std::uint64_t> blocks;          // block candidates handed out and not yet passed by the chain
  std::map<std::uint64_t, EndInfo> ends;   // end candidates, likewise
  std::uint64_t known_to = 0;              // every candidate below this bit is in blocks or ends
  std::uint64_t bytes_in = 0;
  int first_level = 0;
  bool junk = false;  // the writer saw the last stream end: the reader only counts the rest

  auto reader = [&] {
    // Reads of 8 MiB, the first ones smaller: 64 KiB, then four times the last. A block is handed
    // out once the window holds the longest block's bits after its start (kMaxBlockBits, 2.3 MB), so
    // small first reads start the first few blocks' workers after about 5 MiB of reading and
    // scanning instead of after 8 MiB of both; and a small file's window is not a large one's:
    // growing a window zeroes it (Bytes), and a 3 MiB window for a 1 kB file cost more than
    // lbzip2 -d's whole run.
    constexpr std::size_t kRead = std::size_t{8} << 20, kFirstRead = std::size_t{64} << 10;
    // An input of unknown size (a pipe) is read on a thread of its own, 16 MiB ahead of the scans.
    std::optional<ReadAhead> ahead;
    if (o.input_bytes == 0) ahead.emplace(in, std::size_t{1} << 20, 16);
    auto read_in = [&](std::uint8_t* buf, std::size_t n) { return ahead ? ahead->read_full(buf, n) : read_full(in, buf, n); };
    // A window of a full read gets the capacity of the longest kept tail and a read, so that any
    // one given back fits the next; it keeps its size, so that sizing it for the next read fills
    // (and faults in) no fresh bytes.
    constexpr std::size_t kWindowBytes = kRead + bz2::kMaxBlockBits / 8 + (std::size_t{1} << 20);
    auto new_window = [&window_spares](std::size_t kept, std::size_t read) {
      std::optional<Bytes> spare = window_spares.take(kept + read);
      Bytes* b = new Bytes(spare ? std::move(*spare) : Bytes());
      if (b->capacity() < kept + read) b->reserve(read < kRead || kept + read > kWindowBytes ? kept + read : kWindowBytes);
      b->resize(kept + read);
      return std::shared_ptr<Bytes>(b, [&window_spares](Bytes* q) {
        window_spares.give_back(std::move(*q));
        delete q;
      });
    };
    auto window = std::make_shared<Bytes>(bz2::kHeaderBytes);
    const std::size_t got = read_in(window->data(), bz2::kHeaderBytes);
    window->resize(got);
    const int level = bz2::header_level(*window, 0);
    if (level == 0) throw CorruptDataError("not a bzip2 stream: no \"BZh1\" to \"BZh9\" header");
    {
      const std::lock_guard lock(job.m);
      first_level = level;
      bytes_in = got;
      known_to = bz2::kHeaderBytes * 8;
      job.cv.notify_all();
    }
    // Two threads: the scanner makes each window (the bytes still needed from the last one, then a
    // read), finds its magics and decides what of it can be handed out (a step); this thread hands
    // the steps' candidates out as the job's room allows. The next window's read and scan so run
    // while this one's candidates wait for room.
    struct Handed {
      bz2::Magic magic;
      EndInfo end;  // for an end magic
    };
    struct Step {
      std::shared_ptr<const Bytes> window;
      std::uint64_t base = 0;     // the input's bit of window[0]'s first bit
      bool eof = false;           // the window reaches the input's end
      std::vector<Handed> items;  // in order
      std::uint64_t known_to = 0, bytes_in = 0;  // after the items
      bool last = false;          // nothing follows (the input's end, the junk after the last stream, a stop)
      bool stopped = false;       // the job stopped: nothing more to say
      std::exception_ptr error;
    };
    std::mutex qm;
    std::condition_variable qcv;
    std::deque<Step> steps;
    bool handing_out = true;  // false: this thread left; the scanner stops
    constexpr std::size_t kStepsAhead = 2;
    auto scanner = [&] {
      const TraceSteps parts(o.trace, "input");
      auto part = [&parts](const char* what, double& from, std::uint64_t blocks) { parts.step(what, from, blocks); };
      std::size_t read_size = kFirstRead;
      std::uint64_t window_byte = 0, scan_from = bz2::kHeaderBytes * 8;
      std::deque<bz2::Magic> found;  // found, not yet handed out
      bool eof = false;
      auto put = [&](Step st) {
        std::unique_lock lock(qm);
        qcv.wait(lock, [&] { return steps.size() < kStepsAhead || !handing_out; });
        if (!handing_out) return false;
        steps.push_back(std::move(st));
        qcv.notify_all();
        return true;
      };
      try {
        while (!eof) {
          {
            const std::lock_guard lock(job.m);
            if (job.stop) break;
            if (junk) break;
          }
          // The next window: from the earliest byte still needed, plus a read.
          const std::uint64_t keep = std::min(found.empty() ? scan_from / 8 : found.front().bit / 8, scan_from / 8);
          double at = parts.now();
          const std::size_t had = window->size() - static_cast<std::size_t>(keep - window_byte);
          auto next = new_window(had, read_size);
          if (had > 0) std::memcpy(next->data(), window->data() + (keep - window_byte), had);
          part("window", at, 0);
          const std::size_t r = read_in(next->data() + had, read_size);
          part("read()", at, 0);
          next->resize(had + r);
          eof = r < read_size;
          read_size = std::min(read_size * 4, kRead);
          window = next;
          window_byte = keep;
          const std::uint64_t base = window_byte * 8, end = base + window->size() * 8;
          std::vector<bz2::Magic> magics;
          // With GPUs decoding, the scan must keep up with them: every host thread takes a piece.
          bz2::find_magics(*window, scan_from - base, window->size() * 8, magics, o.use_gpus ? 0u : 1u);
          for (auto& m : magics) found.push_back({m.bit + base, m.end});
          part("scan", at, magics.size());
          scan_from = std::max(scan_from, end >= 47 ? end - 47 : 0);
          // What the window holds enough of: a block the longest block's bits, an end its CRC and the
          // next stream's header.
          Step st;
          st.window = window;
          st.base = base;
          st.eof = eof;
          while (!found.empty()) {
            const bz2::Magic f = found.front();
            Handed h{f, {}};
            if (!f.end) {
              if (!eof && f.bit + bz2::kMaxBlockBits > end) break;
            } else {
              EndInfo& e = h.end;
              e.next_byte = (f.bit + 80 + 7) / 8;
              if (!eof && (e.next_byte + bz2::kHeaderBytes) * 8 > end) break;
              e.complete = f.bit + 80 <= end;
              if (e.complete) {
                BitReader br(*window, f.bit + 48 - base);
                e.stored_crc = br.take(32);
              }
              if (e.next_byte >= window_byte) {
                e.next_level = bz2::header_level(*window, static_cast<std::size_t>(e.next_byte - window_byte));
                e.next_cut = eof && bz2::header_cut(*window, static_cast<std::size_t>(e.next_byte - window_byte));
              }
            }
            st.items.push_back(h);
            found.pop_front();
          }
          st.known_to = eof && found.empty() ? kAll : std::min(found.empty() ? scan_from : found.front().bit, scan_from);
          st.bytes_in = window_byte + window->size();
          if (!put(std::move(st))) return;
        }
        // The end: after the last stream, count the rest.
        Step st;
        st.last = true;
        {
          const std::lock_guard lock(job.m);
          st.stopped = job.stop;
        }
        std::uint64_t rest = 0;
        if (!eof && !st.stopped) {
          std::vector<std::uint8_t> sink(std::size_t{1} << 20);
          for (std::size_t r; (r = read_in(sink.data(), sink.size())) != 0;) rest += r;
        }
        st.bytes_in = window_byte + window->size() + rest;
        st.known_to = kAll;
        put(std::move(st));
      } catch (...) {
        Step st;
        st.last = true;
        st.error = std::current_exception();
        put(std::move(st));
      }
    };
    std::thread scan_thread([&scanner] {
      name_this_thread("parcomp-scan");
      scanner();
    });
    const auto leave = [&] {
      {
        const std::lock_guard lock(qm);
        handing_out = false;
        qcv.notify_all();
      }
      scan_thread.join();
    };
    try {
      const TraceSteps parts(o.trace, "hand-out");
      for (;;) {
        Step st;
        {
          std::unique_lock lock(qm);
          qcv.wait(lock, [&] { return !steps.empty(); });
          st = std::move(steps.front());
          steps.pop_front();
          qcv.notify_all();
        }
        if (st.error) std::rethrow_exception(st.error);
        if (st.stopped) break;
        bool after_last_stream;  // the writer saw the last stream end: the rest is not handed out
        {
          const std::lock_guard lock(job.m);
          after_last_stream = junk;
        }
        if (after_last_stream) st.items.clear();
        for (const Handed& h : st.items) {
          if (!h.magic.end) {
            double at = parts.now();
            if (!job.wait_for_room()) {
              leave();
              return;
            }
            parts.step("room", at, 0);
            {
              const std::lock_guard lock(job.m);
              blocks.insert(h.magic.bit);
              known_to = std::max(known_to, h.magic.bit + 1);  // found in order: nothing below is missing
            }
            job.push({h.magic.bit, st.window, st.base, st.eof});
          } else {
            const std::lock_guard lock(job.m);
            ends[h.magic.bit] = h.end;
            known_to = std::max(known_to, h.magic.bit + 1);
            job.cv.notify_all();
          }
        }
        const std::lock_guard lock(job.m);
        known_to = st.known_to;
        bytes_in = st.bytes_in;
        if (st.last) job.input_done = true;
        job.cv.notify_all();
        if (st.last) break;
      }
    } catch (...) {
      leave();
      throw;
    }
    leave();
  };
  auto cpu_worker = [&] {
    cpu_worker_loop(job, [&out_buffers](const Candidate& c, cpu::Workspace& ws) {
      Decoded d;
      d.bytes = out_buffers();  // a recycled vector: written over from its start, not zeroed first
      try {
        bz2::Where where;
        where.stream = 0;
        where.base = c.window_bit;
        d.r = cpu::bz2_decompress_block(*c.window, c.seq - c.window_bit, 9, d.bytes, ws, where, c.window_is_end, true, kBz2ExpandOnWrite);
        d.r.end_bit += c.window_bit;
      } catch (const CorruptDataError&) {
        d.error = std::current_exception();
        d.bytes = Bytes();
      }
      return d;
    });
  };
  auto writer = [&] {
    std::unique_lock lock(job.m);
    job.cv.wait(lock, [&] { return job.stop || first_level != 0; });
    if (job.stop) return;
    int level = first_level;
    std::uint64_t chain = bz2::kHeaderBytes * 8, stream = 1, block = 0, written = 0;
    std::uint32_t combined = 0;
    std::vector<std::uint8_t> piece(std::size_t{1} << 20);  // a compact block's bytes, a piece at a time
    auto where = [&](std::uint64_t bit) {
      return "stream " + std::to_string(stream) + (block > 0 ? ", block " + std::to_string(block) : std::string()) + " (bit " +
             std::to_string(bit) + " of the input): ";
    };
    // Drops every candidate below `bit` (passed by the chain) and their results.
    auto pass = [&](std::uint64_t bit) {
      std::uint64_t n = 0;
      while (!blocks.empty() && *blocks.begin() < bit) {
        job.drop_done_locked(*blocks.begin());
        blocks.erase(blocks.begin());
        ++n;
      }
      while (!ends.empty() && ends.begin()->first < bit) ends.erase(ends.begin());
      job.written_blocks += n;
      job.cv.notify_all();
    };
    for (;;) {
      if (job.next_needed != chain) {
        job.next_needed = chain;
        job.cv.notify_all();
      }
      job.cv.wait(lock, [&] { return job.stop || known_to > chain; });
      if (job.stop) return;
      if (auto e = ends.find(chain); e != ends.end()) {
        const EndInfo info = e->second;
        if (o.block_offsets != nullptr) o.block_offsets->emplace_back(chain, written);
        if (!info.complete) throw CorruptDataError(where(chain) + "the input ends inside the end marker (truncated)");
        if (info.stored_crc != combined)
          throw CorruptDataError(where(chain + 48) + "stream CRC " + std::to_string(combined) + " differs from the stored " +
                                 std::to_string(info.stored_crc));
        ++st.streams;
        pass(chain + 80);
        if (info.next_level > 0) {
          ++stream;
          block = 0;
          combined = 0;
          level = info.next_level;
          chain = (info.next_byte + bz2::kHeaderBytes) * 8;
          continue;
        }
        if (info.next_cut)
          throw CorruptDataError("stream " + std::to_string(stream + 1) + " at byte " + std::to_string(info.next_byte) +
                                 ": the input ends inside a stream header (truncated)");
        junk = true;  // the rest is not a stream: wait for the reader to count it
        pass(kAll);   // and free the room of candidates found in it
        job.cv.wait(lock, [&] { return job.stop || job.input_done; });
        if (job.stop) return;
        st.trailing_bytes = bytes_in > info.next_byte ? bytes_in - info.next_byte : 0;
        break;
      }
      if (blocks.count(chain) == 0) {
        if (known_to == kAll && chain + 48 > bytes_in * 8)
          throw CorruptDataError(where(chain) + "the input ends before the stream's end marker (truncated)");
        throw CorruptDataError(where(chain) + "neither a block nor the end marker");
      }
      job.cv.wait(lock, [&] { return job.stop || job.done.count(chain) != 0; });
      if (job.stop) return;
      const double got_at = o.trace != nullptr ? o.trace->now() : 0.0;
      Decoded d = job.take_done_locked(chain);
      ++block;
      if (d.error) {
        try {
          std::rethrow_exception(d.error);
        } catch (const CorruptDataError& e) {
          throw CorruptDataError(where(chain) + e.what());
        }
      }
      if (d.r.nblock > bz2::block_limit(level))
        throw CorruptDataError(where(chain) + std::to_string(d.r.nblock) + " bytes, more than a level-" + std::to_string(level) +
                               " block holds");
      combined = bz2::combine_crc(combined, d.r.stored_crc);
      if (d.gpu) st.gpu_blocks += 1;
      if (o.block_offsets != nullptr) o.block_offsets->emplace_back(chain, written);
      pass(d.r.end_bit);
      chain = d.r.end_bit;
      const std::uint64_t read_so_far = bytes_in;
      lock.unlock();
      const std::size_t n = d.r.compact ? d.r.bytes : d.bytes.size();
      if (d.r.compact)  // a block of long runs, decoded here piece by piece
        bz2::rle1_decode_pieces(d.bytes, piece, [&out](std::span<const std::uint8_t> p) { out.write(p.data(), p.size()); });
      else
        out.write_vector(d.bytes);  // a sink that keeps it swaps a spare in
      if (o.trace != nullptr) o.trace->add(o.trace->lane("writer"), "write", got_at, o.trace->now(), 1);
      written += n;
      if (d.bytes.capacity() != 0) out_spares.give_back(std::move(d.bytes));
      st.blocks += 1;
      s.progress(read_so_far, written);
      lock.lock();
    }
    st.original_bytes = written;
    st.compressed_bytes = bytes_in;
    job.stop = true;  // workers may still hold candidates from the trailing bytes
    job.cv.notify_all();
    lock.unlock();
    s.report(st.compressed_bytes, written);
  };
  auto gpu_manager = [&] {
    // Device bytes per block of a batch, for both of a GPU's slots: the decoded block, the
    // decoder's work area and (about) the compressed windows that hold it.
    const auto needs = [] {
      const std::size_t limit = bz2::block_limit(9), k = 16;
      return GpuNeeds{2 * (bz2gpu::decode_scratch_bytes(k, static_cast<std::uint32_t>(limit)) + k * limit + k * limit / 2) / k, 0};
    };
    const unsigned lanes = bz2_decode_lanes(o);
    s.manage([&](int d, const GpuPlan& p) { bz2_gpu_decompress(job, o, p, st, s.stats_m, d, out_buffers); }, cpu_worker, needs, lanes, true,
             kBz2GpuDecompressBatchesInFlight + 2 * (lanes - 1), gpu_first, gpu_later ? std::optional(bz2_pipe_join(o, true)) : std::nullopt, [&] {
               const std::lock_guard lock(job.m);
               return bytes_in;
             });
  };
  Stats result = s.run(reader, cpu_worker, gpu_manager, writer);
  if (o.leave_to_exit) {  // the kept buffers go with the process's exit (Options::leave_to_exit)
    window_spares.leave_to_exit();
    out_spares.leave_to_exit();
  }
  return result;
}

}  // namespace parcomp::engine
