// The streaming engine. See engine.hpp.
#include "engine.hpp"
#include "engine_detail.hpp"

#include "core/crc32.hpp"
#include "core/errors.hpp"
#include "cpu_codec.hpp"
#include "gpu_pipeline.hpp"
#include "gpu_warmup.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device.hpp"
#include "kernels/common/nvtx.hpp"
#include "stream_format.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace parcomp::engine {

using namespace detail;

namespace {

using Bytes = std::vector<std::uint8_t>;

// ---- compression ------------------------------------------------------------------------------

struct InBlock {
  std::uint64_t seq = 0;
  RawBytes bytes;  // grown without zeroing: read() fills it (a 1 kB file's block no longer zeroes 1 MiB)
};
// A worker's result: consecutive blocks' index entries and payloads (the writer groups them into
// frames of frame_blocks blocks, whoever compressed them: the stream's bytes do not depend on the
// workers).
struct Compressed {
  std::vector<pipeline::BlockEntry> entries;
  std::vector<Bytes> payloads;
  bool gpu = false;
};

Compressed blocks_of(const Bytes& container, bool gpu) {
  Compressed c;
  const pipeline::Layout layout = pipeline::parse(container);
  c.entries = layout.blocks;
  for (const auto& e : layout.blocks) {
    const auto p = std::span(container).subspan(e.payload_offset, e.payload_bytes);
    c.payloads.emplace_back(p.begin(), p.end());
  }
  c.gpu = gpu;
  return c;
}

}  // namespace

std::string Trace::lane(const std::string& kind) {
  std::ostringstream id;
  id << kind << '/' << std::this_thread::get_id();
  const std::lock_guard lock(m_);
  const auto it = lanes_.find(id.str());
  if (it != lanes_.end()) return it->second;
  std::string name = kind + " " + std::to_string(kinds_[kind]++);
  lanes_.emplace(id.str(), name);
  return name;
}

void Trace::add(std::string lane, std::string what, double start, double end, std::uint64_t blocks) {
  const std::lock_guard lock(m_);
  spans_.push_back({std::move(lane), std::move(what), start, end, blocks});
}

std::vector<Trace::Span> Trace::spans() const {
  const std::lock_guard lock(m_);
  return spans_;
}

namespace {
// Options::small_input_bytes: a source whose first bytes were read ahead to learn whether the input
// ends within them, then the rest of the input (none where it ended).
class HeadSource : public Source {
 public:
  HeadSource(Source& in, std::unique_ptr<std::uint8_t[]> head, std::size_t size, bool ended)
      : in_(in), head_(std::move(head)), size_(size), ended_(ended) {}
  std::size_t read(std::uint8_t* buf, std::size_t max) override {
    if (at_ < size_) {
      const std::size_t n = std::min(max, size_ - at_);
      std::memcpy(buf, head_.get() + at_, n);
      at_ += n;
      if (at_ == size_) head_.reset();  // served: its memory goes
      return n;
    }
    return ended_ ? 0 : in_.read(buf, max);
  }

 private:
  Source& in_;
  std::unique_ptr<std::uint8_t[]> head_;
  std::size_t size_, at_ = 0;
  bool ended_;
};

// Whether `o`'s input may be small enough for small_block_bytes: the rule is on, smaller blocks, our
// configuration (the paper's keeps its block size), and no known size says the input is larger.
bool may_take_small_blocks(const Options& o) {
  return o.small_input_bytes > 0 && o.small_block_bytes > 0 && o.small_block_bytes < o.block_bytes &&
         o.config == pipeline::Config::fast && o.input_bytes <= o.small_input_bytes;
}
}  // namespace

// The parcomp format's workers without --gpu (use_gpus, not require_gpu): an input of known size
// (Options::input_bytes) below gpu_from_bytes (compression) or gpu_decompress_from_bytes (the
// compressed input) goes to the CPU workers alone, and CUDA is not started for it; a larger one to
// the CPU workers and every GPU that starts; one of unknown size (a pipe) to the CPU workers, and
// to the GPUs as pipe_join says (pcmp_pipe_join).
namespace {
std::uint64_t pcmp_gpu_threshold(const Options& o, bool decompress) { return decompress ? o.gpu_decompress_from_bytes : o.gpu_from_bytes; }
bool pcmp_gpus_later(const Options& o) { return o.use_gpus && !o.require_gpu && o.input_bytes == 0 && cpu_worker_count(o) > 0; }
bool pcmp_may_use_gpus(const Options& o, bool decompress) {
  return o.use_gpus && !pcmp_gpus_later(o) && (o.require_gpu || o.input_bytes >= pcmp_gpu_threshold(o, decompress) || cpu_worker_count(o) == 0);
}
std::optional<PipeJoin> pcmp_pipe_join(const Options& o, bool decompress) {
  if (!pcmp_gpus_later(o)) return std::nullopt;
  return pipe_join(pcmp_gpu_threshold(o, decompress));
}
Options pcmp_workers(const Options& o, bool decompress) {
  const char* what = decompress ? "decompression" : "compression";
  if (pcmp_gpus_later(o)) {
    note(o, std::string(what) + " of an input of unknown size: on the CPU workers, and on the GPUs once " +
                std::to_string(pipe_join(pcmp_gpu_threshold(o, decompress)).after) + " bytes are read and the CPU workers fall behind");
    return o;
  }
  if (!o.use_gpus || pcmp_may_use_gpus(o, decompress)) return o;
  return cpu_only(o, what, "an input of " + std::to_string(o.input_bytes) + " bytes, below " + std::to_string(pcmp_gpu_threshold(o, decompress)) +
                               "; --gpu uses them");
}
}  // namespace

bool may_use_gpus(const Options& o, bool decompress, bool bz2) {
  return bz2 ? detail::bz2_may_use_gpus(o, decompress) : pcmp_may_use_gpus(o, decompress);
}

Stats compress(Source& in, Sink& out, const Options& options) {
  if (options.format == Format::bz2) return compress_bz2(in, out, options);
  PARCOMP_NVTX_RANGE("engine::compress");
  Options chosen = options;
  std::optional<HeadSource> headed;
  if (may_take_small_blocks(options)) {
    if (options.input_bytes > 0) {
      chosen.block_bytes = options.small_block_bytes;  // its size known: no read ahead
    } else {  // a pipe: read ahead until it ends or passes small_input_bytes
      std::unique_ptr<std::uint8_t[]> head(new std::uint8_t[options.small_input_bytes + 1]);  // not zeroed: read over
      const std::size_t got = read_full(in, head.get(), options.small_input_bytes + 1);
      const bool ended = got <= options.small_input_bytes;
      if (ended) {  // its size known now: the workers as by name (no CUDA for it, threads a block)
        chosen.block_bytes = options.small_block_bytes;
        chosen.input_bytes = got;
      }
      headed.emplace(in, std::move(head), got, ended);
    }
  }
  Source& src = headed ? static_cast<Source&>(*headed) : in;
  const Options o = pcmp_workers(chosen, false);
  if (o.block_bytes == 0 || o.block_bytes > (std::size_t{1} << 24))
    throw ContractError("block size must be in 1 .. 16 MiB, got " + std::to_string(o.block_bytes));
  Scheduler<InBlock, Compressed> s(o, Format::parcomp, cpu_beside_gpus(o), "no workers: neither CPU threads nor GPUs");
  auto& job = s.job;
  Stats& st = s.st;
  const bool gpu_ok = gpu_block_size_ok(o.block_bytes);

  auto reader = [&] {
    for (std::uint64_t seq = 0;; ++seq) {
      if (!job.wait_for_room()) return;
      InBlock b;
      b.seq = seq;
      b.bytes.resize(o.block_bytes);
      const std::size_t got = read_full(src, b.bytes.data(), o.block_bytes);
      if (got == 0) break;
      b.bytes.resize(got);
      s.bytes_in += got;
      job.push(std::move(b));
      if (got < o.block_bytes) break;
    }
    job.finish_input();
  };
  // A small file's blocks sort on their share of the idle workers (cpu::parallel_suffix_sort).
  const unsigned block_threads = threads_per_block(o, s.cpu_workers(), o.block_bytes);
  auto cpu_worker = [&] {
    cpu_worker_loop(job, [&](const InBlock& b, cpu::Workspace& ws) {
      Compressed r;
      r.entries.resize(1);
      r.payloads.resize(1);
      cpu::compress_block(o.config, b.bytes, r.entries[0], r.payloads[0], ws, block_threads);
      return r;
    });
  };
  auto gpu_work = [&](int d, const GpuPlan& plan) {
    std::optional<pipeline::GpuCompressor> c;
    std::size_t c_bytes = 0;
    cudaStream_t stream = nullptr;
    PARCOMP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const std::unique_ptr<CUstream_st, void (*)(cudaStream_t)> owner(stream, [](cudaStream_t s) { PARCOMP_CUDA_CHECK_NOTHROW(cudaStreamDestroy(s)); });
    bool used = false;
    // --trace: the lane's parts ("stage" lanes, as .bz2's): the batch gathered into one buffer,
    // its upload, the GPU pipeline, the container (download and assembly), the results handed on.
    const TraceSteps steps(o.trace, "stage");
    // The lane's batch buffer, kept from batch to batch: a fresh one (64 MiB) takes its page faults
    // every time.
    Bytes batch;
    for (;;) {
      auto items = job.claim(plan.batch, true, true);  // published as one result: a run of seqs
      if (items.empty()) break;
      job.gpu_took_work();
      double at = steps.now();
      batch.clear();
      batch.reserve(items.size() * o.block_bytes);
      for (const auto& b : items) batch.insert(batch.end(), b.bytes.begin(), b.bytes.end());
      Compressed r;
      try {
        if (!c || c_bytes != batch.size()) {
          c.reset();
          c.emplace(o.config, batch.size(), o.block_bytes);
          c_bytes = batch.size();
        }
        steps.step("gather", at, items.size());
        c->upload(batch, stream);
        steps.step("upload", at, items.size());
        c->run(stream);
        steps.step("run", at, items.size());
        r = blocks_of(c->container(stream), true);
      } catch (const DeviceMemoryError&) {
        c.reset();
        job.give_back(std::move(items));  // to the CPU workers, or another lane
        throw;
      }
      steps.step("container", at, items.size());
      used = true;
      job.publish(items.front().seq, std::move(r), items.size());
      steps.step("publish", at, items.size());
    }
    if (used) count_gpu(st, s.stats_m, d);
  };
  auto gpu_manager = [&] {
    if (!gpu_ok) {
      note(o, "GPUs not used: the GPU pipeline takes block sizes that are multiples of 16 up to 16 MiB");
      if (o.require_gpu) throw ContractError("--gpu: the GPU pipeline takes block sizes that are multiples of 16");
      return;
    }
    const auto needs = [&] { return GpuNeeds{pipeline::device_bytes_estimate(o.config, 16 * o.block_bytes, o.block_bytes, false) / 16, 0}; };
    s.manage(gpu_work, cpu_worker, needs, gpu_lanes(o), true, gpu_batches_in_flight(o), false, pcmp_pipe_join(o, false),
             [&] { return s.bytes_in.load(); });
  };
  auto writer = [&] {
    const Bytes header = stream::encode_header({o.config, static_cast<std::uint32_t>(o.block_bytes)});
    out.write(header.data(), header.size());
    std::uint64_t offset = header.size(), original = 0;
    std::uint32_t crc = 0;
    std::vector<stream::IndexEntry> index;
    pipeline::Layout frame;  // the frame being gathered
    std::vector<Bytes> payloads;
    auto flush_frame = [&] {
      if (frame.blocks.empty()) return;
      frame.config = o.config;
      frame.block_bytes = static_cast<std::uint32_t>(o.block_bytes);
      const std::uint32_t blocks = static_cast<std::uint32_t>(frame.blocks.size());
      const std::uint64_t bytes = frame.original_bytes;
      const Bytes body = pipeline::assemble(std::move(frame), payloads);
      const Bytes fh = stream::encode_frame_header({blocks, bytes, body.size()});
      index.push_back({offset, original});
      out.write(fh.data(), fh.size());
      out.write(body.data(), body.size());
      offset += fh.size() + body.size();
      original += bytes;
      st.frames += 1;
      frame = pipeline::Layout{};
      payloads.clear();
    };
    const bool whole = s.in_order([&](Compressed& r) {
      for (std::size_t i = 0; i < r.entries.size(); ++i) {
        crc = crc32_combine(crc, r.entries[i].crc, r.entries[i].original_bytes);
        frame.original_bytes += r.entries[i].original_bytes;
        frame.blocks.push_back(r.entries[i]);
        payloads.push_back(std::move(r.payloads[i]));
        if (frame.blocks.size() == o.frame_blocks) flush_frame();
      }
      job.mark_written(r.entries.size());
      st.blocks += r.entries.size();
      if (r.gpu) st.gpu_blocks += r.entries.size();
      s.progress(s.bytes_in, offset);
    });
    if (!whole) return;
    flush_frame();
    const Bytes idx = stream::encode_index(index);
    const std::uint64_t index_offset = offset;
    out.write(idx.data(), idx.size());
    offset += idx.size();
    const Bytes end = stream::encode_end({crc, st.frames, original, index_offset});
    out.write(end.data(), end.size());
    offset += end.size();
    st.original_bytes = original;
    st.compressed_bytes = offset;
    s.report(s.bytes_in, offset);
  };
  return s.run(reader, cpu_worker, gpu_manager, writer);
}

// ---- decompression ----------------------------------------------------------------------------

namespace {

struct OutBlock {
  std::uint64_t seq = 0;  // the block's number in the stream
  pipeline::Config config = pipeline::Config::fast;
  std::uint32_t block_bytes = 0;
  pipeline::BlockEntry entry;
  std::shared_ptr<const Bytes> body;  // the frame's container
  std::uint64_t frame = 0, frame_offset = 0;
};
struct Decoded {
  std::uint32_t blocks = 0;
  Bytes bytes;
  bool gpu = false;
};

std::string where(const OutBlock& b) {
  return "stream offset " + std::to_string(b.frame_offset) + " (frame " + std::to_string(b.frame) + ", block " +
         std::to_string(b.seq) + "): ";
}

}  // namespace

Stats decompress(Source& source, Sink& out, const Options& options) {
  // The format from the first bytes: "BZh" is bzip2's, the rest parcomp's.
  Bytes first(4);
  first.resize(read_full(source, first.data(), first.size()));
  const bool bz2 = first.size() >= 3 && first[0] == 'B' && first[1] == 'Z' && first[2] == 'h';
  PrefixedSource in(std::move(first), source);
  if (bz2) return decompress_bz2(in, out, options);
  PARCOMP_NVTX_RANGE("engine::decompress");
  const Options o = pcmp_workers(options, true);
  Scheduler<OutBlock, Decoded> s(o, Format::parcomp, cpu_beside_gpus(o), "no workers: neither CPU threads nor GPUs");
  auto& job = s.job;
  Stats& st = s.st;
  std::uint32_t stream_block_bytes = 0;  // set by the reader before any block is pushed

  auto enqueue_container = [&](std::shared_ptr<const Bytes> body, const pipeline::Layout& layout, std::uint64_t& seq,
                               std::uint64_t frame, std::uint64_t offset) {
    for (const auto& e : layout.blocks) {
      if (!job.wait_for_room()) return false;
      OutBlock b;
      b.seq = seq++;
      b.config = layout.config;
      b.block_bytes = layout.block_bytes;
      b.entry = e;
      b.body = body;
      b.frame = frame;
      b.frame_offset = offset;
      job.push(std::move(b));
    }
    return true;
  };
  auto reader = [&] {
    std::uint8_t magic[4];
    std::uint64_t at = read_full(in, magic, 4);
    const stream::Kind kind = stream::kind_of({magic, at});
    if (at == 0) throw CorruptDataError("empty input: neither a parcomp nor a .bz2 file");
    if (kind == stream::Kind::unknown)
      throw CorruptDataError("neither a parcomp nor a .bz2 file (no parcomp magic and no \"BZh\" at the start)");
    std::uint64_t seq = 0;
    if (kind == stream::Kind::container_v2) {
      // Version 2: one container whose index comes first; read whole (the format's limit).
      auto file = std::make_shared<Bytes>(magic, magic + 4);
      std::uint8_t buf[1 << 16];
      for (std::size_t r; (r = in.read(buf, sizeof buf)) != 0;) file->insert(file->end(), buf, buf + r);
      s.bytes_in = file->size();
      const pipeline::Layout layout = pipeline::parse(*file);
      stream_block_bytes = layout.block_bytes;
      enqueue_container(file, layout, seq, 0, 0);
      job.finish_input();
      return;
    }
    Bytes head(stream::kHeaderBytes);
    std::copy(magic, magic + 4, head.begin());
    at += read_full(in, head.data() + 4, stream::kHeaderBytes - 4);
    const stream::Header h = stream::decode_header(head);
    stream_block_bytes = h.block_bytes;
    std::uint64_t frames = 0, original = 0;
    std::uint32_t crc = 0;
    bool partial_frame_seen = false;
    std::vector<stream::IndexEntry> seen_index;
    std::optional<std::vector<stream::IndexEntry>> index;
    std::uint64_t index_at = 0;
    for (;;) {
      const std::uint64_t here = at;
      const std::size_t got = read_full(in, magic, 4);
      at += got;
      if (got < 4)
        throw CorruptDataError("stream offset " + std::to_string(here) + ": truncated: the stream ends after " +
                               std::to_string(frames) + " frames without its end marker");
      const std::uint32_t m = stream::get_u32({magic, 4}, 0);
      if (m == stream::kFrameMagic) {
        if (index) throw CorruptDataError("stream offset " + std::to_string(here) + ": a frame after the index");
        Bytes fh(stream::kFrameHeaderBytes);
        std::copy(magic, magic + 4, fh.begin());
        fh.resize(4 + read_full(in, fh.data() + 4, fh.size() - 4));  // short: decode_frame_header says truncated
        at += fh.size() - 4;
        const stream::FrameHeader f = stream::decode_frame_header(fh, here, frames, h);
        if (partial_frame_seen)
          throw CorruptDataError("stream offset " + std::to_string(here) + ": frame " + std::to_string(frames) +
                                 " follows a frame that ended with a short block");
        auto body = std::make_shared<Bytes>(f.body_bytes);
        const std::size_t body_got = read_full(in, body->data(), body->size());
        at += body_got;
        if (body_got < body->size())
          throw CorruptDataError("stream offset " + std::to_string(here) + ": frame " + std::to_string(frames) +
                                 ": truncated (" + std::to_string(body_got) + " of " + std::to_string(f.body_bytes) + " bytes)");
        pipeline::Layout layout;
        try {
          layout = pipeline::parse(*body);
        } catch (const CorruptDataError& e) {
          throw CorruptDataError("stream offset " + std::to_string(here) + ": frame " + std::to_string(frames) +
                                 " (first block " + std::to_string(seq) + "): " + e.what());
        }
        if (layout.config != h.config || layout.block_bytes != h.block_bytes || layout.blocks.size() != f.blocks ||
            layout.original_bytes != f.original_bytes)
          throw CorruptDataError("stream offset " + std::to_string(here) + ": frame " + std::to_string(frames) +
                                 ": its container does not match the frame header or the stream header");
        partial_frame_seen = f.original_bytes != std::uint64_t{f.blocks} * h.block_bytes;
        seen_index.push_back({here, original});
        for (const auto& e : layout.blocks) crc = crc32_combine(crc, e.crc, e.original_bytes);
        original += f.original_bytes;
        s.bytes_in = at;
        if (!enqueue_container(body, layout, seq, frames, here)) return;
        ++frames;
      } else if (m == stream::kIndexMagic) {
        if (index) throw CorruptDataError("stream offset " + std::to_string(here) + ": a second index");
        Bytes ib(16);
        std::copy(magic, magic + 4, ib.begin());
        ib.resize(4 + read_full(in, ib.data() + 4, 12));  // short: index_entries says truncated
        at += ib.size() - 4;
        const std::uint64_t n = stream::index_entries(ib, here);
        if (n != frames)
          throw CorruptDataError("stream offset " + std::to_string(here) + ": index: " + std::to_string(n) + " entries for " +
                                 std::to_string(frames) + " frames");
        ib.resize(stream::index_bytes(n));
        const std::size_t rest = read_full(in, ib.data() + 16, ib.size() - 16);
        at += rest;
        if (rest < ib.size() - 16) throw CorruptDataError("stream offset " + std::to_string(here) + ": index: truncated");
        index = stream::decode_index(ib, here);
        index_at = here;
        for (std::size_t i = 0; i < n; ++i)
          if ((*index)[i].stream_offset != seen_index[i].stream_offset || (*index)[i].original_offset != seen_index[i].original_offset)
            throw CorruptDataError("stream offset " + std::to_string(here) + ": index entry " + std::to_string(i) +
                                   " does not match frame " + std::to_string(i));
      } else if (m == stream::kEndMagic) {
        Bytes eb(stream::kEndBytes);
        std::copy(magic, magic + 4, eb.begin());
        eb.resize(4 + read_full(in, eb.data() + 4, eb.size() - 4));  // short: decode_end says truncated (never zeros)
        at += eb.size() - 4;
        const stream::End e = stream::decode_end(eb, here);
        if (e.frames != frames || e.original_bytes != original)
          throw CorruptDataError("stream offset " + std::to_string(here) + ": end marker: " + std::to_string(e.frames) +
                                 " frames and " + std::to_string(e.original_bytes) + " bytes, the stream has " +
                                 std::to_string(frames) + " and " + std::to_string(original));
        if (e.crc != crc)
          throw CorruptDataError("stream offset " + std::to_string(here) + ": end marker: the stream's CRC-32 does not match its blocks'");
        if (e.index_offset != (index ? index_at : 0))
          throw CorruptDataError("stream offset " + std::to_string(here) + ": end marker: index offset " +
                                 std::to_string(e.index_offset) + " does not match");
        std::uint8_t extra;
        if (in.read(&extra, 1) != 0)
          throw CorruptDataError("stream offset " + std::to_string(at) + ": trailing bytes after the end marker");
        s.bytes_in = at;
        {
          const std::lock_guard lock(s.stats_m);
          st.compressed_bytes = at;
        }
        break;
      } else {
        throw CorruptDataError("stream offset " + std::to_string(here) + ": neither a frame, an index nor the end marker");
      }
    }
    job.finish_input();
  };
  auto cpu_worker = [&] {
    cpu_worker_loop(job, [&](const OutBlock& b, cpu::Workspace& ws) {
      Decoded d;
      d.blocks = 1;
      d.bytes.resize(b.entry.original_bytes);
      try {
        cpu::decompress_block(b.config, b.entry, std::span(*b.body).subspan(b.entry.payload_offset, b.entry.payload_bytes),
                              b.seq, d.bytes, ws);
      } catch (const CorruptDataError& e) {
        throw CorruptDataError(where(b) + e.what());
      }
      return d;
    });
  };
  // The GPU lanes' output buffers, back from the writer once written: a fresh one per batch (64 MiB,
  // zeroed) takes its page faults every time. At most a few are kept.
  Spares<Bytes> spare(gpu_lanes(o) + 2, [](const Bytes& b) { return b.capacity(); });
  auto take_spare = [&] { return spare.take().value_or(Bytes()); };
  auto give_back = [&](Bytes&& b) { spare.give_back(std::move(b)); };
  auto gpu_work = [&](int d, const GpuPlan& plan) {
    cudaStream_t stream = nullptr;
    PARCOMP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const std::unique_ptr<CUstream_st, void (*)(cudaStream_t)> owner(stream, [](cudaStream_t s) { PARCOMP_CUDA_CHECK_NOTHROW(cudaStreamDestroy(s)); });
    std::optional<pipeline::GpuDecompressor> dec;
    Bytes file;  // the container of the lane's batch (its buffer reused from batch to batch)
    bool used = false;
    const TraceSteps steps(o.trace, "stage");  // as in compression: the lane's parts
    for (;;) {
      // Blocks of a size the GPU pipeline takes (a multiple of 16): else the CPU decodes them all.
      {
        std::unique_lock lock(job.m);
        job.cv.wait(lock, [&] { return job.stop || stream_block_bytes != 0 || job.input_done; });
        if (job.stop || !gpu_block_size_ok(stream_block_bytes)) break;
      }
      auto items = job.claim(plan.batch, true, true);  // published as one result: a run of seqs
      if (items.empty()) break;
      job.gpu_took_work();
      double at = steps.now();
      pipeline::Layout layout;
      layout.config = items.front().config;
      layout.block_bytes = items.front().block_bytes;
      std::vector<std::span<const std::uint8_t>> payloads;
      for (const auto& b : items) {
        layout.blocks.push_back(b.entry);
        layout.original_bytes += b.entry.original_bytes;
        payloads.push_back(std::span<const std::uint8_t>(*b.body).subspan(b.entry.payload_offset, b.entry.payload_bytes));
      }
      // Into the lane's file buffer, which the decoder takes and gives its last one back: the
      // payloads copied once into pages already there (a copy of each payload, the assembled file
      // and the decoder's copy of it, all in fresh memory, took 10-30 ms of each 64-block batch).
      pipeline::assemble_into(std::move(layout), payloads, file);
      steps.step("gather", at, items.size());
      Decoded out_block;
      out_block.blocks = static_cast<std::uint32_t>(items.size());
      out_block.gpu = true;
      try {
        if (!dec)
          dec.emplace(file);
        else
          dec->take(file);
        dec->load(stream);
        steps.step("load", at, items.size());
        dec->run(stream);
        steps.step("run", at, items.size());
        out_block.bytes = take_spare();
        dec->output(stream, out_block.bytes);
        steps.step("output", at, items.size());
      } catch (const CorruptDataError& e) {
        throw CorruptDataError(where(items.front()) + "in blocks " + std::to_string(items.front().seq) + ".." +
                               std::to_string(items.back().seq) + " (numbered from 0 there): " + e.what());
      } catch (const DeviceMemoryError&) {
        dec.reset();
        job.give_back(std::move(items));  // to the CPU workers, or another lane
        throw;
      }
      used = true;
      job.publish(items.front().seq, std::move(out_block), items.size());
      steps.step("publish", at, items.size());
    }
    if (used) count_gpu(st, s.stats_m, d);
  };
  auto gpu_manager = [&] {
    std::size_t block;
    {
      std::unique_lock lock(job.m);  // the stream's block size, once its header is read
      job.cv.wait(lock, [&] { return job.stop || stream_block_bytes != 0 || job.input_done; });
      block = stream_block_bytes != 0 ? stream_block_bytes : o.block_bytes;
    }
    const auto needs = [block] { return GpuNeeds{pipeline::device_bytes_estimate(pipeline::Config::fast, 16 * block, block, true) / 16 + block / 2, 0}; };
    s.manage(gpu_work, cpu_worker, needs, gpu_lanes(o), true, gpu_batches_in_flight(o), false, pcmp_pipe_join(o, true),
             [&] { return s.bytes_in.load(); });
  };
  auto writer = [&] {
    std::uint64_t written = 0;
    const bool whole = s.in_order([&](Decoded& d) {
      const std::size_t n = d.bytes.size();
      out.write_vector(d.bytes);  // a sink that keeps it swaps a spare in
      written += n;
      job.mark_written(d.blocks);
      st.blocks += d.blocks;
      if (d.gpu) {
        st.gpu_blocks += d.blocks;
        if (d.bytes.capacity() != 0) give_back(std::move(d.bytes));
      }
      s.progress(s.bytes_in, written);
    });
    if (!whole) return;
    st.original_bytes = written;
    s.report(s.bytes_in, written);
  };
  Stats r = s.run(reader, cpu_worker, gpu_manager, writer);
  if (r.compressed_bytes == 0) r.compressed_bytes = s.bytes_in;
  return r;
}

}  // namespace parcomp::engine
