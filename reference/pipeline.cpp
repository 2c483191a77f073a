#include "pipeline.hpp"

#include "blocks.hpp"
#include "bwt.hpp"
#include "huffman.hpp"
#include "core/errors.hpp"
#include "mtf.hpp"
#include "multi_huffman.hpp"
#include "vle.hpp"
#include "zrle.hpp"

#include <stdexcept>
#include <string>

namespace parcomp::reference {

using pipeline::BlockEntry;
static_assert(kGroupSymbols == pipeline::kFastGroupSymbols && kMaxTables == pipeline::kMaxFastTables &&
              kMultiMaxLength == pipeline::kFastMaxLength, "the container's fast payload holds the multi-table code");

namespace {

std::vector<CodeTable> canonical_tables(const std::vector<Lengths>& lengths) {
  std::vector<CodeTable> t;
  for (const auto& l : lengths) t.push_back(canonical_codes(l));
  return t;
}

// The decoder index: the start bit of every kStride-th symbol.
std::vector<std::uint64_t> stream_index(std::span<const std::uint8_t> symbols, const MultiCode& code) {
  std::vector<std::uint64_t> index;
  std::uint64_t bit = 0;
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    if (i % pipeline::kStride == 0) index.push_back(bit);
    bit += code.lengths[code.selectors[i / kGroupSymbols]][symbols[i]];
  }
  return index;
}

void fast_block(std::span<const std::uint8_t> block, BlockEntry& e, std::vector<std::uint8_t>& payload) {
  const RotationBwt t = bwt_rotations(block, pipeline::kFastSampleStride);
  const auto symbols = zrle_encode(mtf_encode(t.last));
  const MultiCode code = multi_choose(symbols);
  const auto tables = canonical_tables(code.lengths);
  const VleStream s = vle_encode(symbols, tables, code.selectors, kGroupSymbols);
  e.primary = t.primary;
  pipeline::FastPayload p;
  p.symbols = static_cast<std::uint32_t>(symbols.size());
  p.lengths = code.lengths;
  p.selectors = code.selectors;
  p.samples = t.samples;
  p.index = stream_index(symbols, code);
  p.bits = s.bits;
  pipeline::put_fast(payload, p, s.words, static_cast<std::uint32_t>(block.size()));
}

}  // namespace

std::vector<std::uint8_t> pipeline_compress(std::span<const std::uint8_t> in, std::size_t block_bytes, unsigned threads,
                                            pipeline::Config config) {
  if (block_bytes == 0 || block_bytes > (std::size_t{1} << 24))
    throw std::invalid_argument("pipeline_compress: block size must be in 1 .. 2^24");
  pipeline::Layout layout;
  layout.config = config;
  layout.block_bytes = static_cast<std::uint32_t>(block_bytes);
  layout.original_bytes = in.size();
  const std::size_t blocks = (in.size() + block_bytes - 1) / block_bytes;
  layout.blocks.resize(blocks);
  std::vector<std::vector<std::uint8_t>> payloads(blocks);
  for_each_block(blocks, threads, [&](std::size_t b) {
    const auto block = in.subspan(b * block_bytes, std::min(block_bytes, in.size() - b * block_bytes));
    BlockEntry& e = layout.blocks[b];
    e.original_bytes = static_cast<std::uint32_t>(block.size());
    e.crc = pipeline::crc32(block);
    if (config == pipeline::Config::fast) return fast_block(block, e, payloads[b]);
    const RotationBwt t = bwt_rotations(block);
    const auto moved = mtf_encode(t.last);
    e.primary = t.primary;
    e.lengths = huffman_code_lengths(byte_histogram(moved), 16);
    const HuffmanBlocks h = huffman_blocks_encode(moved, canonical_codes(e.lengths), pipeline::kHuffmanBlockSymbols);
    pipeline::put_u32s(payloads[b], h.block_bytes);
    payloads[b].insert(payloads[b].end(), h.bytes.begin(), h.bytes.end());
  });
  return pipeline::assemble(std::move(layout), payloads);
}

std::vector<std::uint8_t> pipeline_decompress(std::span<const std::uint8_t> file, unsigned threads) {
  const pipeline::Layout layout = pipeline::parse(file);
  std::vector<std::uint8_t> out(layout.original_bytes);
  for_each_block(layout.blocks.size(), threads, [&](std::size_t b) {
    const BlockEntry& e = layout.blocks[b];
    const std::string name = "parcomp container: block " + std::to_string(b) + ": ";
    const auto payload = file.subspan(e.payload_offset, e.payload_bytes);
    std::vector<std::uint8_t> moved;
    try {
      if (layout.config == pipeline::Config::paper) {
        if (kraft_sum_scaled(e.lengths) > (std::uint64_t{1} << 32)) throw CorruptDataError(name + "code lengths are not a prefix code");
        const CodeTable table = canonical_codes(e.lengths);
        const auto p = pipeline::split_paper(payload, e.original_bytes, b);
        HuffmanBlocks h;
        h.block_bytes = p.sizes();
        h.bytes.assign(p.data.begin(), p.data.end());
        moved = huffman_blocks_decode(h, e.original_bytes, pipeline::kHuffmanBlockSymbols, table);
      } else {
        const auto p = pipeline::split_fast(payload, e.original_bytes, b);
        VleStream s;
        s.bits = p.bits;
        s.words.resize(p.words_raw.size() / 4);
        for (std::size_t i = 0; i < s.words.size(); ++i)
          for (int k = 0; k < 4; ++k) s.words[i] |= static_cast<std::uint32_t>(p.words_raw[4 * i + k]) << (8 * k);
        moved = zrle_decode(vle_decode(s, p.symbols, canonical_tables(p.lengths), p.selectors, kGroupSymbols), e.original_bytes);
      }
    } catch (const std::invalid_argument& x) {  // the stages' own checks
      throw CorruptDataError(name + x.what());
    }
    const auto last = mtf_decode(moved);
    const auto block = inverse_bwt(last, e.primary);
    if (pipeline::crc32(block) != e.crc) throw CorruptDataError(name + "CRC-32 of the decoded block does not match");
    std::copy(block.begin(), block.end(), out.begin() + static_cast<std::ptrdiff_t>(b) * layout.block_bytes);
  });
  return out;
}

}  // namespace parcomp::reference
