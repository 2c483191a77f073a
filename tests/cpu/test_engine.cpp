// The streaming engine and the stream format (version 3) on the CPU workers (and, without a GPU,
// with the GPUs asked for: the engine must then do everything on the CPU): round trips over block
// and frame boundaries, reads of any size, output that does not depend on the workers, version-2
// containers read, bounded memory, and every kind of damage an error naming the stream offset.
#include "core/errors.hpp"
#include "codec/cpu_codec.hpp"
#include "codec/engine.hpp"
#include "codec/gpu_warmup.hpp"
#include "codec/engine_detail.hpp"
#include "codec/stream_format.hpp"
#include "datasets/synthetic.hpp"
#include "reference/pipeline.hpp"

#include "kernels/common/device_buffer.hpp"

#include "common/mem_io.hpp"
#include "common/sample_inputs.hpp"
#include "common/seeds.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <numeric>

#include <memory>
#include <future>
#include <mutex>
#include <set>
#include <thread>
#include <string>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <thread>

namespace {
using parcomp::testing::MemSink;
using parcomp::testing::MemSource;
using parcomp::testing::word_text;
using namespace parcomp;
using Bytes = std::vector<std::uint8_t>;

engine::Options cpu_options(std::size_t block, int threads = 2, std::size_t frame = 3) {
  engine::Options o;
  o.block_bytes = block;
  o.cpu_threads = threads;
  o.use_gpus = false;
  o.frame_blocks = frame;
  return o;
}

Bytes compress(const Bytes& in, const engine::Options& o, std::uint64_t seed = 1) {
  MemSource src(in, seed);
  MemSink sink;
  engine::compress(src, sink, o);
  return sink.b;
}
Bytes decompress(const Bytes& file, const engine::Options& o, std::uint64_t seed = 1) {
  MemSource src(file, seed);
  MemSink sink;
  engine::decompress(src, sink, o);
  return sink.b;
}

TEST(Engine, RoundTripsOverBlockAndFrameBoundaries) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const std::size_t block = 4096;
  for (const auto config : {pipeline::Config::fast, pipeline::Config::paper}) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, block - 1, block, block + 1, 3 * block, 10 * block + 77}) {
      for (const int threads : {1, 3}) {
        SCOPED_TRACE(::testing::Message() << pipeline::config_name(config) << " n " << n << " threads " << threads);
        const Bytes in = word_text(n, seed + n);
        engine::Options o = cpu_options(block, threads);
        o.config = config;
        const Bytes file = compress(in, o, seed);
        ASSERT_EQ(decompress(file, o, seed + 1), in);
        // The frames' bodies are version-2 containers the oracle reads on its own.
        ASSERT_GE(file.size(), stream::kHeaderBytes + stream::kEndBytes);
      }
    }
  }
}

// The parcomp format's default workers by the input's size (Options::input_bytes): below
// gpu_from_bytes (compression) or gpu_decompress_from_bytes (the compressed input) the CPU workers
// alone, CUDA not started; at or above it, or of unknown size, the GPUs may join (none here in CI).
TEST(Engine, SmallInputsStayOnTheCpuWorkersByDefault) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = word_text(200'003, seed);
  const std::string said_cpu = "runs on the CPU workers (an input of ";
  for (const bool small : {true, false}) {
    for (const bool known : {true, false}) {
      SCOPED_TRACE(::testing::Message() << (small ? "below the size" : "at the size") << (known ? ", size known" : ", size unknown"));
      std::mutex m;
      std::vector<std::string> notes;
      engine::Options o;
      o.block_bytes = 65536;
      o.cpu_threads = 2;
      o.on_note = [&](const std::string& s) {
        const std::lock_guard lock(m);
        notes.push_back(s);
      };
      o.gpu_from_bytes = small ? in.size() + 1 : in.size();
      o.input_bytes = known ? in.size() : 0;
      MemSource src(in, seed);
      MemSink sink;
      const engine::Stats st = engine::compress(src, sink, o);
      const auto said = [&] {
        const std::lock_guard lock(m);
        return std::any_of(notes.begin(), notes.end(), [&](const std::string& s) { return s.find(said_cpu) != std::string::npos; });
      };
      const bool cpu_alone = small && known;
      EXPECT_EQ(said(), cpu_alone);
      if (cpu_alone) {
        EXPECT_TRUE(st.gpus.empty());
      }
      notes.clear();
      engine::Options d = o;
      d.gpu_decompress_from_bytes = small ? sink.b.size() + 1 : sink.b.size();
      d.input_bytes = known ? sink.b.size() : 0;
      MemSource packed(sink.b, seed + 1);
      MemSink back;
      const engine::Stats sd = engine::decompress(packed, back, d);
      EXPECT_TRUE(back.b == in);
      EXPECT_EQ(said(), cpu_alone);
      if (cpu_alone) {
        EXPECT_TRUE(sd.gpus.empty());
      }
    }
  }
}

TEST(Engine, OutputDoesNotDependOnTheWorkersOrTheReads) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = word_text(200003, seed);
  const Bytes one = compress(in, cpu_options(8192, 1, 4), seed);
  EXPECT_EQ(compress(in, cpu_options(8192, 3, 4), seed + 7), one);
  engine::Options with_gpus = cpu_options(8192, 2, 4);
  with_gpus.use_gpus = true;  // no GPU in CI: the CPU workers do it all, to the same bytes
  EXPECT_EQ(compress(in, with_gpus, seed + 9), one);
}

TEST(Engine, FramesHoldTheCpuCodecsContainers) {
  const Bytes in = word_text(50000, 3);
  const engine::Options o = cpu_options(4096, 2, 5);
  const Bytes file = compress(in, o);
  // Walk the stream by hand: header, frames (each body a version-2 container of 5 blocks), index, end.
  const stream::Header h = stream::decode_header(file);
  EXPECT_EQ(h.block_bytes, 4096u);
  std::size_t at = stream::kHeaderBytes, frames = 0;
  Bytes back;
  while (stream::get_u32(file, at) == stream::kFrameMagic) {
    const auto f = stream::decode_frame_header(std::span(file).subspan(at), at, frames, h);
    const auto body = std::span(file).subspan(at + stream::kFrameHeaderBytes, f.body_bytes);
    const Bytes part = reference::pipeline_decompress(body);
    EXPECT_EQ(part.size(), f.original_bytes);
    back.insert(back.end(), part.begin(), part.end());
    at += stream::kFrameHeaderBytes + f.body_bytes;
    ++frames;
  }
  EXPECT_EQ(frames, (13 + 4) / 5u);
  EXPECT_EQ(back, in);
  const auto index = stream::decode_index(std::span(file).subspan(at), at);
  EXPECT_EQ(index.size(), frames);
  at += stream::index_bytes(index.size());
  const stream::End e = stream::decode_end(std::span(file).subspan(at), at);
  EXPECT_EQ(e.frames, frames);
  EXPECT_EQ(e.original_bytes, in.size());
  EXPECT_EQ(at + stream::kEndBytes, file.size());
}

TEST(Engine, ReadsVersionTwoContainers) {
  const Bytes in = word_text(123457, 5);
  for (const auto config : {pipeline::Config::fast, pipeline::Config::paper}) {
    const Bytes v2 = cpu::compress(config, in, 16384, 2);
    EXPECT_EQ(decompress(v2, cpu_options(16384)), in);
  }
}

TEST(Engine, DamageIsAnErrorNamingTheOffsetNeverWrongOrShortOutput) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = word_text(60000, seed);
  const engine::Options o = cpu_options(4096, 2, 4);
  const Bytes file = compress(in, o);
  auto error_of = [&](const Bytes& f) -> std::string {
    try {
      const Bytes out = decompress(f, o);
      if (out != in) return "WRONG OUTPUT";
      return "";
    } catch (const CorruptDataError& e) {
      return e.what();
    }
  };
  // Truncation anywhere is an error (never a short output called success).
  for (std::size_t keep = 0; keep < file.size(); keep += std::max<std::size_t>(1, file.size() / 200)) {
    SCOPED_TRACE(::testing::Message() << "truncated to " << keep);
    const std::string e = error_of(Bytes(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(keep)));
    EXPECT_NE(e, "");
    EXPECT_NE(e, "WRONG OUTPUT");
  }
  for (const std::size_t cut : {std::size_t{1}, stream::kEndBytes, stream::kEndBytes + 1}) {
    const std::string e = error_of(Bytes(file.begin(), file.end() - static_cast<std::ptrdiff_t>(cut)));
    EXPECT_NE(e.find("stream offset"), std::string::npos) << "cut " << cut << ": " << e;
  }
  {
    Bytes longer = file;
    longer.push_back(0);
    EXPECT_NE(error_of(longer).find("trailing bytes after the end marker"), std::string::npos);
  }
  // Flipped bits: an error, or (padding) the exact input.
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 300; ++k) {
    Bytes bad = file;
    const std::size_t bit = rng() % (bad.size() * 8);
    bad[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    SCOPED_TRACE(::testing::Message() << "flipped bit " << bit);
    EXPECT_NE(error_of(bad), "WRONG OUTPUT");
  }
  // Every byte of the end marker is covered by its CRC: a flip anywhere in it is an error
  // naming the end marker (a field the reader does not otherwise check, such as the index offset,
  // would pass unnoticed without the CRC).
  for (std::size_t at = file.size() - stream::kEndBytes; at < file.size(); ++at) {
    Bytes bad = file;
    bad[at] ^= 0x10;
    const std::string e = error_of(bad);
    EXPECT_NE(e.find("end marker"), std::string::npos) << "byte " << at << " of " << file.size() << ": " << (e.empty() ? "read as whole" : e);
  }
  // A damaged frame names its stream offset and frame.
  {
    Bytes bad = file;
    bad[stream::kHeaderBytes + 8] ^= 1;  // frame 0's byte count, its header CRC not re-sealed
    EXPECT_NE(error_of(bad).find("stream offset 16: frame 0 header: checksum mismatch"), std::string::npos) << error_of(bad);
  }
}

TEST(Engine, AShortEndMarkerIsTruncatedEvenWhenTheMissingByteIsZero) {
  // The reader once zero-filled a short end marker: a file cut by one byte whose CRC's last byte
  // is zero was read as whole (one input in 256). Find such a file and cut it.
  const engine::Options o = cpu_options(4096, 2, 4);
  for (std::uint64_t seed = 1; seed < 20000; ++seed) {
    const Bytes in = word_text(5000 + seed % 97, seed);
    const Bytes file = compress(in, o);
    if (file.back() != 0) continue;
    try {
      decompress(Bytes(file.begin(), file.end() - 1), o);
      FAIL() << "seed " << seed << ": a file without its last byte was read";
    } catch (const CorruptDataError& e) {
      EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
    return;
  }
  FAIL() << "no file ended in a zero byte";
}

TEST(Engine, NotAStreamIsAnError) {
  const engine::Options o = cpu_options(4096);
  for (const Bytes& b : {Bytes{}, Bytes{'B', 'Z', 'h', '9'}, Bytes(100, 'x')}) {
    EXPECT_THROW(decompress(b, o), CorruptDataError);
  }
}

// Memory is bounded by the blocks in flight, not by the input: the reader is at most that many
// blocks ahead of the writer.
class WatchedSink : public engine::Sink {
 public:
  explicit WatchedSink(const MemSource& src) : src_(src) {}
  void write(const std::uint8_t* buf, std::size_t n) override {
    written_ += n;
    max_ahead_ = std::max<std::int64_t>(max_ahead_, static_cast<std::int64_t>(src_.at()) - static_cast<std::int64_t>(written_));
    (void)buf;
  }
  std::int64_t max_ahead() const { return max_ahead_; }

 private:
  const MemSource& src_;
  std::size_t written_ = 0;
  std::int64_t max_ahead_ = 0;
};

TEST(Engine, MemoryIsBoundedByTheBlocksInFlight) {
  const Bytes in = word_text(2 << 20, 9);
  engine::Options o = cpu_options(16384, 2, 1);
  o.max_blocks_in_flight = 6;
  const Bytes file = compress(in, o);
  MemSource src(file, 3, 1 << 16);
  WatchedSink sink(src);
  engine::decompress(src, sink, o);
  // Decompression: the reader reads compressed frames; the writer writes decompressed blocks. The
  // reader may be the blocks in flight plus one frame ahead (compressed bytes count less).
  EXPECT_LE(sink.max_ahead(), static_cast<std::int64_t>((o.max_blocks_in_flight + 2) * o.block_bytes));
  EXPECT_GT(sink.max_ahead(), -static_cast<std::int64_t>(in.size()));
}

}  // namespace

// --trace: a worker's claim is one span from the claim to its last item's result, on the claiming
// thread's lane, however the results come (a GPU publishes a batch item by item, in any order and
// maybe from another thread); the reader's and the writer's spans count their blocks.
// A job whose items are their sequence numbers, with `n` of them read and the input ended, for the
// trace tests.
struct TraceItem {
  std::uint64_t seq = 0;
};
using TracedJob = engine::detail::Job<TraceItem, int>;
void fill_traced_job(TracedJob& job, engine::Trace& trace, std::uint64_t n) {
  job.trace = &trace;
  job.cap = 16;
  for (std::uint64_t k = 0; k < n; ++k) {
    ASSERT_TRUE(job.wait_for_room());
    job.push(TraceItem{k});
  }
  job.finish_input();
}

// The parcomp format's GPU workers publish a whole batch as one result: still one span, with
// every block (before, the span never closed and no GPU batch reached the trace).
TEST(EngineTrace, ABatchPublishedAsOneResultIsOneSpan) {
  engine::Trace trace;
  TracedJob job;
  fill_traced_job(job, trace, 4);
  const auto batch = job.claim(4, true);
  ASSERT_EQ(batch.size(), 4u);
  job.publish(0, 0, batch.size());
  std::vector<engine::Trace::Span> batches;
  for (const auto& sp : trace.spans())
    if (sp.what == "batch") batches.push_back(sp);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].blocks, 4u);
  EXPECT_EQ(batches[0].lane, "gpu 0");
}

TEST(EngineTrace, AClaimIsOneSpanFromTheClaimToItsLastResult) {
  engine::Trace trace;
  TracedJob job;
  fill_traced_job(job, trace, 5);
  const auto batch = job.claim(3, true);  // a GPU's batch: items 0, 1, 2
  ASSERT_EQ(batch.size(), 3u);
  double last = 0;
  std::thread other([&] {  // the results come from another thread, out of order
    job.publish(2, 2);
    job.publish(0, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    last = trace.now();
    job.publish(1, 1);
  });
  other.join();
  const auto single = job.claim(1, false);  // a CPU worker's block: item 3
  ASSERT_EQ(single.size(), 1u);
  job.publish(3, 3);
  for (std::uint64_t k = 0; k < 4; ++k) {
    ASSERT_TRUE(job.next_in_order().has_value());
    job.mark_written(1);
  }
  std::vector<engine::Trace::Span> batches, blocks, reads, writes;
  for (const auto& sp : trace.spans()) {
    EXPECT_LE(sp.start, sp.end) << sp.lane << " " << sp.what;
    (sp.what == "batch" ? batches : sp.what == "block" ? blocks : sp.what == "read" ? reads : writes).push_back(sp);
  }
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].blocks, 3u);
  EXPECT_EQ(batches[0].lane, "gpu 0");
  EXPECT_GE(batches[0].end, last) << "the batch's span ends at its last result";
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].lane, "cpu 0");
  EXPECT_EQ(reads.size(), 5u);
  EXPECT_EQ(writes.size(), 4u);
  for (const auto& w : writes) EXPECT_EQ(w.lane, "writer 0");
}

// Once a GPU has taken work (Job::gpu_took_work), all but cpu_beside_gpus of the CPU workers leave
// at their next claim: with three workers and one kept, one thread decodes every item; before any
// GPU works, all three stay, and so they do where the job keeps them once the input is all read
// (Job::cpu_stay_once_read, .bz2 compression).
TEST(EngineJob, CpuWorkersStepAsideOnceAGpuWorks) {
  for (const int kind : {0, 1, 2}) {
    const bool gpu_works = kind != 1, stay = kind == 2;
    SCOPED_TRACE(!gpu_works ? "no GPU" : stay ? "a GPU works, the input all read, the workers kept" : "a GPU works");
    engine::Trace trace;
    TracedJob job;
    fill_traced_job(job, trace, 12);
    job.cpu_stay_once_read = stay;
    job.cpu_beside_gpus = 1;
    job.cpu_working = 3;
    if (gpu_works) job.gpu_took_work();
    std::mutex m;
    std::set<std::thread::id> workers_that_worked;
    std::vector<std::thread> threads;
    for (int k = 0; k < 3; ++k)
      threads.emplace_back([&] {
        engine::detail::cpu_worker_loop(job, [&](const TraceItem& item, cpu::Workspace&) {
          const std::lock_guard lock(m);
          workers_that_worked.insert(std::this_thread::get_id());
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          return static_cast<int>(item.seq);
        });
      });
    for (auto& t : threads) t.join();
    EXPECT_EQ(job.done.size(), 12u);
    EXPECT_EQ(job.cpu_working, 0u);  // every worker has left: those stepping aside, then the rest when nothing was left
    if (gpu_works) {
      EXPECT_EQ(workers_that_worked.size(), stay ? 3u : 1u);
    }
  }
}

// Beside a working GPU a .bz2 job's CPU workers take the newest block (Job::cpu_claims_newest), so
// that a block slower on the host than the GPU's batches is far from the writer's next one; before
// a GPU works, without the flag, or with the results' room full, the oldest.
TEST(EngineJob, CpuWorkersBesideAGpuTakeTheNewestBlock) {
  for (const int kind : {0, 1, 2, 3}) {
    const bool gpu = kind != 1, newest = kind != 2, full = kind == 3;
    SCOPED_TRACE(::testing::Message() << (gpu ? "a GPU works" : "no GPU") << (newest ? "" : ", oldest first") << (full ? ", the results' room full" : ""));
    engine::Trace trace;
    TracedJob job;
    fill_traced_job(job, trace, 6);
    job.cpu_claims_newest = newest;
    if (gpu) job.gpu_took_work();
    if (full) {  // a result waiting for the writer fills the room: only the writer's next item, 0, may go
      job.result_bytes_cap = 1;
      job.result_bytes_of = [](const int&) { return std::uint64_t{1}; };
      job.publish(4, 4);
    }
    const auto first = job.cpu_claim();
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].seq, gpu && newest && !full ? 5u : 0u);
    if (full) continue;
    const auto batch = job.claim(3, true);  // a GPU's batch from the front
    ASSERT_FALSE(batch.empty());
    EXPECT_EQ(batch[0].seq, gpu && newest ? 0u : 1u);
  }
}

// A GPU's claim waits for a full batch while the input is coming, but not past the reader's room:
// with a cap below the batch (parcomp --blocks-in-flight) the reader stops at the cap and the GPU
// takes what is there (it used to wait for ever).
TEST(EngineJob, AGpuTakesLessThanABatchWhereTheReaderWaitsForRoom) {
  TracedJob job;
  job.cap = 3;
  std::thread reader([&] {
    for (std::uint64_t k = 0; k < 8; ++k) {
      if (!job.wait_for_room()) return;
      job.push(TraceItem{k});
    }
    job.finish_input();
  });
  std::atomic<bool> done{false};
  std::thread watchdog([&] {  // a claim that waits for ever fails the test instead of hanging it
    for (int k = 0; k < 1000 && !done; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!done) job.fail(std::make_exception_ptr(std::runtime_error("a claim waited for 10 s")));
  });
  std::vector<std::size_t> sizes;
  for (std::uint64_t first = 0;;) {
    const auto batch = job.claim(5, true);
    if (batch.empty()) break;
    sizes.push_back(batch.size());
    EXPECT_EQ(batch.front().seq, first);
    job.publish(first, 0, batch.size());
    ASSERT_TRUE(job.next_in_order().has_value());
    job.mark_written(batch.size());
    first += batch.size();
  }
  done = true;
  watchdog.join();
  reader.join();
  EXPECT_FALSE(job.error) << "the GPU's claim waited for a full batch the reader could not bring";
  EXPECT_EQ(std::accumulate(sizes.begin(), sizes.end(), std::size_t{0}), 8u);
  for (const std::size_t n : sizes) EXPECT_LE(n, 3u);
}

// Where blocks can be large (a .bz2 block of long runs holds up to 51 times its block's bytes), the
// reader's room is bounded in input bytes too (Job::bytes_cap): the reader stops once the blocks not
// yet written hold that many, and a GPU then takes what is there; and a GPU's batch closes at its
// own bytes (claim's max_bytes). Blocks alone let 4 GB of zeros be read before the first batch.
struct SizedItem {
  std::uint64_t seq = 0, bytes = 0;
};
TEST(EngineJob, TheReadersRoomAndAGpusBatchAreBoundedInInputBytes) {
  for (const bool reader_bound : {true, false}) {
    engine::detail::Job<SizedItem, int> job;
    job.cap = 100;
    job.bytes_of = [](const SizedItem& i) { return i.bytes; };
    job.bytes_cap = reader_bound ? 100 : 0;
    const std::uint64_t batch_bytes = reader_bound ? 0 : 80;
    std::atomic<std::uint64_t> written{0}, most_ahead{0};
    std::thread reader([&] {
      for (std::uint64_t k = 0; k < 12; ++k) {
        if (!job.wait_for_room()) return;
        most_ahead = std::max(most_ahead.load(), k + 1 - written.load());  // blocks held once k is pushed
        job.push(SizedItem{k, 40});
      }
      job.finish_input();
    });
    std::atomic<bool> done{false};
    std::thread watchdog([&] {
      for (int k = 0; k < 1000 && !done; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (!done) job.fail(std::make_exception_ptr(std::runtime_error("a claim waited for 10 s")));
    });
    std::vector<std::size_t> sizes;
    for (std::uint64_t first = 0;;) {
      const auto batch = job.claim(5, true, false, batch_bytes);
      if (batch.empty()) break;
      sizes.push_back(batch.size());
      EXPECT_EQ(batch.front().seq, first);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the GPU's work: the reader could run ahead
      job.publish(first, 0, batch.size());
      ASSERT_TRUE(job.next_in_order().has_value());
      first += batch.size();
      written = first;  // before the reader can see the room
      job.mark_written(batch.size());
    }
    done = true;
    watchdog.join();
    reader.join();
    EXPECT_FALSE(job.error) << "a claim waited for a batch the reader could not bring";
    EXPECT_EQ(std::accumulate(sizes.begin(), sizes.end(), std::size_t{0}), 12u);
    if (reader_bound) {
      EXPECT_LE(most_ahead.load(), 3u) << "the reader held more than 100 bytes and a block";
      for (const std::size_t n : sizes) EXPECT_LE(n, 3u);
    } else {
      for (const std::size_t n : sizes) EXPECT_EQ(n, 2u) << "a batch closes at 80 bytes";
    }
  }
}

// A block done behind a slow one holds its result's bytes in the reader's room, not its input's
// (Job::held_result_bytes_of): the first block of a zero-filled input waits for libbz2's row of its
// equal rotations while the blocks after it are done, and with inputs counted until written the
// reader stopped at 1 GiB of them. Results count too: large ones still hold the reader.
TEST(EngineJob, BlocksDoneBehindASlowOneHoldTheirResultsNotTheirInput) {
  struct Case {
    bool results_held;
    int result_bytes;
    std::uint64_t pushed;
  };
  for (const Case c : {Case{true, 1, 10}, Case{false, 1, 3}, Case{true, 60, 3}}) {
    engine::detail::Job<SizedItem, int> job;
    job.cap = 100;
    job.bytes_cap = 100;
    job.bytes_of = [](const SizedItem& i) { return i.bytes; };
    if (c.results_held) job.held_result_bytes_of = [](const int& r) { return static_cast<std::uint64_t>(r); };
    std::atomic<std::uint64_t> pushed{0};
    std::thread reader([&] {
      for (std::uint64_t k = 0; k < 10; ++k) {
        if (!job.wait_for_room()) return;
        job.push(SizedItem{k, 40});
        ++pushed;
      }
      job.finish_input();
    });
    const auto slow = job.claim(1, false);  // block 0: claimed, not published
    ASSERT_EQ(slow.size(), 1u);
    std::atomic<bool> done{false};
    std::thread watchdog([&] {
      for (int k = 0; k < 50 && !done; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (!done) job.fail(std::make_exception_ptr(std::runtime_error("the reader is held")));
    });
    for (;;) {
      const auto b = job.claim(1, false);
      if (b.empty()) break;
      job.publish(b.front().seq, c.result_bytes);
    }
    done = true;
    watchdog.join();
    reader.join();
    // Held back, the reader stops at 2 or 3 blocks: whether block 1's result is in before its check
    // for the third is the threads' race.
    if (c.pushed < 10) {
      EXPECT_LE(pushed.load(), c.pushed) << "results held: " << c.results_held << ", result bytes " << c.result_bytes;
      EXPECT_GE(pushed.load(), 2u) << "results held: " << c.results_held << ", result bytes " << c.result_bytes;
      continue;
    }
    EXPECT_EQ(pushed.load(), c.pushed) << "results held: " << c.results_held << ", result bytes " << c.result_bytes;
    EXPECT_FALSE(job.error);
    job.publish(0, c.result_bytes);
    for (std::uint64_t k = 0; k < 10; ++k) {
      ASSERT_TRUE(job.next_in_order().has_value());
      job.mark_written(1);
    }
    EXPECT_FALSE(job.next_in_order().has_value());
  }
}

// CPU workers at SCHED_IDLE that the process may not bring back are replaced (Job::cpu_replaced_below):
// one waiting for a block leaves at once, one holding a block leaves after it, each counted in
// cpu_replaced_gone (the manager starts one at the program's priority for each); the workers of the
// next generation, and threads that are no generation's (0), go on claiming.
TEST(EngineJob, ReplacedCpuWorkersLeaveAfterTheBlockTheyHold) {
  using J = engine::detail::Job<SizedItem, int>;
  J job;
  job.cap = 100;
  job.cpu_working = 2;
  job.push(SizedItem{0, 1});
  std::promise<void> holding, replaced;
  std::atomic<bool> waiter_left{false}, holder_left{false};
  std::thread waiter([&] {  // generation 1, waiting for a block
    J::cpu_generation = 1;
    holding.get_future().wait();  // the holder has the only block
    ASSERT_TRUE(job.cpu_may_claim());
    EXPECT_TRUE(job.claim(1, false).empty()) << "a replaced worker waiting for a block leaves";
    job.cpu_leaves();
    waiter_left = true;
  });
  std::thread holder([&] {  // generation 1, holding block 0
    J::cpu_generation = 1;
    ASSERT_TRUE(job.cpu_may_claim());
    ASSERT_EQ(job.claim(1, false).size(), 1u);
    holding.set_value();
    replaced.get_future().wait();
    job.publish(0, 0);
    EXPECT_FALSE(job.cpu_may_claim()) << "a replaced worker leaves after its block";
    holder_left = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the waiter waits in claim
  EXPECT_FALSE(waiter_left.load());
  {
    const std::lock_guard lock(job.m);
    job.cpu_replaced_below = 2;
    job.cpu_working += 1;  // the replacement
    job.cv.notify_all();
  }
  for (int k = 0; k < 200 && !waiter_left; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(waiter_left.load()) << "a replaced worker waiting for a block still waits after 2 s";
  if (!waiter_left) job.fail(std::make_exception_ptr(std::runtime_error("still waiting")));
  waiter.join();
  if (job.error) {
    replaced.set_value();
    holder.join();
    return;
  }
  replaced.set_value();
  holder.join();
  EXPECT_TRUE(waiter_left && holder_left);
  {
    const std::lock_guard lock(job.m);
    EXPECT_EQ(job.cpu_replaced_gone, 2u);
    EXPECT_EQ(job.cpu_working, 1u);
  }
  job.push(SizedItem{1, 1});
  job.finish_input();
  for (const unsigned generation : {2u, 0u}) {
    std::thread next([&] {
      J::cpu_generation = generation;
      EXPECT_TRUE(job.cpu_may_claim());
      if (generation == 2) {
        EXPECT_EQ(job.claim(1, false).size(), 1u) << "the next generation claims";
      }
    });
    next.join();
  }
}

// The GPUs' batch is split among them: with G GPUs each takes a G-th of Options::gpu_batch_blocks,
// never fewer than kMinGpuBatch (or the batch itself when it is smaller), so that the blocks in
// flight, and the host memory holding them, stay what one GPU holds (a bound of 2 GB).
TEST(EngineJob, TheGpusShareOneBatchOfBlocks) {
  engine::Options o;
  o.gpu_batch_blocks = 256;
  EXPECT_EQ(engine::detail::gpu_batch_per_device(o, 0), 256u);
  EXPECT_EQ(engine::detail::gpu_batch_per_device(o, 1), 256u);
  EXPECT_EQ(engine::detail::gpu_batch_per_device(o, 2), 128u);
  EXPECT_EQ(engine::detail::gpu_batch_per_device(o, 3), 86u);
  EXPECT_EQ(engine::detail::gpu_batch_per_device(o, 64), engine::detail::kMinGpuBatch);
  o.gpu_batch_blocks = 8;
  EXPECT_EQ(engine::detail::gpu_batch_per_device(o, 4), 8u);
}

// A GPU's plan from the device memory it may use: its lanes and batch where they fit, else fewer
// lanes before smaller batches, and nothing below the smallest batch worth a GPU.
TEST(EngineJob, AGpuPlansItsLanesAndBatchFromItsFreeMemory) {
  using engine::detail::plan_gpu;
  const engine::detail::GpuNeeds needs{100, 50};  // 100 bytes a block, 50 a lane
  auto p = plan_gpu(1'000'000, 3, 128, needs);
  EXPECT_EQ(p.lanes, 3u);
  EXPECT_EQ(p.batch, 128u);
  EXPECT_EQ(p.bytes, 3u * (50 + 128 * 100));
  p = plan_gpu(2 * (50 + 128 * 100), 3, 128, needs);  // two lanes' worth
  EXPECT_EQ(p.lanes, 2u);
  EXPECT_EQ(p.batch, 128u);
  p = plan_gpu(50 + 40 * 100 + 99, 3, 128, needs);  // one lane of 40 blocks
  EXPECT_EQ(p.lanes, 1u);
  EXPECT_EQ(p.batch, 40u);
  EXPECT_LE(p.bytes, 50u + 40 * 100 + 99);
  p = plan_gpu(50 + engine::detail::kMinPlannedBatch * 100 - 1, 3, 128, needs);  // not even the smallest batch
  EXPECT_EQ(p.lanes, 0u);
  p = plan_gpu(50 + 4 * 100, 3, 4, needs);  // a batch smaller than the smallest planned one fits whole
  EXPECT_EQ(p.lanes, 1u);
  EXPECT_EQ(p.batch, 4u);
  EXPECT_EQ(plan_gpu(0, 3, 128, needs).lanes, 0u);
  const engine::detail::GpuNeeds with_device{100, 50, 1000};  // and 1000 once for the device
  p = plan_gpu(1000 + 50 + 40 * 100 + 99, 3, 128, with_device);
  EXPECT_EQ(p.lanes, 1u);
  EXPECT_EQ(p.batch, 40u);
  EXPECT_EQ(p.bytes, 1000u + 50 + 40 * 100);
  EXPECT_EQ(plan_gpu(1000 + 50 + 7 * 100, 3, 128, with_device).lanes, 0u);
}

// Items a GPU gives back (its memory ran out) go back to the queue in input order, before those not
// yet claimed, and a CPU worker takes them.
TEST(EngineJob, ItemsGivenBackAreClaimedAgainInOrder) {
  engine::Trace trace;
  TracedJob job;
  fill_traced_job(job, trace, 12);
  auto first = job.claim(5, true);
  ASSERT_EQ(first.size(), 5u);
  auto second = job.claim(3, true);
  ASSERT_EQ(second.size(), 3u);
  job.give_back(std::move(second));
  job.give_back(std::move(first));
  EXPECT_TRUE(job.work_left());
  std::vector<std::uint64_t> seqs;
  for (auto items = job.claim(1, false); !items.empty(); items = job.claim(1, false)) seqs.push_back(items[0].seq);
  ASSERT_EQ(seqs.size(), 12u);
  for (std::uint64_t k = 0; k < 12; ++k) EXPECT_EQ(seqs[k], k);
  EXPECT_FALSE(job.work_left());
}

// A batch published as one result (the parcomp format's GPU lanes) is a run of seqs: where items
// given back leave a gap in the queue, the claim stops at it (a batch across it was written as if
// its blocks followed one another, and the writer then waited for a block keyed inside it).
TEST(EngineJob, ABatchPublishedAsOneResultIsARunOfSeqs) {
  engine::Trace trace;
  TracedJob job;
  fill_traced_job(job, trace, 12);
  auto a = job.claim(4, true);  // 0 .. 3
  auto b = job.claim(4, true);  // 4 .. 7
  ASSERT_EQ(b.size(), 4u);
  job.give_back(std::move(a));  // the queue: 0 1 2 3 8 9 10 11
  auto run = job.claim(8, true, true);
  ASSERT_EQ(run.size(), 4u);
  for (std::uint64_t k = 0; k < run.size(); ++k) EXPECT_EQ(run[k].seq, k);
  auto rest = job.claim(8, true, true);
  ASSERT_EQ(rest.size(), 4u);
  EXPECT_EQ(rest.front().seq, 8u);
  job.give_back(std::move(b));
  job.give_back(std::move(run));  // 0 1 2 3 4 5 6 7: one run again
  EXPECT_EQ(job.claim(8, true, true).size(), 8u);
}

// The process's device memory cap (device_memory::set_limit, PARCOMP_GPU_MEMORY_LIMIT) refuses an
// allocation past it before CUDA is asked, so it works without a GPU: the seam that makes a GPU
// with little free memory in the GPU tests, and a fake lane's failure here.
TEST(DeviceMemory, TheCapRefusesAnAllocationBeforeCudaIsAsked) {
  const std::uint64_t was = parcomp::device_memory::limit();
  parcomp::device_memory::set_limit(1 << 20);
  EXPECT_THROW(parcomp::DeviceBytes((2 << 20) + 1), parcomp::DeviceMemoryError);
  EXPECT_EQ(parcomp::device_memory::in_use(), 0u);  // a refused allocation holds nothing
  parcomp::device_memory::set_limit(was);
  EXPECT_EQ(parcomp::device_memory::parse_bytes("123"), 123u);
  EXPECT_EQ(parcomp::device_memory::parse_bytes("64K"), 64u << 10);
  EXPECT_EQ(parcomp::device_memory::parse_bytes("2g"), std::uint64_t{2} << 30);
  for (const char* bad : {"", "G", "-1", "1.5G", "12Q", "1GB", "99999999999999999999"})
    EXPECT_THROW(parcomp::device_memory::parse_bytes(bad), parcomp::ContractError) << bad;
}

// A GPU lane whose allocation fails mid-job (the cap above: the fake device) gives its batch back;
// the CPU workers finish every block, and the writer gets each one once, in order.
TEST(EngineJob, ALaneOutOfDeviceMemoryHandsItsBlocksToTheCpuWorkers) {
  const std::uint64_t was = parcomp::device_memory::limit();
  parcomp::device_memory::set_limit(1 << 20);
  engine::Trace trace;
  TracedJob job;
  fill_traced_job(job, trace, 14);
  job.cpu_beside_gpus = 0;
  std::thread lane([&] {
    auto items = job.claim(8, true);
    job.gpu_took_work();
    try {
      const parcomp::DeviceBytes batch(4 << 20);
      ADD_FAILURE() << "the cap let 4 MiB through";
    } catch (const parcomp::DeviceMemoryError&) {
      job.give_back(std::move(items));
      job.gpu_left();
    }
  });
  lane.join();
  parcomp::device_memory::set_limit(was);
  job.workers_running = 1;  // the CPU worker below (the writer waits for it)
  job.cpu_joined();
  std::thread cpu([&] { engine::detail::cpu_worker_loop(job, [](const TraceItem& i, parcomp::cpu::Workspace&) { return static_cast<int>(i.seq) * 3; }); });
  for (std::uint64_t k = 0; k < 14; ++k) {
    const std::optional<int> r = job.next_in_order();
    ASSERT_TRUE(r.has_value()) << k;
    EXPECT_EQ(*r, static_cast<int>(k) * 3);
    job.mark_written(1);
  }
  cpu.join();
  EXPECT_FALSE(job.work_left());
}

namespace {

// engine::may_use_gpus (what the program asks before starting CUDA early) is the rule compress()
// and decompress() follow: false exactly where GPUs are off or the engine keeps the job on the CPU
// workers by its size, format or --threads (its note says so), for both formats, both ways, sizes
// below and from the thresholds and unknown, with and without --threads.
TEST(Engine, MayUseGpusIsTheRuleTheEngineFollows) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = word_text(30'011, seed);
  engine::Options packer = cpu_options(8192);
  const Bytes pcmp = compress(in, packer, seed);
  packer.format = engine::Format::bz2;
  packer.level = 1;
  const Bytes bz2 = compress(in, packer, seed);
  const std::string said_cpu = "runs on the CPU workers (";
  for (const bool is_bz2 : {false, true})
    for (const bool decompress_it : {false, true})
      for (const std::uint64_t declared : {std::uint64_t{0}, std::uint64_t{1000}, std::uint64_t{5000}})
        for (const int threads : {-1, 2})
          for (const bool use_gpus : {true, false}) {
            SCOPED_TRACE(::testing::Message() << (is_bz2 ? ".bz2" : "parcomp") << (decompress_it ? " decompress" : " compress") << ", size "
                                              << declared << ", threads " << threads << (use_gpus ? ", GPUs allowed" : ", --cpu"));
            engine::Options o;
            o.format = is_bz2 ? engine::Format::bz2 : engine::Format::parcomp;
            o.level = 1;
            o.block_bytes = 8192;
            o.use_gpus = use_gpus;
            o.cpu_threads = threads;
            o.gpu_from_bytes = o.gpu_decompress_from_bytes = o.bz2_gpu_from_bytes = o.bz2_gpu_decompress_from_bytes = 2000;
            o.input_bytes = declared;
            std::mutex m;
            bool kept_on_cpu = false, later = false;
            o.on_note = [&](const std::string& s) {
              const std::lock_guard lock(m);
              if (s.find(said_cpu) != std::string::npos) kept_on_cpu = true;
              if (s.find("on the GPUs once") != std::string::npos) later = true;  // unknown size: CUDA starts later, if at all
            };
            const bool may = engine::may_use_gpus(o, decompress_it, is_bz2);
            MemSource src(decompress_it ? (is_bz2 ? bz2 : pcmp) : in, seed);
            MemSink sink;
            if (decompress_it) engine::decompress(src, sink, o);
            else engine::compress(src, sink, o);
            EXPECT_TRUE(decompress_it ? sink.b == in : !sink.b.empty());
            const std::lock_guard lock(m);
            EXPECT_EQ(may, use_gpus && !kept_on_cpu && !later);
            EXPECT_EQ(later, use_gpus && declared == 0 && (!is_bz2 || threads < 0));  // .bz2 with --threads: the CPU workers alone
          }
}

// An input of unknown size (a pipe) starts on the CPU workers, in both formats. The GPUs join (the
// manager's note; none comes in CI, and the bytes are the CPU workers' either way) only once a 32nd
// of the threshold is read and the workers are behind (the reader waits for room), or the whole
// threshold is read: an input that ends within the reader's room never starts CUDA.
// Options::small_input_bytes: an input that ends within it is cut into small_block_bytes blocks,
// by name (its size known) and through a pipe (read ahead) alike, the same bytes as that block size
// asked for; one a byte longer, or with the rule off, into block_bytes blocks.
TEST(Engine, SmallInputsTakeSmallBlocksByNameAndThroughAPipe) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes text = word_text(2'000'001, seed);
  struct Case {
    std::size_t size, small_input;
    std::size_t block;  // the blocks expected
  };
  for (const Case c : {Case{1'500'007, 2'000'000, 262'144}, Case{2'000'000, 2'000'000, 262'144},
                       Case{2'000'001, 2'000'000, 524'288}, Case{1'500'007, 0, 524'288}, Case{0, 2'000'000, 262'144},
                       Case{1, 2'000'000, 262'144}})
    for (const bool sized : {true, false}) {
      SCOPED_TRACE(::testing::Message() << c.size << " bytes, small below " << c.small_input << (sized ? ", size known" : ", a pipe"));
      const Bytes in(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(c.size));
      engine::Options o = cpu_options(524'288);
      o.small_input_bytes = c.small_input;
      o.small_block_bytes = 262'144;
      o.input_bytes = sized ? c.size : 0;
      MemSource src(in, seed);
      MemSink sink;
      const engine::Stats st = engine::compress(src, sink, o);
      EXPECT_EQ(st.blocks, (c.size + c.block - 1) / c.block);
      engine::Options asked = cpu_options(c.block);
      asked.small_input_bytes = 0;
      EXPECT_TRUE(sink.b == compress(in, asked, seed + 1));
      EXPECT_EQ(decompress(sink.b, cpu_options(16384)), in);
    }
  // A pipe that ended within the threshold is then an input of known size: no GPU join for it.
  for (const std::size_t size : {std::size_t{1'500'007}, std::size_t{2'000'001}}) {
    engine::Options o = cpu_options(524'288);
    o.small_input_bytes = 2'000'000;
    o.small_block_bytes = 262'144;
    o.use_gpus = true;
    o.input_bytes = 0;
    std::mutex m;
    std::string notes;
    o.on_note = [&](const std::string& n) {
      const std::lock_guard lock(m);
      notes += n + "\n";
    };
    const Bytes in(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(size));
    MemSource src(in, seed);
    MemSink sink;
    engine::compress(src, sink, o);
    const std::lock_guard lock(m);
    EXPECT_EQ(notes.find("an input of " + std::to_string(size) + " bytes") != std::string::npos, size <= 2'000'000) << notes;
    EXPECT_EQ(notes.find("unknown size") != std::string::npos, size > 2'000'000) << notes;
  }
  engine::Options paper = cpu_options(524'288);  // the paper's configuration keeps its block size
  paper.config = pipeline::Config::paper;
  paper.small_input_bytes = 2'000'000;
  paper.small_block_bytes = 262'144;
  MemSource src(text, seed);
  MemSink sink;
  EXPECT_EQ(engine::compress(src, sink, paper).blocks, 4u);
}

TEST(Engine, PipeInputsStartCudaOnlyOnceTheCpuWorkersFallBehind) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = word_text(1'000'003, seed);  // 11 blocks of 100,000 bytes (.bz2 at -1)
  struct Case {
    std::size_t room;          // blocks read and not yet written
    std::uint64_t threshold;   // the format's GPU threshold
    bool joins;
  };
  for (const auto format : {engine::Format::bz2, engine::Format::parcomp})
    for (const Case c : {Case{64, 32 * 50'000, false},   // the whole input fits the room: it ends first
                         Case{2, 32 * 50'000, true},     // two blocks of room: the workers fall behind
                         Case{64, 200'000, true}}) {     // the whole threshold is read
      SCOPED_TRACE(::testing::Message() << (format == engine::Format::bz2 ? ".bz2" : "parcomp") << ", room " << c.room
                                        << ", threshold " << c.threshold);
      engine::Options o;
      o.format = format;
      o.level = 1;
      o.block_bytes = 100'000;
      o.use_gpus = true;
      o.input_bytes = 0;
      o.max_blocks_in_flight = c.room;
      o.bz2_gpu_from_bytes = o.gpu_from_bytes = c.threshold;
      std::mutex m;
      bool joined = false;
      o.on_note = [&](const std::string& s) {
        const std::lock_guard lock(m);
        if (s.find("the GPUs join") != std::string::npos) joined = true;
      };
      const Bytes packed = compress(in, o, seed);
      engine::Options reader = cpu_options(16384);
      reader.format = format;
      EXPECT_EQ(decompress(packed, reader), in);
      const std::lock_guard lock(m);
      EXPECT_EQ(joined, c.joins);
    }
}

// A .bz2 job on the GPUs by its size starts CPU workers on every hardware thread while CUDA
// starts (Options::cpu_while_cuda_starts): compressing always, decompressing where some are kept
// beside the GPUs (cpu_beside_gpus); they say so and write the bytes of the CPU workers alone,
// whether a GPU then takes the rest or none is there.
TEST(Engine, Bz2JobsOnTheGpusTakeCpuWorkersWhileCudaStarts) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = word_text(350'017, seed);
  engine::Options packer = cpu_options(8192);
  packer.format = engine::Format::bz2;
  packer.level = 1;
  const Bytes bz2 = compress(in, packer, seed);
  for (const bool decompress_it : {false, true})
    for (const bool while_starting : {true, false})
      for (const int beside : {0, 2}) {
        SCOPED_TRACE(::testing::Message() << (decompress_it ? "decompress" : "compress") << (while_starting ? "" : ", workers not asked for")
                                          << ", " << beside << " kept beside the GPUs");
        engine::Options o;
        o.format = engine::Format::bz2;
        o.level = 1;
        o.bz2_gpu_from_bytes = o.bz2_gpu_decompress_from_bytes = 2000;
        o.cpu_while_cuda_starts = while_starting;
        o.cpu_beside_gpus = beside;
        const bool starting = while_starting && (!decompress_it || beside > 0);
        const Bytes& src_bytes = decompress_it ? bz2 : in;
        o.input_bytes = src_bytes.size();
        std::mutex m;
        bool said = false;
        o.on_note = [&](const std::string& s) {
          const std::lock_guard lock(m);
          if (s.find("the CPU workers take blocks at the lowest priority while CUDA starts") != std::string::npos) said = true;
        };
        MemSource src(src_bytes, seed);
        MemSink sink;
        const engine::Stats st = decompress_it ? engine::decompress(src, sink, o) : engine::compress(src, sink, o);
        EXPECT_TRUE(sink.b == (decompress_it ? in : bz2));
        const std::lock_guard lock(m);
        EXPECT_EQ(said, starting);
        if (starting) {
          EXPECT_EQ(st.cpu_workers, std::max(1u, std::thread::hardware_concurrency()));
        }
      }
}

}  // namespace

namespace {

// The engine's kept buffers (detail::Spares: the .bz2 reader's chunks, the .bz2 GPU batches'
// run-length buffers, the parcomp format's GPU output vectors): a buffer is handed out only if it
// is large enough, the last given back first; no more than `keep` are kept, and when full a larger
// one replaces the smallest; from many threads at once none is lost or handed out twice.
// Kept buffers bounded in bytes too (.bz2 decompression's output vectors: a block of long runs
// decodes to 45.9 MB): one larger than the bound is dropped, and one that does not fit replaces
// smaller kept ones, else it is dropped.
TEST(EngineSpares, KeepAtMostTheirBytes) {
  using V = std::vector<int>;
  engine::detail::Spares<V> s(8, [](const V& v) { return v.size(); }, 100);
  s.give_back(V(60, 1));
  s.give_back(V(50, 2));  // 110 > 100, and not larger than the 60: dropped
  EXPECT_EQ(s.kept(), 1u);
  s.give_back(V(30, 3));
  s.give_back(V(80, 4));  // replaces the 30 and the 60
  EXPECT_EQ(s.kept(), 1u);
  s.give_back(V(200, 5));  // larger than the bound: dropped
  auto a = s.take();
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->size(), 80u);
  EXPECT_FALSE(s.take().has_value());
  for (int k = 0; k < 10; ++k) s.give_back(V(10, k));
  EXPECT_EQ(s.kept(), 8u) << "the count's bound first";
}

// Where the writer is slow and results are large (a .bz2 block of long runs decodes to 45.9 MB),
// the results not yet taken by the writer stay within Job::result_bytes_cap (and one worker's
// result): a worker then claims only the item the writer waits for (next_needed), so that the
// writer never waits for ever.
TEST(EngineJob, ResultsWaitingForTheWriterStayWithinTheirBytes) {
  for (const bool bounded : {true, false}) {
    TracedJob job;
    job.cap = 100;
    job.result_bytes_cap = bounded ? 100 : 0;
    job.result_bytes_of = [](const int& r) { return static_cast<std::uint64_t>(r); };
    constexpr std::uint64_t kItems = 12;
    for (std::uint64_t k = 0; k < kItems; ++k) job.push(TraceItem{k});
    job.finish_input();
    std::thread worker([&] {
      for (;;) {
        const auto items = job.claim(1, false);
        if (items.empty()) return;
        job.publish(items.front().seq, 40);
      }
    });
    std::uint64_t most = 0, most_late = 0;  // late: once the writer has taken half of them
    for (std::uint64_t k = 0; k < kItems; ++k) {
      std::unique_lock lock(job.m);
      job.next_needed = k;
      job.cv.notify_all();
      ASSERT_TRUE(job.cv.wait_for(lock, std::chrono::seconds(10), [&] { return job.done.count(k) != 0; })) << "the writer waited for item " << k;
      std::uint64_t held = 0;
      for (const auto& [key, r] : job.done) held += static_cast<std::uint64_t>(r);
      most = std::max(most, held);
      if (k >= kItems / 2) most_late = std::max(most_late, held);
      EXPECT_EQ(job.take_done_locked(k), 40);
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(3));  // a slow writer
    }
    job.halt();
    worker.join();
    if (bounded) {
      EXPECT_LE(most, 140u) << "results piled up past the cap and one result";
      EXPECT_GE(most_late, 80u) << "results taken by the writer free their room: the worker runs ahead again";
    }
    else
      EXPECT_GT(most, 140u) << "without a cap the worker runs ahead (the test's own check)";
  }
}

// The item the writer waits for is claimed even where the results' room is full: a GPU that gave
// its batch's first item back (out of device memory) after publishing the others leaves that item
// at the front of the queue behind a full room (without this the writer waited for ever).
TEST(EngineJob, TheWritersNextItemIsClaimedPastAFullRoom) {
  TracedJob job;
  job.cap = 100;
  job.result_bytes_cap = 100;
  job.result_bytes_of = [](const int& r) { return static_cast<std::uint64_t>(r); };
  for (std::uint64_t k = 0; k < 5; ++k) job.push(TraceItem{k});
  job.finish_input();
  auto batch = job.claim(4, true);
  ASSERT_EQ(batch.size(), 4u);
  for (std::size_t i = 1; i < batch.size(); ++i) job.publish(batch[i].seq, 40);  // 120 bytes: the room is full
  job.give_back({batch.front()});
  auto later = std::async(std::launch::async, [&] { return job.claim(1, false); });
  if (later.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    job.halt();
    FAIL() << "the item the writer waits for was not claimed";
  }
  const auto got = later.get();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got.front().seq, 0u);
  auto after = std::async(std::launch::async, [&] { return job.claim(1, false); });
  EXPECT_EQ(after.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout) << "item 4 waits for room";
  {
    const std::lock_guard lock(job.m);
    (void)job.take_done_locked(1);  // 80 bytes left: room again
  }
  ASSERT_EQ(after.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(after.get().front().seq, 4u);
}

TEST(EngineSpares, KeepAtMostSomeLargeEnoughOnes) {
  using V = std::vector<int>;
  engine::detail::Spares<V> s(2, [](const V& v) { return v.size(); });
  EXPECT_FALSE(s.take().has_value());
  s.give_back(V(10, 1));
  s.give_back(V(20, 2));
  EXPECT_FALSE(s.take(21).has_value());
  auto a = s.take(15);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->size(), 20u);
  s.give_back(V(30, 3));
  s.give_back(V(5, 4));  // full (10 and 30): smaller than both, dropped
  EXPECT_EQ(s.kept(), 2u);
  s.give_back(V(40, 5));  // replaces the 10
  auto b = s.take();
  auto c = s.take();
  ASSERT_TRUE(b.has_value() && c.has_value());
  EXPECT_EQ(b->size() + c->size(), 70u);
  EXPECT_FALSE(s.take().has_value());

  engine::detail::Spares<std::unique_ptr<int>> many(1000, [](const std::unique_ptr<int>&) { return std::size_t{1}; });
  for (int k = 0; k < 64; ++k) many.give_back(std::make_unique<int>(k));
  std::mutex m;
  std::set<int> seen;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int round = 0; round < 2000; ++round) {
        auto p = many.take();
        if (!p) continue;
        many.give_back(std::move(*p));
      }
      for (;;) {
        auto p = many.take();
        if (!p) return;
        const std::lock_guard lock(m);
        EXPECT_TRUE(seen.insert(**p).second) << "handed out twice: " << **p;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(seen.size(), 64u);
}

// Options::leave_to_exit: the kept buffers are let go of without being freed, for the process's
// exit to release; nothing is handed out afterwards.
TEST(EngineSpares, LeaveToExitKeepsThemAlive) {
  using P = std::shared_ptr<int>;
  engine::detail::Spares<P> s(4, [](const P&) { return std::size_t{1}; });
  const P a = std::make_shared<int>(1), b = std::make_shared<int>(2);
  s.give_back(a);
  s.give_back(b);
  s.leave_to_exit();
  EXPECT_EQ(s.kept(), 0u);
  EXPECT_FALSE(s.take().has_value());
  EXPECT_EQ(a.use_count(), 2);  // the left copy was not destroyed
  EXPECT_EQ(b.use_count(), 2);
}

}  // namespace

namespace {
// A source that fails after `fail_at` bytes (an I/O error mid-pipe).
class FailingSource : public engine::Source {
 public:
  FailingSource(const Bytes& b, std::uint64_t seed, std::size_t fail_at) : inner_(b, seed, 3000), fail_at_(fail_at) {}
  std::size_t read(std::uint8_t* buf, std::size_t max) override {
    if (inner_.at() >= fail_at_) throw std::runtime_error("read failed");
    return inner_.read(buf, std::min(max, fail_at_ - inner_.at()));
  }

 private:
  MemSource inner_;
  std::size_t fail_at_;
};
}  // namespace

TEST(Engine, ReadAheadGivesTheSourcesBytesInOrderAndThenItsError) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{4096}, std::size_t{100003}}) {
    Bytes in(size);
    for (auto& c : in) c = static_cast<std::uint8_t>(rng());
    MemSource src(in, seed, 5000);
    engine::detail::ReadAhead ahead(src, 4096, 3);
    Bytes out;
    for (;;) {  // reads of odd sizes, across the pieces
      Bytes buf(1 + rng() % 9000);
      const std::size_t got = ahead.read_full(buf.data(), buf.size());
      out.insert(out.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(got));
      if (got < buf.size()) break;
    }
    EXPECT_EQ(out, in) << size;
    Bytes more(10);
    EXPECT_EQ(ahead.read_full(more.data(), more.size()), 0u) << "the end is the end";
  }
  // The source's error comes after every byte it gave, not instead of them.
  Bytes in(50000, 'x');
  FailingSource src(in, seed, 30000);
  engine::detail::ReadAhead ahead(src, 4096, 2);
  Bytes buf(30000);
  EXPECT_EQ(ahead.read_full(buf.data(), buf.size()), 30000u);
  EXPECT_THROW(ahead.read_full(buf.data(), 1), std::runtime_error);
  // Destroyed while its thread waits for room: it stops.
  MemSource big(in, seed);
  { engine::detail::ReadAhead idle(big, 1024, 2); }
}

// gpu_warmup::wait() returns only once the devices are counted and every context asked for is
// made or failed (without a GPU: counted, none), so that a library call may return and its
// program end at once.
TEST(GpuWarmup, WaitReturnsOnceTheWarmUpIsDone) {
  parcomp::gpu_warmup::start({});
  parcomp::gpu_warmup::wait();
  const parcomp::gpu_warmup::State w = parcomp::gpu_warmup::poll();
  EXPECT_TRUE(w.counted);
  for (const auto& d : w.devices) EXPECT_TRUE(d.done) << "device " << d.id;
}

// The CPU workers that take blocks while CUDA starts run at SCHED_IDLE and go back to the program's
// policy (SCHED_OTHER, or what `chrt` chose) afterwards: the bytes are the same either way, so only this says which. A
// process that may not leave SCHED_IDLE (no CAP_SYS_NICE, RLIMIT_NICE below 20) says so
// beforehand, and then does not yield its workers at all.
TEST(Engine, WorkersYieldAtTheLowestPriorityAndComeBack) {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread t([&] {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return done; });
  });
  const auto policy = [&t] {
    int p = -1;
    sched_param s{};
    EXPECT_EQ(pthread_getschedparam(t.native_handle(), &p, &s), 0);
    return p;
  };
  const int was = policy();  // the program's: SCHED_OTHER, or what `chrt` chose
  EXPECT_TRUE(engine::detail::set_lowest_priority(t, true));
  EXPECT_EQ(policy(), SCHED_IDLE);
  const bool back = engine::detail::set_lowest_priority(t, false);
  EXPECT_EQ(back, engine::detail::idle_priority_reversible()) << "the probe answers for this process";
  EXPECT_EQ(policy(), back ? was : SCHED_IDLE);
  {
    const std::lock_guard lock(m);
    done = true;
  }
  cv.notify_all();
  t.join();
}
