// The bzip2 stream format (.bz2), as bzip2 1.0.8 writes and reads it: the rules shared by the
// tests' one-core writer (tests/common/bz2_writer.hpp), the CPU codec's workers and the GPU pipeline.
// libbz2 is the oracle: the writer's output is byte-identical to `bzip2 -1..-9`'s.
//
// A stream: "BZh" and the level '1'..'9'; blocks; the end marker. Bit-packed MSB first, blocks not
// byte aligned; only the stream's end is padded to a byte. Several streams may follow one another
// (pbzip2 writes one per block).
//   block   48-bit magic 0x314159265359, CRC-32 of the block's bytes (bzip2's CRC: MSB first,
//           polynomial 0x04C11DB7), 1 bit "randomised" (written 0; 1 from bzip2 0.9.0 and older), 24-bit origPtr
//           (the row of the block's own rotation among its sorted rotations), the used bytes (16
//           bits for 16 ranges of 16, then 16 bits per used range), 3 bits table count (2..6), 15
//           bits selector count, the selectors MTF-coded in unary, the tables' code lengths (5 bits
//           for the first, then per symbol "10" up / "11" down / "0" next), and the symbols, a
//           table per 50.
//   end     48-bit magic 0x177245385090, the combined CRC (rotl(c, 1) ^ block CRC over the blocks),
//           zero bits to a byte boundary.
// A block's bytes are the input after the initial run-length stage (runs of 4 to 255 equal bytes
// become 4 bytes and a count 0..251), at most 100000 * level - 19 of them before the last run is
// added; its symbols: the BWT's last column, MTF over the used bytes, runs of zeros as RUNA/RUNB
// digits (bijective base 2), other values v as v + 1, and EOB (used bytes + 1).
#pragma once

#include "core/bits.hpp"
#include "core/default_init.hpp"
#include "core/bz2_block.hpp"   // the format's constants, a block's symbols and inverse BWT (host and device)
#include "core/bz2_encode.hpp"  // a block's bits from its BWT, bzip2's Huffman lengths (host and device)
#include "core/errors.hpp"
#include "core/huge_pages.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace parcomp::bz2 {

// bzip2's CRC-32: MSB first, polynomial 0x04C11DB7, initial and final value inverted.
std::uint32_t crc_update(std::uint32_t crc, std::span<const std::uint8_t> bytes);  // crc starts at 0xFFFFFFFF
inline std::uint32_t block_crc(std::span<const std::uint8_t> bytes) { return ~crc_update(0xFFFFFFFFu, bytes); }
inline std::uint32_t combine_crc(std::uint32_t combined, std::uint32_t block) { return ((combined << 1) | (combined >> 31)) ^ block; }

// ---- the initial run-length stage and where bzip2 cuts blocks ----------------------------------

// The length of the first block of `in` (bzip2's CLI, which feeds the library with BZ_RUN and
// finishes with BZ_FINISH): the block is closed when it holds block_fill(level) bytes, the run being
// read going to the next block; when the input ends first, everything is the block. Returns 0 when
// `in` is not final and the block does not close inside it (more input needed); with `final` the
// result is > 0 for non-empty input. A block's input is at most 45.9 MB (runs of 255 make 5 bytes).
std::size_t cut_block(std::span<const std::uint8_t> in, int level, bool final);

// The same, resumable: `in` is the block's input so far (growing from call to call, the same
// first bytes); the scan continues where the last call stopped. Reset the state for every block.
struct CutState {
  std::size_t scanned = 0, nblock = 0, run_len = 0;
  unsigned run_ch = 256;
};
std::size_t cut_block(CutState& state, std::span<const std::uint8_t> in, int level, bool final);

// Every block cut_block would cut from `in` (a block starts at its first byte), found on `threads`
// threads (0: all): the blocks' lengths in order. With `final` the last block ends at the input's
// end; without it the bytes after the last length are left for more input. Ours: the runs' sizes
// summed per tile of the input in parallel, then each cut found in one or two tiles (on one or two
// threads, cut_block block after block, which is faster there).
std::vector<std::size_t> cut_blocks(std::span<const std::uint8_t> in, int level, bool final, unsigned threads = 0);

// The stage on one block's input (runs are never split across blocks): appends to `out`,
// returns the bytes appended.
template <typename Bytes>  // std::vector<std::uint8_t> or RawBytes (core/default_init.hpp: not zeroed as it grows)
std::size_t rle1_encode(std::span<const std::uint8_t> in, Bytes& out);
extern template std::size_t rle1_encode(std::span<const std::uint8_t>, std::vector<std::uint8_t>&);
extern template std::size_t rle1_encode(std::span<const std::uint8_t>, RawBytes&);
// Its inverse on one block's bytes after the inverse BWT (after four equal bytes, a count of 0 to
// 255 more): appends to `out`. False: the bytes end inside a run (four equal bytes without their
// count); `out` then holds what came before it. Eight bytes a step where no four equal bytes begin.
bool rle1_decode(std::span<const std::uint8_t> in, std::vector<std::uint8_t>& out);
// The same, written from out[from] on (from <= out.size()): the bytes after it are overwritten, not
// kept, so that a recycled vector's stale bytes serve as room instead of being zeroed by resize().
bool rle1_decode(std::span<const std::uint8_t> in, std::vector<std::uint8_t>& out, std::size_t from);
// What rle1_decode makes of `in`, found without making it: how many bytes, and the byte they all
// are where they are one value (a stretch of one byte, as a zero-filled region gives); nullopt
// where `in` ends inside a run.
struct Rle1Measure {
  std::size_t bytes = 0;
  std::optional<std::uint8_t> single;
};
std::optional<Rle1Measure> rle1_measure(std::span<const std::uint8_t> in);
// rle1_decode in pieces: the bytes are made in `room` (at least 512 bytes) and handed to
// emit(piece) each time it is nearly full and at the end, so that a block of long runs (up to
// 45.9 MB) never lies in memory whole; bytes all of one value (rle1_measure) are made once, the
// same piece handed on again. False as rle1_decode (what came before the run emitted).
bool rle1_decode_pieces(std::span<const std::uint8_t> in, std::span<std::uint8_t> room,
                        const std::function<void(std::span<const std::uint8_t>)>& emit);

// ---- writing ----------------------------------------------------------------------------------

// A block as bits (MSB first), from its block magic to its last symbol; bits() of them are used.
struct BlockBits {
  std::vector<std::uint8_t> bytes;
  std::uint64_t bits = 0;
  std::uint32_t crc = 0;  // the block CRC (of the block's input bytes)
};

// The working memory of encode_block, reused from block to block.
struct EncodeScratch {
  std::unique_ptr<EncodeWork> work;  // not zeroed: every field is written before it is read
  RawBytes bits;                     // the block's bits before they are copied out (encoded_bytes_bound)
  // encode_block on several threads: each MTF chunk's symbols and frequencies, each piece's round
  // frequencies.
  std::vector<std::vector<std::uint16_t>> chunk_symbols;
  std::vector<std::array<std::int32_t, kMaxAlphabet>> chunk_freq;
  std::vector<std::array<std::array<std::int32_t, kMaxAlphabet>, kMaxTables>> piece_rfreq;
  std::vector<std::uint32_t> words;       // the bits as words, written by the pieces at once
  std::vector<std::uint32_t> group_bits;  // each group's bits, for where the next one starts
};

// The block's bits from its BWT (`last`, the sorted rotations' last bytes of the stage's output,
// and orig_ptr) and the CRC of its input: bzip2's generateMTFValues and sendMTFValues, step for
// step (table count, starting tables, four rounds of choosing a table per 50 symbols and rebuilding
// code lengths with bzip2's Huffman rule, selectors, codes).
// threads > 1 (ours): the MTF stage in chunks (each chunk's list at its start from the chunks
// before it, as the GPU's encoder does), each round's table choices and the bits' writing in
// pieces of groups run on up to that many threads of the process's pool; the same bits as one
// thread. For a block that
// has the host's threads to itself (a file of one or a few blocks), where the BWT's sort is one
// thread's work either way.
void encode_block(std::span<const std::uint8_t> last, std::uint32_t orig_ptr, std::uint32_t crc, BlockBits& out,
                  EncodeScratch& scratch, unsigned threads = 1);

// Writes origPtr (24 bits, 81 bits after the block magic) into a block's bits: the other row of a
// block of equal rotations, which gives the same L column and so the same bits elsewhere.
void set_orig_ptr(BlockBits& block, std::uint32_t orig_ptr);

// A stream written block by block, its bits packed across block boundaries: header() once,
// add() per block in order, finish() once. Complete bytes are appended to the vector given; the
// partial last byte and the combined CRC are carried from call to call (a stream may be written in
// chunks).
class StreamWriter {
 public:
  explicit StreamWriter(int level);
  void header(std::vector<std::uint8_t>& out);
  void add(const BlockBits& block, std::vector<std::uint8_t>& out);
  void finish(std::vector<std::uint8_t>& out);
  std::uint32_t combined_crc() const { return combined_; }
  std::uint64_t blocks() const { return blocks_; }

 private:
  void put_bits(std::uint64_t value, int n, std::vector<std::uint8_t>& out);
  int level_;
  std::uint32_t combined_ = 0;
  std::uint64_t blocks_ = 0;
  std::uint32_t partial_ = 0;  // the last byte's bits so far, right-aligned
  int partial_bits_ = 0;
};

// ---- reading ----------------------------------------------------------------------------------

// Where a decoder is, for its error messages: "stream 2, block 7 (bit 123456 of the input)";
// stream 0 (a block decoded before its place in the stream is known): "bit 123456 of the input".
struct Where {
  std::uint64_t stream = 1, block = 0, bit = 0;
  std::uint64_t base = 0;  // the input's bit of the decoder's bit 0 (a window of a longer input)
  std::string text() const;
};

// The ruler ranking's arrays (core/bz2_block.hpp), one slot per ruler.
struct RulerScratch {
  std::vector<std::uint32_t> succ, dist, start, resume;
  std::vector<std::uint8_t, HugePageAllocator<std::uint8_t>> kept;  // kRulerKept bytes a slot (not zeroed)
};

// The inverse BWT of the CPU reader: the bytes of the block whose rows tt links (tt[row] = next
// row << 8 | byte, link_rows), from origPtr, into out[0..n); the same bytes as walk(), bzip2's n
// steps. A lone walk waits for each of its n cache misses (a 900k block's links are 3.6 MB). This
// one ranks the chain with the GPU's rulers (ruler_row, ruler_of, ruler_rank) and walks
// kRulerLanes rulers at once on the one core, so that their misses overlap. Each ruler's walk keeps
// the first kRulerKept bytes of its stretch (ours): once ranked they are copied into place, and
// only the rest of a longer stretch (about 2% of a random block's bytes at a ruler every 256 rows)
// and each stretch's last byte are walked again, so the n steps are taken about once, not twice
// (the GPU's ruler_emit walks every stretch again). Returns the length of origPtr's cycle (n, or a
// divisor of n for a periodic block).
inline constexpr int kRulerLanes = 32;
inline constexpr std::uint32_t kRulerKept = 1024;
std::uint32_t walk_rulers(const std::uint32_t* tt, std::uint32_t n, std::uint32_t orig_ptr, std::uint8_t* out, RulerScratch& rs);

// The working memory of decode_block, reused from block to block.
struct DecodeScratch {
  std::vector<std::uint32_t, HugePageAllocator<std::uint32_t>> tt;  // 4 bytes a byte of the block
  std::unique_ptr<DecodeWork> work;
  std::vector<std::uint8_t> bytes;  // the block's bytes after the inverse BWT
  RulerScratch rulers;
};

struct BlockResult {
  std::uint32_t stored_crc = 0;
  std::uint64_t end_bit = 0;  // the bit after the block's last symbol (the next magic's first)
  std::size_t bytes = 0;      // appended to the output
  std::size_t nblock = 0;     // the block's bytes before the inverse run-length stage
  // The block was left before the inverse run-length stage (compact_over below): `out` got its
  // nblock bytes after the inverse BWT (derandomised), which decode to `bytes` bytes (rle1_decode),
  // their CRC checked.
  bool compact = false;
};

// Decodes the block whose magic starts at bit `bit` of `in` (a stream of level `level`), appends its
// bytes to `out` and checks its CRC. Any damage is a CorruptDataError naming `where` and the bit
// offset; a randomised block (bzip2 0.9.0 and older) is read as bzip2 1.0.8 reads it. `in` may be a
// window of a longer input (input_ends_here false): a block that runs past its end is then
// reported as longer than any block, not as truncated.
// overwrite: out's bytes are stale (a recycled vector): the block's bytes are written from out[0] on
// and out ends with them, its old bytes serving as room instead of being zeroed by a resize.
// compact_over (with overwrite): a block that decodes to more bytes than that is left compact
// (BlockResult::compact), for a caller that decodes it in pieces as it writes it.
BlockResult decode_block(std::span<const std::uint8_t> in, std::uint64_t bit, int level, std::vector<std::uint8_t>& out,
                         DecodeScratch& scratch, const Where& where, bool input_ends_here = true, bool overwrite = false,
                         std::size_t compact_over = 0);

// decode_block for a block that may not have arrived whole: nullopt when it runs past in's end
// (more input is needed), any other damage thrown as decode_block throws it.
std::optional<BlockResult> decode_block_if_whole(std::span<const std::uint8_t> in, std::uint64_t bit, int level, std::vector<std::uint8_t>& out,
                                                 DecodeScratch& scratch, const Where& where);

// Damage that decode_symbols found, as a CorruptDataError naming `where` and the bit
// (input_ends_here: see decode_block).
[[noreturn]] void throw_block_error(const BlockSymbols& s, const Where& where, bool input_ends_here);

// A randomised block's bytes after the inverse BWT, back to the initial run-length stage's
// output (bzip2 0.9.0 and older flipped the lowest bit of bytes at positions drawn from a fixed
// table, to break up long runs for their sort); the same call randomises. Both ways: libbz2's rule.
void derandomise(std::span<std::uint8_t> bytes);
std::span<const std::uint16_t, 512> random_numbers();  // the table (for the tests)

// A block's last steps, after the symbols (`s`) and the inverse BWT (`bwt_bytes`, s.nblock of
// them): the inverse of the initial run-length stage, appended to `out` (written over it from
// out[0] with `overwrite`, as decode_block), and the CRC check; the block's magic was at bit `bit`.
// Damage is a CorruptDataError naming `where` (and nothing is left appended). The CPU reader and
// the GPU decoder's host side both end a block here.
// compact_over: as decode_block's (its CRC checked over the bytes made in pieces, not kept).
BlockResult finish_block(std::span<const std::uint8_t> bwt_bytes, const BlockSymbols& s, std::uint64_t bit, std::vector<std::uint8_t>& out,
                         const Where& where, bool overwrite = false, std::size_t compact_over = 0);

// The level of a stream header at byte `at`, 0 when there is none.
int header_level(std::span<const std::uint8_t> in, std::size_t at);
// True when the input ends within what could still be a stream header at `at` ("B", "BZ", "BZh"
// as its last bytes): bzip2's program then reports the file as truncated ("compressed file ends
// unexpectedly"), where other bytes after a stream are trailing garbage that it ignores.
bool header_cut(std::span<const std::uint8_t> in, std::size_t at);

struct DecodeStats {
  std::uint64_t streams = 0, blocks = 0;
  std::size_t trailing_bytes = 0;  // after the last stream: not a stream, ignored as bzip2 does
};

// Every stream of `in`, one after the other, serially: the one-core reader.
std::vector<std::uint8_t> decompress(std::span<const std::uint8_t> in, DecodeStats* stats = nullptr);

// Every bit position in [from_bit, to_bit) of `in` where a block or end magic starts (candidates:
// the 48 bits may also occur inside a block's data).
struct Magic {
  std::uint64_t bit = 0;
  bool end = false;
};
// Large ranges are scanned in pieces on `threads` threads (0: every hardware thread); the
// magics come out in order either way.
void find_magics(std::span<const std::uint8_t> in, std::uint64_t from_bit, std::uint64_t to_bit, std::vector<Magic>& out, unsigned threads = 1);

}  // namespace parcomp::bz2
