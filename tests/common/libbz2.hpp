// libbz2, bzip2's own library, as the oracle of the .bz2 tests and fuzzers: compression fed as
// bzip2's program feeds it, decompression of one stream, and decompression with the program's
// rules for what follows a stream (bzip2.c's uncompressStream).
#pragma once

#include <bzlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

namespace parcomp::testing {

// libbz2 fed as bzip2's program feeds it: BZ_RUN with 5000-byte reads, then BZ_FINISH.
inline std::vector<std::uint8_t> libbz2_compress(std::span<const std::uint8_t> in, int level) {
  bz_stream s{};
  if (BZ2_bzCompressInit(&s, level, 0, 30) != BZ_OK) throw std::runtime_error("BZ2_bzCompressInit");
  std::vector<std::uint8_t> out(in.size() + in.size() / 50 + 1024);
  std::size_t produced = 0;
  auto step = [&](int action) {
    if (out.size() - produced < 65536) out.resize(out.size() * 2 + 65536);
    s.next_out = reinterpret_cast<char*>(out.data() + produced);
    s.avail_out = static_cast<unsigned>(out.size() - produced);
    const int rc = BZ2_bzCompress(&s, action);
    produced = out.size() - s.avail_out;
    return rc;
  };
  for (std::size_t at = 0; at < in.size(); at += 5000) {
    s.next_in = const_cast<char*>(reinterpret_cast<const char*>(in.data() + at));
    s.avail_in = static_cast<unsigned>(std::min<std::size_t>(5000, in.size() - at));
    while (s.avail_in > 0)
      if (step(BZ_RUN) != BZ_RUN_OK) throw std::runtime_error("BZ2_bzCompress(BZ_RUN)");
  }
  while (true) {
    const int rc = step(BZ_FINISH);
    if (rc == BZ_STREAM_END) break;
    if (rc != BZ_FINISH_OK) throw std::runtime_error("BZ2_bzCompress(BZ_FINISH)");
  }
  BZ2_bzCompressEnd(&s);
  out.resize(produced);
  return out;
}

// What libbz2 makes of one stream at the start of `in`.
struct Libbz2Stream {
  int rc = BZ_OK;              // BZ_STREAM_END, an error code, or BZ_OK: the input ended first
  std::size_t consumed = 0;    // bytes of `in` up to the stream's end (valid with BZ_STREAM_END)
  bool over_cap = false;       // the output passed `cap` before the stream ended
};
inline Libbz2Stream libbz2_stream(std::span<const std::uint8_t> in, std::size_t cap, std::vector<std::uint8_t>& out) {
  bz_stream s{};
  if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK) throw std::runtime_error("BZ2_bzDecompressInit");
  const std::size_t first = out.size();
  std::size_t produced = 0;  // the output grows as it is written: a cap of 64 MiB costs nothing unused
  s.next_in = const_cast<char*>(reinterpret_cast<const char*>(in.data()));
  s.avail_in = static_cast<unsigned>(in.size());
  Libbz2Stream r;
  while (true) {
    if (produced > cap) {
      r.over_cap = true;
      break;
    }
    const std::size_t room = std::min<std::size_t>(cap + 1 - produced, std::max<std::size_t>(produced, 1 << 16));
    out.resize(first + produced + room);
    s.next_out = reinterpret_cast<char*>(out.data() + first + produced);
    s.avail_out = static_cast<unsigned>(room);
    const unsigned in_before = s.avail_in;
    r.rc = BZ2_bzDecompress(&s);
    produced += room - s.avail_out;
    if (r.rc != BZ_OK) break;
    if (s.avail_in == in_before && s.avail_out == room) break;  // wants input there is none of
  }
  r.consumed = in.size() - s.avail_in;
  out.resize(first + produced);
  BZ2_bzDecompressEnd(&s);
  return r;
}

// libbz2's reading of one stream: the bytes, or nullopt where it reports an error; at most `cap`
// bytes of output (a damaged file may claim more).
inline std::optional<std::vector<std::uint8_t>> libbz2_decompress(std::span<const std::uint8_t> in, std::size_t cap) {
  std::vector<std::uint8_t> out;
  const Libbz2Stream r = libbz2_stream(in, cap, out);
  if (r.rc != BZ_STREAM_END) return std::nullopt;
  return out;
}

// bzip2 -d's verdict on a whole file (bzip2.c's uncompressStream over libbz2): streams one after
// the other; after the first, bytes whose header check fails are trailing garbage (ignored), and
// the input ending before a check can fail is a truncated file, as is an empty one.
struct Bzip2Verdict {
  enum Kind { ok, error, over_cap } kind = ok;
  std::vector<std::uint8_t> bytes;
  std::size_t streams = 0, trailing_bytes = 0;
};
inline Bzip2Verdict bzip2_program_decompress(std::span<const std::uint8_t> in, std::size_t cap) {
  Bzip2Verdict v;
  std::size_t at = 0;
  while (true) {
    const Libbz2Stream r = libbz2_stream(in.subspan(at), cap - std::min(cap, v.bytes.size()), v.bytes);
    if (r.over_cap) {
      v.kind = Bzip2Verdict::over_cap;
      return v;
    }
    if (r.rc == BZ_DATA_ERROR_MAGIC && v.streams > 0) {
      v.trailing_bytes = in.size() - at;
      return v;
    }
    if (r.rc != BZ_STREAM_END) {
      v.kind = Bzip2Verdict::error;
      return v;
    }
    ++v.streams;
    at += r.consumed;
    if (at == in.size()) return v;
  }
}

}  // namespace parcomp::testing
