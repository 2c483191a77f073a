// The public C++ API (include/parcomp/parcomp.hpp) over the engine: user-level options mapped to
// the engine's, the engine's errors mapped to the public hierarchy.
#include "parcomp/parcomp.hpp"

#include "bz2.hpp"
#include "cpu_codec.hpp"
#include "stream_format.hpp"
#include "core/parallel.hpp"
#include "engine.hpp"
#include "gpu_warmup.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/nvtx.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <map>
#include <optional>
#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <cstring>
#include <string>
#include <system_error>

namespace parcomp {

namespace bench {
extern const char* const kGitSha;  // generated gitinfo.cpp (cmake/gitinfo.cmake)
}  // namespace bench

const char* version() noexcept {
  static const std::string v = std::string(PARCOMP_VERSION) + " (commit " + std::string(bench::kGitSha).substr(0, 10) + ")";
  return v.c_str();
}

namespace {

engine::Options engine_options(const Options& o) {
  if (o.level < 1 || o.level > 9) throw ContractError("level must be 1 to 9, not " + std::to_string(o.level));
  if (o.require_gpu && !o.use_gpus) throw ContractError("require_gpu needs use_gpus");
  if (o.threads < -1) throw ContractError("threads must be -1 (every hardware thread) or more, not " + std::to_string(o.threads));
  engine::Options e;
  e.format = o.format == Format::bz2 ? engine::Format::bz2 : engine::Format::parcomp;
  e.level = o.level;
  e.cpu_threads = o.threads;
  e.use_gpus = o.use_gpus;
  e.require_gpu = o.require_gpu;
  e.devices = o.devices;
  e.input_bytes = o.input_size;
  if (o.on_progress) e.on_progress = [f = o.on_progress](const engine::Progress& p) { f(p.bytes_in, p.bytes_out); };
  e.on_note = o.on_note;
  if (const Tuning* t = o.tuning; t != nullptr) {
    const auto set = [](auto& field, auto value, auto unset) {
      if (value != unset) field = value;
    };
    if (t->block_bytes != 0 && (t->block_bytes > (std::size_t{1} << 24)))
      throw ContractError("Tuning::block_bytes must be 1 .. 16 MiB, not " + std::to_string(t->block_bytes));
    set(e.block_bytes, t->block_bytes, std::size_t{0});
    if (t->block_bytes != 0) e.small_input_bytes = 0;  // the size asked for, whatever the input's
    set(e.frame_blocks, t->frame_blocks, std::size_t{0});
    set(e.gpu_batch_blocks, t->gpu_batch_blocks, std::size_t{0});
    set(e.bz2_gpu_batch_blocks, t->bz2_gpu_batch_blocks, std::size_t{0});
    set(e.bz2_gpu_lanes, t->bz2_gpu_lanes, 0u);
    set(e.gpu_lanes, t->gpu_lanes, 0u);
    set(e.max_blocks_in_flight, t->max_blocks_in_flight, std::size_t{0});
    set(e.bz2_gpu_from_bytes, t->bz2_gpu_from_bytes, std::uint64_t{0});
    set(e.bz2_gpu_decompress_from_bytes, t->bz2_gpu_decompress_from_bytes, std::uint64_t{0});
    set(e.gpu_from_bytes, t->gpu_from_bytes, std::uint64_t{0});
    set(e.gpu_decompress_from_bytes, t->gpu_decompress_from_bytes, std::uint64_t{0});
    set(e.cpu_beside_gpus, t->cpu_beside_gpus, -1);
    set(e.bz2_gpu_walk_bits, t->bz2_gpu_walk_bits, 0);
    set(e.bz2_gpu_walk_threads, t->bz2_gpu_walk_threads, 0u);
    set(e.bz2_gpu_host_piece, t->bz2_gpu_host_piece, std::size_t{0});
    set(e.bz2_decoded_in_flight, t->bz2_decoded_in_flight, std::uint64_t{0});
  }
  return e;
}

Stats public_stats(const engine::Stats& s) {
  Stats r;
  r.original_bytes = s.original_bytes;
  r.compressed_bytes = s.compressed_bytes;
  r.blocks = s.blocks;
  r.gpu_blocks = s.gpu_blocks;
  r.cpu_workers = s.cpu_workers;
  r.gpus = s.gpus;
  r.peak_device_bytes = s.peak_device_bytes;
  r.seconds = s.seconds;
  r.format = s.format == engine::Format::bz2 ? Format::bz2 : Format::parcomp;
  r.streams = s.streams;
  r.trailing_bytes = s.trailing_bytes;
  return r;
}

// The engine's errors as the public ones: parcomp::Error passes; the system's I/O errors become
// IoError; the standard library's argument errors ContractError.
// Every call waits for CUDA's start-up, where it began one, before it returns (gpu_warmup::wait):
// a program may then end at once.
template <typename F>
Stats guarded(F&& f) {
  struct AfterCuda {
    ~AfterCuda() { gpu_warmup::wait(); }
  } after_cuda;
  try {
    return public_stats(f());
  } catch (const Error&) {
    throw;
  } catch (const std::system_error& e) {
    throw IoError(e.what());
  } catch (const std::invalid_argument& e) {
    throw ContractError(e.what());
  }
}

}  // namespace

Stats compress(Source& in, Sink& out, const Options& options) {
  PARCOMP_NVTX_RANGE("parcomp::compress");
  return guarded([&] { return engine::compress(in, out, engine_options(options)); });
}

Stats decompress(Source& in, Sink& out, const Options& options) {
  PARCOMP_NVTX_RANGE("parcomp::decompress");
  std::vector<std::pair<std::uint64_t, std::uint64_t>> offsets;
  Stats st = guarded([&] {
    engine::Options e = engine_options(options);
    if (options.collect_block_offsets) e.block_offsets = &offsets;
    return engine::decompress(in, out, e);
  });
  st.block_offsets = std::move(offsets);
  return st;
}

namespace {

// A whole buffer through compress() or decompress(), its size the input's.
std::vector<std::uint8_t> whole(std::span<const std::uint8_t> bytes, const Options& options, Stats (*run)(Source&, Sink&, const Options&)) {
  MemorySource in(bytes);
  VectorSink out;
  Options o = options;
  if (o.input_size == 0) o.input_size = bytes.size();
  run(in, out, o);
  return std::move(out.bytes);
}

}  // namespace

std::vector<std::uint8_t> compress(std::span<const std::uint8_t> bytes, const Options& options) {
  return whole(bytes, options, static_cast<Stats (*)(Source&, Sink&, const Options&)>(&compress));
}

std::vector<std::uint8_t> decompress(std::span<const std::uint8_t> bytes, const Options& options) {
  return whole(bytes, options, static_cast<Stats (*)(Source&, Sink&, const Options&)>(&decompress));
}

void set_gpu_memory_limit(std::uint64_t bytes_per_device) { device_memory::set_limit(bytes_per_device); }

}  // namespace parcomp

namespace parcomp {

// The work runs on a thread of its own over a source that hands out the pushed pieces and a sink
// that keeps the output until it is taken.
namespace {
// A call's work on a thread of its own, for Stream and Reader: its statistics or error once done;
// abandon() makes the source or sink that waits throw Abandoned and joins the thread.
struct Background {
  std::mutex m;
  std::condition_variable cv;
  bool abandoned = false, done = false;
  std::exception_ptr error;
  Stats stats;
  std::thread worker;
  struct Abandoned {};

  void start(Source& in, Sink& out, Stream::Direction direction, const Options& o) {
    worker = std::thread([this, &in, &out, direction, o] {
      Stats st;
      std::exception_ptr e;
      try {
        st = direction == Stream::Direction::compress ? compress(in, out, o) : decompress(in, out, o);
      } catch (const Abandoned&) {
      } catch (...) {
        e = std::current_exception();
      }
      const std::lock_guard lock(m);
      stats = st;
      error = e;
      done = true;
      cv.notify_all();
    });
  }
  void abandon() {
    {
      const std::lock_guard lock(m);
      abandoned = true;
      cv.notify_all();
    }
    if (worker.joinable()) worker.join();
  }
};
}  // namespace

struct Stream::State : Background {
  static constexpr std::size_t kInputRoom = std::size_t{16} << 20;
  std::deque<std::vector<std::uint8_t>> input;
  std::size_t input_bytes = 0, front_at = 0;  // bytes waiting; how far the front piece is read
  bool input_done = false, finished = false;
  std::vector<std::uint8_t> output;

  class Pieces : public Source {
   public:
    explicit Pieces(State& s) : s_(s) {}
    std::size_t read(std::uint8_t* buf, std::size_t max) override {
      std::unique_lock lock(s_.m);
      s_.cv.wait(lock, [&] { return s_.abandoned || !s_.input.empty() || s_.input_done; });
      if (s_.abandoned) throw Abandoned{};
      if (s_.input.empty()) return 0;
      const std::vector<std::uint8_t>& front = s_.input.front();
      const std::size_t n = std::min(max, front.size() - s_.front_at);
      std::memcpy(buf, front.data() + s_.front_at, n);
      s_.front_at += n;
      s_.input_bytes -= n;
      if (s_.front_at == front.size()) {
        s_.input.pop_front();
        s_.front_at = 0;
      }
      s_.cv.notify_all();
      return n;
    }

   private:
    State& s_;
  };
  class Kept : public Sink {
   public:
    explicit Kept(State& s) : s_(s) {}
    void write(const std::uint8_t* buf, std::size_t n) override {
      const std::lock_guard lock(s_.m);
      s_.output.insert(s_.output.end(), buf, buf + n);
    }

   private:
    State& s_;
  };

  Pieces pieces{*this};
  Kept kept{*this};

  std::vector<std::uint8_t> take_output() {  // under m
    std::vector<std::uint8_t> out;
    out.swap(output);
    return out;
  }
  void rethrow_error() {  // under m
    if (error) {
      finished = true;
      std::rethrow_exception(std::exchange(error, nullptr));
    }
  }
};

Stream::Stream(Direction direction, const Options& options) : s_(nullptr) {
  (void)engine_options(options);  // a bad option is the constructor's error, not the first push's
  s_ = new State;
  Options o = options;
  o.input_size = 0;  // a size not known in advance
  s_->start(s_->pieces, s_->kept, direction, o);
}

Stream::~Stream() {
  s_->abandon();
  delete s_;
}

std::vector<std::uint8_t> Stream::push(std::span<const std::uint8_t> bytes) {
  std::unique_lock lock(s_->m);
  if (s_->finished || s_->input_done) throw ContractError("Stream::push after finish()");
  s_->rethrow_error();
  for (std::size_t at = 0; at < bytes.size() && !s_->done;) {
    s_->cv.wait(lock, [&] { return s_->done || s_->input_bytes < State::kInputRoom; });
    if (s_->done) break;
    const std::size_t n = std::min(bytes.size() - at, State::kInputRoom - s_->input_bytes);
    s_->input.emplace_back(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.begin() + static_cast<std::ptrdiff_t>(at + n));
    s_->input_bytes += n;
    at += n;
    s_->cv.notify_all();
  }
  s_->rethrow_error();
  return s_->take_output();
}

std::vector<std::uint8_t> Stream::finish() {
  std::unique_lock lock(s_->m);
  if (s_->finished) throw ContractError("Stream::finish called twice");
  s_->input_done = true;
  s_->cv.notify_all();
  s_->cv.wait(lock, [&] { return s_->done; });
  s_->rethrow_error();
  s_->finished = true;
  return s_->take_output();
}

const Stats& Stream::stats() const { return s_->stats; }

}  // namespace parcomp

namespace parcomp {

// The work on a thread of its own; its sink waits while kRoom bytes of output wait for read().
struct Reader::State : Background {
  static constexpr std::size_t kRoom = std::size_t{64} << 20;
  std::deque<std::vector<std::uint8_t>> output;
  std::size_t output_bytes = 0, front_at = 0;
  // Pieces read to their end, kept for the next writes: a fresh megabyte per block written was
  // page faults, and unmapping it once read stopped every thread of the process.
  std::vector<std::vector<std::uint8_t>> spares;
  static constexpr std::size_t kSpares = 16;

  class Waiting : public Sink {
   public:
    explicit Waiting(State& s) : s_(s) {}
    void write(const std::uint8_t* buf, std::size_t n) override {
      if (n == 0) return;
      std::vector<std::uint8_t> piece;
      {
        const std::lock_guard lock(s_.m);
        piece = s_.spare();
      }
      piece.assign(buf, buf + n);  // the copy outside the lock: read() may take what is queued meanwhile
      queue(piece, false);
    }
    // The piece itself goes into the queue (no copy); the engine gets a spare back for its next one.
    void write_vector(std::vector<std::uint8_t>& piece) override {
      if (!piece.empty()) queue(piece, true);
    }

   private:
    // Once there is room: `piece` into the queue and, with `swap`, a spare (or nothing) in its place.
    void queue(std::vector<std::uint8_t>& piece, bool swap) {
      const std::size_t n = piece.size();
      std::unique_lock lock(s_.m);
      s_.cv.wait(lock, [&] { return s_.abandoned || s_.output_bytes < kRoom; });
      if (s_.abandoned) throw Abandoned{};
      s_.output.push_back(std::move(piece));
      s_.output_bytes += n;
      s_.cv.notify_all();
      piece = swap ? s_.spare() : std::vector<std::uint8_t>();
    }
    State& s_;
  };
  // A piece read to its end, emptied (under m); none kept: an empty one.
  std::vector<std::uint8_t> spare() {
    std::vector<std::uint8_t> v;
    if (!spares.empty()) {
      v = std::move(spares.back());
      spares.pop_back();
      v.clear();
    }
    return v;
  }
  Waiting waiting{*this};
};

Reader::Reader(Source& in, Stream::Direction direction, const Options& options) : s_(nullptr) {
  (void)engine_options(options);
  s_ = new State;
  s_->start(in, s_->waiting, direction, options);
}

Reader::~Reader() {
  s_->abandon();
  delete s_;
}

std::size_t Reader::read(std::uint8_t* buf, std::size_t n) {
  std::unique_lock lock(s_->m);
  s_->cv.wait(lock, [&] { return s_->done || !s_->output.empty(); });
  std::size_t got = 0;
  while (got < n && !s_->output.empty()) {
    const std::vector<std::uint8_t>& front = s_->output.front();
    const std::size_t k = std::min(n - got, front.size() - s_->front_at);
    std::memcpy(buf + got, front.data() + s_->front_at, k);
    got += k;
    s_->front_at += k;
    s_->output_bytes -= k;
    if (s_->front_at == front.size()) {
      if (s_->spares.size() < State::kSpares) s_->spares.push_back(std::move(s_->output.front()));
      s_->output.pop_front();
      s_->front_at = 0;
    }
  }
  s_->cv.notify_all();
  if (got == 0 && s_->error) std::rethrow_exception(std::exchange(s_->error, nullptr));
  return got;
}

const Stats& Reader::stats() const { return s_->stats; }

// The stream's bytes from its first unread one on (earlier ones dropped as the chain passes them),
// followed block by block on the caller's thread: a block is decoded once it may be whole, and
// tried again, when it was not, after its bytes have doubled (so that small pieces of input do not
// make the decoding quadratic).
namespace {
// The 48 bits at `bit` of `in` (a block or end magic, or neither); bit + 48 must be in `in`.
std::uint64_t magic_at(std::span<const std::uint8_t> in, std::uint64_t bit) {
  BitReader br(in, bit);
  return std::uint64_t{br.take(24)} << 24 | br.take(24);
}
}  // namespace

struct Bz2Decompressor::State {
  enum class Phase { header, blocks, done };
  Phase phase = Phase::header;
  std::vector<std::uint8_t> in;       // input from byte `base` of the stream on
  std::uint64_t base = 0;             // the stream's byte of in[0]
  std::uint64_t bit = 0;              // the chain's next bit, in `in`
  std::uint64_t tried_to_bytes = 0;   // in.size() when the block at `bit` last ran past the end
  std::uint64_t scan_from = 0;        // in's bits before this were scanned for magics
  int level = 0;
  std::uint32_t combined = 0;
  std::uint64_t blocks = 0;
  std::vector<std::uint8_t> ready;    // output not yet returned
  std::size_t ready_at = 0;
  std::vector<std::uint8_t> unused;
  bz2::DecodeScratch scratch;

  // One step along the chain: false when it needs more input (or the stream has ended).
  bool step() {
    if (phase == Phase::header) {
      if (in.size() < bz2::kHeaderBytes) return false;
      level = bz2::header_level(in, 0);
      if (level == 0) throw CorruptDataError("not a bzip2 stream: no \"BZh1\" to \"BZh9\" header");
      bit = bz2::kHeaderBytes * 8;
      phase = Phase::blocks;
      return true;
    }
    if (phase == Phase::done) return false;
    const std::uint64_t have = static_cast<std::uint64_t>(in.size()) * 8;
    if (bit + 48 > have) return false;
    const std::uint64_t magic = magic_at(in, bit);
    bz2::Where where;
    where.stream = 1;
    where.block = blocks + 1;
    where.base = base * 8;
    where.bit = bit;
    if (magic == bz2::kEndMagic) {
      if (bit + 80 > have) return false;
      const std::uint32_t stored = BitReader(in, bit + 48).take(32);
      if (stored != combined)
        throw CorruptDataError("stream CRC " + std::to_string(combined) + " differs from the stored " + std::to_string(stored));
      const std::size_t end = static_cast<std::size_t>((bit + 80 + 7) / 8);
      unused.assign(in.begin() + static_cast<std::ptrdiff_t>(end), in.end());
      in.clear();
      phase = Phase::done;
      return false;
    }
    if (magic != bz2::kBlockMagic) throw CorruptDataError("bit " + std::to_string(base * 8 + bit) + ": neither a block nor the end marker");
    if (tried_to_bytes != 0 && in.size() < 2 * tried_to_bytes - bit / 8 && have - bit < bz2::kMaxBlockBits) {
      // Not doubled yet: tried again only if a magic (the next block's, the end's) came since.
      std::vector<bz2::Magic> found;
      const std::uint64_t from = std::max(scan_from, bit + 48);
      if (have >= from + 48) bz2::find_magics(in, from, have, found);
      scan_from = have >= 47 ? have - 47 : 0;
      if (found.empty()) return false;
    }
    const std::optional<bz2::BlockResult> r = bz2::decode_block_if_whole(in, bit, level, ready, scratch, where);
    if (!r) {
      tried_to_bytes = in.size();
      return false;
    }
    tried_to_bytes = 0;
    ++blocks;
    combined = bz2::combine_crc(combined, r->stored_crc);
    bit = r->end_bit;
    // The bytes the chain has passed go once they are half of what is kept (whole bytes; the next
    // block may start mid-byte).
    if (bit / 8 >= (std::size_t{1} << 20) && bit / 8 >= in.size() / 2) {
      const std::size_t drop = static_cast<std::size_t>(bit / 8);
      in.erase(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(drop));
      base += drop;
      bit -= std::uint64_t{drop} * 8;
      scan_from = scan_from > std::uint64_t{drop} * 8 ? scan_from - std::uint64_t{drop} * 8 : 0;
    }
    return true;
  }
};

Bz2Decompressor::Bz2Decompressor() : s_(new State) {}
Bz2Decompressor::~Bz2Decompressor() { delete s_; }

std::vector<std::uint8_t> Bz2Decompressor::decompress(std::span<const std::uint8_t> data, std::size_t max_length) {
  PARCOMP_NVTX_RANGE("parcomp::Bz2Decompressor::decompress");
  State& s = *s_;
  if (eof()) throw ContractError("End of stream already reached");
  if (s.phase == State::Phase::done)
    s.unused.insert(s.unused.end(), data.begin(), data.end());  // its output still being returned
  else
    s.in.insert(s.in.end(), data.begin(), data.end());
  if (s.ready_at > 0 && s.ready_at == s.ready.size()) {
    s.ready.clear();
    s.ready_at = 0;
  }
  while (s.ready.size() - s.ready_at < max_length && s.step()) {
  }
  const std::size_t n = std::min(max_length, s.ready.size() - s.ready_at);
  std::vector<std::uint8_t> out(s.ready.begin() + static_cast<std::ptrdiff_t>(s.ready_at),
                                s.ready.begin() + static_cast<std::ptrdiff_t>(s.ready_at + n));
  s.ready_at += n;
  if (s.ready_at == s.ready.size()) {
    s.ready.clear();
    s.ready_at = 0;
  }
  return out;
}

bool Bz2Decompressor::eof() const { return s_->phase == State::Phase::done && s_->ready_at == s_->ready.size(); }
bool Bz2Decompressor::needs_input() const { return s_->phase != State::Phase::done && s_->ready_at == s_->ready.size(); }
const std::vector<std::uint8_t>& Bz2Decompressor::unused_data() const { return s_->unused; }

}  // namespace parcomp

namespace parcomp {

namespace {
// The chain's next block from `bit` on (a block magic there, or an end marker, then the next
// stream's header): its bit, or nullopt when the streams end there (the file's end, or bytes that
// are no stream). Throws CorruptDataError for bits that are neither magic.
std::optional<std::uint64_t> next_block(std::span<const std::uint8_t> in, std::uint64_t bit, bool& need_input) {
  const std::uint64_t have = static_cast<std::uint64_t>(in.size()) * 8;
  need_input = false;
  for (;;) {
    if (bit + 48 > have) {
      need_input = true;
      return std::nullopt;
    }
    const std::uint64_t magic = magic_at(in, bit);
    if (magic == bz2::kBlockMagic) return bit;
    if (magic != bz2::kEndMagic) throw CorruptDataError("bit " + std::to_string(bit) + ": neither a block nor the end marker");
    const std::uint64_t header = (bit + 80 + 7) / 8;
    if ((header + bz2::kHeaderBytes) * 8 > have) {  // the next header, if any, is not in the piece
      need_input = true;
      return std::nullopt;
    }
    if (bz2::header_level(in, static_cast<std::size_t>(header)) == 0) return std::nullopt;
    bit = (header + bz2::kHeaderBytes) * 8;
  }
}
}  // namespace

std::vector<std::vector<std::uint8_t>> bz2_decode_blocks(std::span<const std::uint8_t> in, std::span<const std::uint64_t> bits, unsigned threads) {
  PARCOMP_NVTX_RANGE("parcomp::bz2_decode_blocks");
  std::vector<std::vector<std::uint8_t>> out(bits.size());
  std::vector<std::exception_ptr> errors(bits.size());
  for_each_block(bits.size(), threads, [&](std::size_t i) {
    try {
      bz2::DecodeScratch scratch;
      bz2::Where where;
      where.bit = bits[i];
      bz2::decode_block(in, bits[i], 9, out[i], scratch, where, true);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  });
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

Bz2Range bz2_decode_range(std::span<const std::uint8_t> in, std::uint64_t from_bit, std::uint64_t to_bit, bool input_ends_here,
                          std::uint64_t max_blocks, unsigned threads) {
  PARCOMP_NVTX_RANGE("parcomp::bz2_decode_range");
  Bz2Range r;
  bz2::DecodeScratch scratch;
  const std::uint64_t have = static_cast<std::uint64_t>(in.size()) * 8;
  // A block decoded at `bit` into `out`: nullopt when it runs past in's end.
  const auto decode_into = [&](std::uint64_t bit, std::vector<std::uint8_t>& out, bz2::DecodeScratch& s) -> std::optional<bz2::BlockResult> {
    bz2::Where w;
    w.bit = bit;
    if (input_ends_here) return bz2::decode_block(in, bit, 9, out, s, w, true);
    return bz2::decode_block_if_whole(in, bit, 9, out, s, w);
  };
  std::vector<bz2::Magic> found;
  if (from_bit < to_bit && from_bit + 48 <= have) bz2::find_magics(in, from_bit, std::min(have, to_bit + 47), found);
  // With several threads, every block candidate of the range is decoded at once first (those that
  // are magics inside a block's data fail, or are never reached by the chain); the chain below then
  // takes their results.
  struct Early {
    std::optional<bz2::BlockResult> r;
    std::vector<std::uint8_t> bytes;
    bool bad = false;
  };
  std::map<std::uint64_t, Early> early;
  if (threads != 1 && max_blocks > 1) {
    std::vector<std::uint64_t> bits;
    for (const bz2::Magic& m : found)
      if (!m.end && m.bit < to_bit) bits.push_back(m.bit);
    if (bits.size() > 1) {
      std::vector<Early> got(bits.size());
      for_each_block(bits.size(), threads, [&](std::size_t i) {
        bz2::DecodeScratch s;
        try {
          got[i].r = decode_into(bits[i], got[i].bytes, s);
        } catch (const CorruptDataError&) {
          got[i].bad = true;
          got[i].bytes = std::vector<std::uint8_t>();
        }
      });
      for (std::size_t i = 0; i < bits.size(); ++i) early.emplace(bits[i], std::move(got[i]));
    }
  }
  const auto decode = [&](std::uint64_t bit) -> std::optional<bz2::BlockResult> {
    if (auto e = early.find(bit); e != early.end() && !e->second.bad) {
      if (e->second.r) r.bytes.insert(r.bytes.end(), e->second.bytes.begin(), e->second.bytes.end());
      return e->second.r;
    }
    return decode_into(bit, r.bytes, scratch);  // not decoded yet, or damaged: its error from here
  };
  // The first block: the first candidate in the range that decodes (a magic inside a block's
  // data does not: its CRC, if nothing before it, tells it apart).
  std::optional<bz2::BlockResult> first;
  for (const bz2::Magic& m : found) {
    if (m.end || m.bit >= to_bit) continue;
    const std::size_t before = r.bytes.size();
    try {
      first = decode(m.bit);
    } catch (const CorruptDataError&) {
      r.bytes.resize(before);
      continue;
    }
    if (!first) {  // runs past the end of the piece: whether it is a block is not known yet
      r.need_input = true;
      return r;
    }
    r.first_bit = m.bit;
    break;
  }
  if (!first) {
    r.next_bit = to_bit;
    r.more = false;
    return r;
  }
  r.blocks = 1;
  std::uint64_t bit = first->end_bit;
  for (;;) {
    bool need = false;
    const std::optional<std::uint64_t> next = next_block(in, bit, need);
    if (!next) {
      r.next_bit = bit;
      r.more = need && !input_ends_here;
      r.need_input = r.more;
      return r;
    }
    r.next_bit = *next;
    r.more = true;
    if (*next >= to_bit || r.blocks >= max_blocks) return r;
    const std::optional<bz2::BlockResult> b = decode(*next);
    if (!b) {
      r.need_input = true;
      return r;
    }
    ++r.blocks;
    bit = b->end_bit;
  }
}

}  // namespace parcomp

namespace parcomp {

ParcompEnd parcomp_stream_end(std::span<const std::uint8_t> end_marker) {
  const stream::End e = stream::decode_end(end_marker, 0);
  return {e.frames, e.original_bytes, e.index_offset};
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> parcomp_stream_index(std::span<const std::uint8_t> index, std::uint64_t index_offset) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const stream::IndexEntry& e : stream::decode_index(index, index_offset)) out.emplace_back(e.stream_offset, e.original_offset);
  return out;
}

std::vector<std::uint8_t> parcomp_decode_frame(std::span<const std::uint8_t> header, std::span<const std::uint8_t> frame, std::uint64_t frame_offset,
                                               unsigned threads) {
  PARCOMP_NVTX_RANGE("parcomp::parcomp_decode_frame");
  const stream::Header h = stream::decode_header(header);
  const stream::FrameHeader f = stream::decode_frame_header(frame, frame_offset, 0, h);
  const std::string at = "stream offset " + std::to_string(frame_offset) + ": ";
  if (frame.size() - stream::kFrameHeaderBytes < f.body_bytes) throw CorruptDataError(at + "the frame runs past the bytes given");
  const auto body = frame.subspan(stream::kFrameHeaderBytes, static_cast<std::size_t>(f.body_bytes));
  const pipeline::Layout layout = pipeline::parse(body);
  if (layout.config != h.config || layout.block_bytes != h.block_bytes || layout.blocks.size() != f.blocks ||
      layout.original_bytes != f.original_bytes)
    throw CorruptDataError(at + "the frame's container does not match the frame header or the stream header");
  return cpu::decompress(body, threads);
}

}  // namespace parcomp

