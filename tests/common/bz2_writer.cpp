#include "bz2_writer.hpp"

#include "codec/bz2.hpp"
#include "reference/bwt.hpp"

namespace parcomp::testing {

std::vector<std::uint8_t> bz2_compress(std::span<const std::uint8_t> in, int level, const int* random_numbers) {
  bz2::StreamWriter stream(level);
  std::vector<std::uint8_t> out, rle;
  stream.header(out);
  bz2::EncodeScratch scratch;
  bz2::BlockBits bits;
  for (std::size_t at = 0; at < in.size();) {
    const std::span<const std::uint8_t> block = in.subspan(at, bz2::cut_block(in.subspan(at), level, true));
    rle.clear();
    bz2::rle1_encode(block, rle);
    if (random_numbers != nullptr) {
      int to_go = 0, k = 0;
      for (std::uint8_t& b : rle) {  // libbz2's BZ_RAND_UPD_MASK, then BZ_RAND_MASK
        if (to_go == 0) {
          to_go = random_numbers[k];
          k = (k + 1) % 512;
        }
        --to_go;
        if (to_go == 1) b ^= 1;
      }
    }
    const reference::RotationBwt t = reference::bwt_rotations(rle);
    bz2::encode_block(t.last, t.primary, bz2::block_crc(block), bits, scratch);
    if (random_numbers != nullptr) bits.bytes[10] |= 0x80;  // after the 48-bit magic and 32-bit CRC: "randomised"
    stream.add(bits, out);
    at += block.size();
  }
  stream.finish(out);
  return out;
}

}  // namespace parcomp::testing
