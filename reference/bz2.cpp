#include "bz2.hpp"

#include "bwt.hpp"
#include "codec/bz2.hpp"

namespace parcomp::reference {

std::vector<std::uint8_t> bz2_compress(std::span<const std::uint8_t> in, int level) {
  bz2::StreamWriter stream(level);
  std::vector<std::uint8_t> out, rle;
  stream.header(out);
  bz2::EncodeScratch scratch;
  bz2::BlockBits bits;
  for (std::size_t at = 0; at < in.size();) {
    const std::span<const std::uint8_t> block = in.subspan(at, bz2::cut_block(in.subspan(at), level, true));
    rle.clear();
    bz2::rle1_encode(block, rle);
    const RotationBwt t = bwt_rotations(rle);
    bz2::encode_block(t.last, t.primary, bz2::block_crc(block), bits, scratch);
    stream.add(bits, out);
    at += block.size();
  }
  stream.finish(out);
  return out;
}

}  // namespace parcomp::reference
