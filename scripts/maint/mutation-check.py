#!/usr/bin/env python3
"""Tests that can fail: apply one-line breakages (mutations) one at a time and check that a CPU
test fails for each (the mutation is "killed"); a mutation that survives is a gap in the tests.

    scripts/maint/mutation-check.py [--build build] [--only SUBSTRING] [--markdown]

Each mutation edits one spot of the source (a string that must occur exactly once), rebuilds what
it needs, runs the CPU tests (the C++ test binary, or pytest for the Python tools and the parcomp
program), and restores the file whatever happens; the build is restored at the end. Exit status 1
when a mutation survives. No GPU needed: these are the checks CI runs.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Mutation:
    name: str
    file: str
    find: str
    replace: str
    kind: str  # "cpu" (C++ CPU tests), "python" (pytest of plots and tools), "cli" (the program's tests)


def both(name, file, pairs, kind="cpu"):
    """A mutation that needs several edits of one file (the writer and the reader)."""
    return [Mutation(name + (f" ({i + 1}/{len(pairs)})" if len(pairs) > 1 else ""), file, a, b, kind)
            for i, (a, b) in enumerate(pairs)]


C = "core/container.cpp"
MUTATIONS: list[Mutation | list[Mutation]] = [
    # The container parser, check by check (tests/cpu/test_container.cpp).
    Mutation("parser: magic check removed", C, 'if (get_le<std::uint32_t>(file, 0) != 0x504D4350u) corrupt(', 'if (false) corrupt(', "cpu"),
    Mutation("parser: header CRC check removed", C, 'if (crc32(file.first(28)) != get_le<std::uint32_t>(file, 28)) corrupt(', 'if (false) corrupt(', "cpu"),
    Mutation("parser: version check removed", C, 'if (get_le<std::uint16_t>(file, 4) != kVersion) corrupt(', 'if (false) corrupt(', "cpu"),
    Mutation("parser: configuration check removed", C, 'if (config > 1) corrupt(', 'if (false) corrupt(', "cpu"),
    Mutation("parser: block size check removed", C, 'if (l.block_bytes == 0 || l.block_bytes > (1u << 24)) corrupt(', 'if (false) corrupt(', "cpu"),
    Mutation("parser: block count check removed", C, 'if (count != want_count)', 'if (false)', "cpu"),
    Mutation("parser: block count computed with the old overflow", C,
             'l.original_bytes / l.block_bytes + (l.original_bytes % l.block_bytes != 0 ? 1 : 0)',
             '(l.original_bytes + l.block_bytes - 1) / l.block_bytes', "cpu"),
    Mutation("parser: index CRC check removed", C, 'if (crc32(index) != get_le<std::uint32_t>(file, index_end - 4)) corrupt(', 'if (false) corrupt(', "cpu"),
    Mutation("parser: per-block size check removed", C, 'if (e.original_bytes != want_len) corrupt(', 'if (false) corrupt(', "cpu"),
    Mutation("parser: offset order check removed", C, 'if (e.payload_offset != expect) corrupt(', 'if (false) corrupt(', "cpu"),
    Mutation("parser: primary check removed", C, 'if (e.primary >= e.original_bytes) corrupt(', 'if (false) corrupt(', "cpu"),
    Mutation("parser: code length > 24 check removed", C, 'if (len > 24) corrupt(', 'if (false) corrupt(', "cpu"),
    Mutation("parser: BWT start row check removed", C, 'if ((s = r.get(row_bits(original_bytes))) >= original_bytes) corrupt(',
             'if ((s = r.get(row_bits(original_bytes))) >= original_bytes && false) corrupt(', "cpu"),
    Mutation("parser: index past the end check removed", C, 'if (p.index.back() > p.bits) corrupt(', 'if (false) corrupt(', "cpu"),
    Mutation("parser: stream too long check removed", C, 'if (p.bits > std::uint64_t{p.symbols} * kFastMaxLength) corrupt(', 'if (false) corrupt(', "cpu"),
    # The format itself (the golden files).
    both("format: magic changed on both sides", C, [('put_le<std::uint32_t>(out, 0x504D4350u);  // "PCMP"', 'put_le<std::uint32_t>(out, 0x504D4351u);  // "PCMP"'),
                                                      ('if (get_le<std::uint32_t>(file, 0) != 0x504D4350u)', 'if (get_le<std::uint32_t>(file, 0) != 0x504D4351u)')]),
    both("format: primary and CRC swapped on both sides", C, [
        ('    put_le<std::uint32_t>(out, e.primary);\n    put_le<std::uint32_t>(out, e.crc);', '    put_le<std::uint32_t>(out, e.crc);\n    put_le<std::uint32_t>(out, e.primary);'),
        ('    e.primary = get_le<std::uint32_t>(file, at + 16);\n    e.crc = get_le<std::uint32_t>(file, at + 20);', '    e.primary = get_le<std::uint32_t>(file, at + 20);\n    e.crc = get_le<std::uint32_t>(file, at + 16);')]),
    Mutation("stream format: end marker CRC not checked", "codec/stream_format.cpp", 'check_crc(b, 32, at, "end marker");', '', "cpu"),
    # Fields only the GPU decoder reads, and the code length limits.
    Mutation("oracle: decoder index off by one", "reference/pipeline.cpp", 'if (i % pipeline::kStride == 0) index.push_back(bit);',
             'if (i % pipeline::kStride == 0) index.push_back(bit + (i == 0 ? 0 : 1));', "cpu"),
    Mutation("oracle: paper code length limit 16 -> 20", "reference/pipeline.cpp", 'e.lengths = huffman_code_lengths(byte_histogram(moved), 16);',
             'e.lengths = huffman_code_lengths(byte_histogram(moved), 20);', "cpu"),
    Mutation("CPU codec: decoder index off by one", "codec/cpu_codec.cpp", 'if (i % pipeline::kStride == 0) p.index.push_back(w.bits());',
             'if (i % pipeline::kStride == 0) p.index.push_back(w.bits() + (i == 0 ? 0 : 1));', "cpu"),
    # The generators behind every result's provenance.
    Mutation("generator: the entropy distribution's seed changed", "datasets/synthetic.cpp", "Rng rng(seed ^ 0x5eed5eed5eed5eedULL);",
             "Rng rng(seed ^ 0x5eed5eed5eed5eefULL);", "cpu"),
    # What the plots and tables say.
    Mutation("plot: speedup inverted", "plots/common.py", "pts = [(r.n, cpu[r.n] / r.seconds)", "pts = [(r.n, r.seconds / cpu[r.n])", "python"),
    Mutation("plot: ms drawn as us", "plots/common.py", "[r.seconds * 1e3 for r in rs], marker=markers[v]", "[r.seconds * 1e6 for r in rs], marker=markers[v]", "python"),
    Mutation("plot: MB/s drawn as GB/s", "plots/common.py", "ys = [by[(d, v)].bytes_per_second / 1e6", "ys = [by[(d, v)].bytes_per_second / 1e9", "python"),
    Mutation("plot: GPU dropped from the title", "plots/common.py", 'lines = [f"{experiment}: {gpu}",', 'lines = [f"{experiment}",', "python"),
    Mutation("table: speedup inverted", "plots/summary.py", 'f"{common.fmt_num(cpu.seconds / by[v].seconds)}x"', 'f"{common.fmt_num(by[v].seconds / cpu.seconds)}x"', "python"),
    Mutation("fetch: a bad download kept", "datasets/fetch.py", "            dest.unlink()\n", "", "python"),
    # .bz2 (tests/cpu/test_bz2.cpp against libbz2).
    Mutation("bz2: group of 51 symbols", "core/bz2_block.hpp", "kGroupSize = 50,", "kGroupSize = 51,", "cpu"),
    Mutation("bz2: three table rounds", "core/bz2_block.hpp", "kMaxTables = 6, kIterations = 4;", "kMaxTables = 6, kIterations = 3;", "cpu"),
    Mutation("bz2: a run of 255 not split", "core/bz2_block.hpp", "kHeaderBytes = 4, kMaxRun = 255;", "kHeaderBytes = 4, kMaxRun = 256;", "cpu"),
    Mutation("bz2: a cut's eight-byte step lets the run being read reach four", "codec/bz2.cpp", "if (run_len + lead >= 4) break;",
             "if (run_len + lead >= 5) break;", "cpu"),
    Mutation("bz2: a cut's eight-byte step fills the block inside it", "codec/bz2.cpp", "if (added >= fill) break;",
             "if (added > fill + 6) break;", "cpu"),
    Mutation("bz2: block closed one byte late", "core/bz2_block.hpp", "return block_limit(level) - 19;", "return block_limit(level) - 18;", "cpu"),
    Mutation("bz2: Huffman ties without depth", "core/bz2_encode.hpp",
             "const std::int32_t depth = 1 + ((a & 0xff) > (b & 0xff) ? (a & 0xff) : (b & 0xff));", "const std::int32_t depth = 0;", "cpu"),
    Mutation("bz2: block CRC not checked", "codec/bz2.cpp", "  if (crc != r.stored_crc) {", "  if (false) {", "cpu"),
    Mutation("bz2: stream CRC not checked (engine)", "codec/engine_bz2.cpp", "if (info.stored_crc != combined)", "if (false)", "cpu"),
    Mutation("bz2: a zero run's limit removed", "core/bz2_block.hpp", "if (run > limit - nblock) return fail(", "if (false) return fail(", "cpu"),
    Mutation("bz2: the chain trusts any candidate (engine)", "codec/engine_bz2.cpp", "      if (blocks.count(chain) == 0) {",
             "      if (blocks.count(chain) == 0 && blocks.empty()) {", "cpu"),
    Mutation("bz2: the input ending in a header prefix read as trailing bytes", "codec/bz2.cpp", "      if (header_cut(in, at))",
             "      if (false)", "cpu"),
    Mutation("bz2: a damaged \"BZh\" named as parcomp's only (engine)", "codec/engine.cpp",
             '"neither a parcomp nor a .bz2 file (no parcomp magic and no \\"BZh\\" at the start)"', '"not a parcomp file"', "cpu"),
    Mutation("bz2: the magic filter forgets the end magic", "codec/bz2.cpp", "  for (const std::uint64_t m : {kBlockMagic, kEndMagic})\n    for (int s = 0; s < 8; ++s)\n      for (int j = 0;",
             "  for (const std::uint64_t m : {kBlockMagic})\n    for (int s = 0; s < 8; ++s)\n      for (int j = 0;", "cpu"),
    Mutation("bz2: a magic across a scan piece's edge missed", "codec/bz2.cpp", "std::min(to_bit, a + piece + 47);",
             "std::min(to_bit, a + piece + 46);", "cpu"),
    Mutation("bz2: two CRC slices swapped", "codec/bz2.cpp", "kCrcSlices[3][p[4]] ^ kCrcSlices[2][p[5]]", "kCrcSlices[2][p[4]] ^ kCrcSlices[3][p[5]]", "cpu"),
    # The GPU .bz2 decoder's lines, run on the host (tests/cpu/test_bz2_gpu_steps.cpp).
    Mutation("bz2 GPU: a ruler's stretch one row short", "core/bz2_block.hpp", "for (std::uint32_t j = 0, d = dist[i]; j < d && s + j < n; ++j)",
             "for (std::uint32_t j = 0, d = dist[i]; j + 1 < d && s + j < n; ++j)", "cpu"),
    Mutation("bz2 GPU: the ruler chain stops a row early", "core/bz2_block.hpp", "} while (i != first && i != kNoRuler && p < n);",
             "} while (i != first && i != kNoRuler && p + 1 < n);", "cpu"),
    Mutation("bz2 GPU: a periodic block not repeated", "core/bz2_block.hpp", "if (k >= c && k < n) out[k] = out[k % c];", "if (k > c && k < n) out[k] = out[k % c];", "cpu"),
    Mutation("bz2 GPU: the packed rows lose their bytes", "core/bz2_block.hpp", "tt[row] = tt[row] << 8 | bytes[row];", "tt[row] = tt[row] << 8;", "cpu"),
    Mutation("bz2 GPU walk: the word reader reads a byte past the span", "core/bits.hpp",
             "v = v << 8 | (i >= lo && i < hi ? in[i - lo] : 0u);", "v = v << 8 | (i >= lo && i <= hi ? in[i - lo] : 0u);", "cpu"),
    Mutation("bz2 GPU walk: the word reader's word ahead not moved in", "core/bits.hpp",
             "      lo_ |= static_cast<std::uint32_t>(placed >> 32);\n", "", "cpu"),
    Mutation("bz2 GPU walk: the lookup takes codes past the end-of-block symbol", "kernels/bz2/bz2_steps.hpp",
             "if (sym < 0 || sym == eob || length > Bits - used) break;", "if (sym < 0 || length > Bits - used) break;", "cpu"),
    Mutation("bz2 GPU walk: a group's table taken from the group before", "kernels/bz2/bz2_steps.hpp",
             "    if (g + 1 < n_selectors) next_table = w.selectors[g + 1];", "    if (g + 1 < n_selectors) next_table = w.selectors[g];", "cpu"),
    Mutation("bz2 cut: runs of 256 bytes", "codec/bz2.cpp",
             "return stretch_end(p, r + 1, std::min(n, r + kMaxRun), p[r]);", "return stretch_end(p, r + 1, std::min(n, r + kMaxRun + 1), p[r]);", "cpu"),
    Mutation("bz2 cut_blocks: a tile's runs of 255 in a stretch counted one too many", "codec/bz2.cpp",
             "const std::size_t full = (std::min(se, b) - r - 1) / kMaxRun;", "const std::size_t full = (std::min(se, b) - r) / kMaxRun;", "cpu"),
    Mutation("bz2 cut_blocks: a tile's last stretch start looked for eight bytes a step past starts", "codec/bz2.cpp",
             "load8(p + i - 8) == load8(p + i - 9)) i -= 8;", "load8(p + i - 8) == load8(p + i - 8)) i -= 8;", "cpu"),
    Mutation("bz2 cut_blocks: a tile with stretch starts taken for one stretch", "codec/bz2.cpp",
             "if (stretch_end(p, lo, i, p[lo - 1]) == i) return;", "if (stretch_end(p, lo, i, p[lo - 1]) != lo) return;", "cpu"),
    Mutation("bz2 cut_blocks: a stretch over a whole tile restarts at the next tile", "codec/bz2.cpp",
             "last_start[t - 1] != n ? last_start[t - 1] : first_stretch[t - 1];", "last_start[t - 1] != n ? last_start[t - 1] : a;", "cpu"),
    Mutation("bz2 cut_blocks: a run of four counted as four bytes", "codec/bz2.cpp",
             "f(r, std::size_t{0}, len < 4 ? len : std::size_t{5});", "f(r, std::size_t{0}, len <= 4 ? len : std::size_t{5});", "cpu"),
    Mutation("parallel sort: a suffix that is a prefix of another sorts last", "codec/cpu_codec.cpp",
             "      return verdict != 0 ? verdict < 0 : i > j;", "      return verdict != 0 ? verdict < 0 : i < j;", "cpu"),
    Mutation("parallel sort: eight bytes compared in memory order", "codec/cpu_codec.cpp",
             "if (a != b) return __builtin_bswap64(a) < __builtin_bswap64(b) ? -1 : 1;", "if (a != b) return a < b ? -1 : 1;", "cpu"),
    Mutation("parallel sort: half the buckets outside the sample left unsorted", "codec/cpu_codec.cpp",
             "for_each_block(rest.size(), threads, sort_bucket);", "for_each_block(rest.size() / 2, threads, sort_bucket);", "cpu"),
    Mutation("bz2 writer: the run-length stage's eight-byte step misses runs that start late", "codec/bz2.cpp",
             "return (zero_bytes(w0 ^ w1) & zero_bytes(w1 ^ w2) & zero_bytes(w2 ^ w3)) == 0;",
             "return (zero_bytes(w0 ^ w1) & zero_bytes(w1 ^ w2) & zero_bytes(w2 ^ w3) & 0x80808080ull) == 0;", "cpu"),
    Mutation("bz2 GPU: a byte takes the chunk before its own", "kernels/bz2/bz2_steps.hpp", "if (at[mid] <= i) lo = mid;",
             "if (at[mid] < i) lo = mid;", "cpu"),
    Mutation("bz2 GPU: a chunk's list taken after its own moves", "kernels/bz2/bz2_steps.hpp",
             "  slot[k] = list[k];\n  return list[moved];", "  slot[k] = list[moved];\n  return list[moved];", "cpu"),
    Mutation("bz2 GPU: every block's link offsets from block 0's byte totals", "kernels/bz2/bz2_steps.hpp",
             "for (std::size_t u = 0; u < v; ++u) row += a.link_totals[b * 256 + u];",
             "for (std::size_t u = 0; u < v; ++u) row += a.link_totals[u];", "cpu"),
    Mutation("bz2 GPU: a zero run repeats the list's second value", "kernels/bz2/bz2_steps.hpp",
             "if ((it & 1u) != 0) {\n      const std::uint8_t v = list[0];", "if ((it & 1u) != 0) {\n      const std::uint8_t v = list[1];", "cpu"),
    Mutation("bz2 GPU: a chunk takes the digits of a run an earlier chunk owns", "kernels/bz2/bz2_steps.hpp",
             "  if (i > 0 && symbols[i - 1] <= bz2::kRunB)", "  if (false && i > 0 && symbols[i - 1] <= bz2::kRunB)", "cpu"),
    Mutation("bz2 GPU: runs past the limit not handed to the serial decoder", "kernels/bz2/bz2_steps.hpp",
             "if (n_bytes == 0xffffffffu || bytes + n_bytes > a.limit) return huff(a, b);", "if (n_bytes == 0xffffffffu) return huff(a, b);", "cpu"),
    Mutation("bz2 GPU: a group decodes with the next group's table", "kernels/bz2/bz2_steps.hpp",
             "w.tables[w.selectors[g % bz2::kMaxSelectors]];", "w.tables[w.selectors[(g + 1) % bz2::kMaxSelectors]];", "cpu"),
    Mutation("bz2 GPU: the walk skips one code too many at a lookup", "kernels/bz2/bz2_steps.hpp",
             "br.skip_ahead(static_cast<int>(e >> (4 * left + 4) & 15u));", "br.skip_ahead(static_cast<int>(e >> (4 * left + 8) & 15u));", "cpu"),
    Mutation("bz2 GPU: every encoded block at block 0's place", "kernels/bz2/bz2_encode.cu", "a.work[b], a.out + b * a.stride,",
             "a.work[b], a.out,", "cpu"),
    Mutation("bz2 GPU encoder: a zero run's carry across a chunk edge lost", "core/bz2_encode.hpp",
             "return tail.all_zero ? run + bytes : tail.zeros;", "return tail.zeros;", "cpu"),
    Mutation("bz2 GPU encoder: a group's last word one bit off", "core/bz2_encode.hpp", "acc << (32 - pending)",
             "acc << (31 - pending)", "cpu"),
    Mutation("bz2 GPU: every block walks with block 0's successors", "kernels/bz2/bz2_steps.hpp",
             "s.orig_ptr, i, a.succ + b * slots, a.dist + b * slots);", "s.orig_ptr, i, a.succ, a.dist + b * slots);", "cpu"),
    Mutation("bz2 CPU reader: a lane's stretch one byte short", "codec/bz2.cpp", "const std::uint32_t end = std::min(start[i] + dist[i], n);",
             "const std::uint32_t end = std::min(start[i] + dist[i] - 1, n);", "cpu"),
    Mutation("bz2 CPU reader: a lane whose walk ends takes no next walk", "codec/bz2.cpp", "if (!step(lane[l]) || take(lane[l]))",
             "if (!step(lane[l]))", "cpu"),
    Mutation("bz2: least rotation skips bytes equal to the candidate's first", "codec/cpu_codec.cpp",
             "const std::uint64_t below = 0x0101010101010101ull * (tp[i] + 1u);", "const std::uint64_t below = 0x0101010101010101ull * tp[i];", "cpu"),
    Mutation("bz2: a table's packed cost overlaps its pair's", "core/bz2_encode.hpp",
             "static_cast<std::uint32_t>(t.len[2 * p + 1][v]) << 16;", "static_cast<std::uint32_t>(t.len[2 * p + 1][v]) << 8;", "cpu"),
    Mutation("BWT: a periodic block taken for a primitive one", "codec/cpu_codec.cpp",
             "  if (k == 1) {\n    // The R positions", "  if (k >= 1) {\n    // The R positions", "cpu"),
    Mutation("bz2: least rotation off by one", "codec/cpu_codec.cpp", "return t[x < n ? x : x - n];", "return t[x < n ? x : x - n + 1];", "cpu"),
    Mutation("BWT: equal rotations in ascending start order", "codec/cpu_codec.cpp",
             "(*samples)[x / stride] = static_cast<std::uint32_t>(row_w[x % p] * k + k - 1 - x / p);",
             "(*samples)[x / stride] = static_cast<std::uint32_t>(row_w[x % p] * k + x / p);", "cpu"),
    Mutation("bz2: equal rotations keep our row, not bzip2's", "codec/cpu_codec.cpp",
             "  if (period < rle.size()) {  // bzip2's row of equal rotations", "  if (period < 1) {  // bzip2's row of equal rotations", "cpu"),
    Mutation("bz2: a block's row to come not written into it", "codec/engine_bz2.cpp",
             "if (next.row_later.valid()) bz2::set_orig_ptr(next.bits, next.row_later.get());", "if (next.row_later.valid()) (void)next.row_later.get();", "cpu"),
    Mutation("bz2: a rotation period missed past the first prime factor", "codec/bz2_ties.cpp",
             "while (period % q == 0 && is_period(period / q)) period /= q;", "if (period % q == 0 && is_period(period / q)) period /= q;", "cpu"),
    # Datasets and plots of this suite's own experiments.
    Mutation("tar: header checksum without the spaces", "datasets/tar.cpp", "std::memset(h + 148, ' ', 8);", "", "cpu"),
    Mutation("landscape: the .bz2 mode's sort-only rows taken for its codec", "plots/codecs_landscape.py",
             "if r.variant == BZ2_VARIANT]", "if r.variant.startswith('gpu.')]", "python"),
    Mutation("landscape: weak domination ignored", "plots/codecs_landscape.py",
             "if not any(q[1] <= p[1] and q[2] >= p[2] and (q[1] < p[1] or q[2] > p[2]) for q in pts)]",
             "if not any(q[1] < p[1] and q[2] > p[2] for q in pts)]", "python"),
    # The program.
    Mutation("parcomp --trace: a claim's span ends at its first result", "codec/engine_detail.hpp",
             "if (--c->left == 0) trace->add(", "if (--c->left + 1 == c->blocks) trace->add(", "cpu"),
    Mutation("parcomp: corrupt input exits 1", "codec/parcomp.cpp", "    return kCorrupt;", "    return kEnvironment;", "cli"),
    Mutation("parcomp: partial output kept on errors", "codec/parcomp.cpp", "    if (!committed_) ::unlink(tmp_.c_str());", "", "cli"),
    Mutation("parcomp: the release left to a child by default", "codec/parcomp.cpp",
             '  if (env == nullptr || std::string_view(env) != "child") return;', '  if (env != nullptr && std::string_view(env) == "wait") return;', "cli"),
    Mutation("engine: the CPU workers left at the lowest priority", "codec/engine_detail.hpp",
             "  if (!lowest && pthread_getschedparam(pthread_self(), &policy, &p) != 0) return false;\n", "", "cpu"),
    Mutation("engine: the reader's room counts blocks, not input bytes", "codec/engine_detail.hpp",
             " || (bytes_cap != 0 && held_bytes_ >= bytes_cap); }", "; }", "cpu"),
    Mutation("engine: a block done behind a slow one holds its input in the reader's room", "codec/engine_detail.hpp",
             "    if (held_result_bytes_of && first >= written_blocks", "    if (false && first >= written_blocks", "cpu"),
    Mutation("engine: results held in the reader's room count nothing", "codec/engine_detail.hpp",
             "      held_bytes_ += unwritten_bytes_[at];\n", "", "cpu"),
    Mutation("engine: an ordinary user's CPU workers left at SCHED_IDLE", "codec/engine_detail.hpp",
             "            replace_cpu();\n", "", "cli"),
    Mutation("engine: a replaced CPU worker waiting for a block goes on waiting", "codec/engine_detail.hpp",
             "    return stop || (input_done && pending.empty()) || replaced_locked() ||", "    return stop || (input_done && pending.empty()) ||", "cpu"),
    Mutation("engine: a replaced CPU worker that leaves is not counted", "codec/engine_detail.hpp",
             "    if (replaced_locked()) ++cpu_replaced_gone;\n    --cpu_working;", "    --cpu_working;", "cpu"),
    Mutation("bz2: the row asker's thread never takes an ask", "codec/bz2_ties.cpp",
             "      if (!a->busy) {\n", "      if (false) {\n", "cpu"),
    Mutation("bz2: a forked process hands its asks to the parent's asker", "codec/bz2_ties.cpp",
             "  return a != nullptr && a->pid == ::getpid() ? a : nullptr;", "  return a;", "cpu"),
    Mutation("bz2: a forked process waits for its parent's kept row in flight", "codec/bz2_ties.cpp",
             "    if (kept.pid != ::getpid()) {", "    if (false) {", "cpu"),
    Mutation("engine: .bz2 compression starts no row asker", "codec/engine_bz2.cpp",
             "  bz2::start_asking();", "", "cli"),
    Mutation("engine: CPU workers beside a GPU take the oldest block", "codec/engine_detail.hpp",
             "    const bool newest = cpu_claims_newest && gpu_working", "    const bool newest = false && gpu_working", "cpu"),
    Mutation("engine: a CPU worker takes the newest block past a full room", "codec/engine_detail.hpp",
             " && pending.size() > 1 && (result_bytes_cap == 0 || done_bytes_ < result_bytes_cap);", " && pending.size() > 1;", "cpu"),
    Mutation("engine: .bz2 decompression takes CPU workers while CUDA starts with none kept beside", "codec/engine_bz2.cpp",
             "    if (decompress && cpu_beside_gpus(o) == 0) o.cpu_while_cuda_starts = false;", "", "cpu"),
    Mutation("engine: .bz2 decompression takes no CPU workers while CUDA starts with some kept beside", "codec/engine_bz2.cpp",
             "    if (decompress && cpu_beside_gpus(o) == 0) o.cpu_while_cuda_starts = false;", "    if (decompress) o.cpu_while_cuda_starts = false;", "cpu"),
    Mutation("engine: a GPU's batch never closes at its bytes", "codec/engine_detail.hpp",
             "(max_bytes == 0 || out.empty() || taken + size_of(pending.front()) <= max_bytes)", "true", "cpu"),
    Mutation("engine: results waiting for the writer without a room", "codec/engine_detail.hpp",
             "  bool room_for_results() const { return result_bytes_cap == 0 || done_bytes_ < result_bytes_cap || pending.front().seq <= next_needed; }",
             "  bool room_for_results() const { return true; }", "cpu"),
    Mutation("engine: the writer's next item waits for the results' room", "codec/engine_detail.hpp",
             " || pending.front().seq <= next_needed; }", "; }", "cpu"),
    Mutation("engine: kept buffers bounded in number alone", "codec/engine_detail.hpp",
             "    while (kept_.size() >= keep_ || bytes_ + size > max_bytes_) {", "    while (kept_.size() >= keep_) {", "cpu"),
    Mutation("engine: .bz2 blocks of long runs decoded whole by the workers", "codec/engine_bz2.cpp",
             "c.window_is_end, true, kBz2ExpandOnWrite);", "c.window_is_end, true, 0);", "cpu"),
    Mutation("bz2: blocks past compact_over decoded whole", "codec/bz2.cpp",
             "      if (rest && at - before + rest->bytes > limit) throw OverLimit{};", "", "cpu"),
    Mutation("bz2 GPU decoder: its host side ends every block whole", "codec/bz2_gpu.cpp",
             "blocks[i].where, true,\n                         compact_over);", "blocks[i].where, true,\n                         0);", "cpu"),
    Mutation("bz2: a compact block's CRC not checked", "codec/bz2.cpp",
             "      if (crc != s.stored_crc)\n        corrupt(where, bit,", "      if (false)\n        corrupt(where, bit,", "cpu"),
    Mutation("bz2: rle1_measure takes bytes of several values for one", "codec/bz2.cpp",
             "  if (same) m.single = c;", "  m.single = c;", "cpu"),
    Mutation("engine: a compact block not written", "codec/engine_bz2.cpp",
             "        bz2::rle1_decode_pieces(d.bytes, piece, [&out](std::span<const std::uint8_t> p) { out.write(p.data(), p.size()); });",
             "        {}", "cpu"),
    Mutation("bz2: rle1_decode's sixteen-byte step keeps the copy past the first run's start", "codec/bz2.cpp",
             "      o += j;\n      p += j;\n      const std::size_t len", "      o += 16;\n      p += j;\n      const std::size_t len", "cpu"),
    Mutation("bz2: rle1_decode's sixteen-byte step skips the run's count twice", "codec/bz2.cpp",
             "      o += len;\n      p += 5;\n    }\n#endif", "      o += len;\n      p += 6;\n    }\n#endif", "cpu"),
    Mutation("bz2: rle1_encode's sixteen-byte step keeps the bytes past the first run's start", "codec/bz2.cpp",
             "        o += j;\n        i += j;\n        break;", "        o += 16;\n        i += j;\n        break;", "cpu"),
    Mutation("bz2: rle1_decode_pieces drops the last piece", "codec/bz2.cpp",
             "  if (o != start) emit({start, static_cast<std::size_t>(o - start)});", "", "cpu"),
    Mutation("parallel: copy_bytes leaves each piece's last byte", "core/parallel.hpp",
             "std::memcpy(to + at, from + at, std::min(kPiece, n - at));", "std::memcpy(to + at, from + at, std::min(kPiece - 1, n - at));", "cpu"),
    # The output file through mapped windows, the GPUs' shared batch, the engine's GPU rule, the kept buffers.
    Mutation("parallel: copy_bytes takes every piece from the source's start", "core/parallel.hpp",
             "std::memcpy(to + at, from + at, std::min(kPiece, n - at));", "std::memcpy(to + at, from, std::min(kPiece, n - at));", "cpu"),
    Mutation("FileSink: the file not cut to what was written", "codec/file_sink.cpp",
             "  if ((mapping_ || extended_) && ::ftruncate(fd_, static_cast<off_t>(pos_)) != 0) fail(errno, \"\");", "", "cpu"),
    Mutation("FileSink: a file system that will not map is an error", "codec/file_sink.cpp",
             "  if (error_ != 0 && mapped_to_ == 0 && error_ != ENOSPC", "  if (false && error_ != 0 && mapped_to_ == 0 && error_ != ENOSPC", "cpu"),
    Mutation("FileSink: automatic maps on every file system", "codec/file_sink.cpp",
             "bool FileSink::automatic_maps_on(long fs_type) { return fs_type == TMPFS_MAGIC; }",
             "bool FileSink::automatic_maps_on(long fs_type) { return fs_type != 0; }", "cpu"),
    Mutation("FileSink: the file lengthened before the fallback not cut", "codec/file_sink.cpp",
             "if ((mapping_ || extended_) && ::ftruncate(", "if (mapping_ && ::ftruncate(", "cpu"),
    Mutation("FileSink: the pages' faults not checked, a full disk raising SIGBUS", "codec/file_sink.cpp",
             "            if (e == 0) continue;", "            continue;", "cli"),
    Mutation("bz2 GPU walk: an entry's total length one bit short", "kernels/bz2/bz2_steps.hpp",
             "| static_cast<std::uint32_t>(count) << 5 | static_cast<std::uint32_t>(used);", "| static_cast<std::uint32_t>(count) << 5 | static_cast<std::uint32_t>(count > 2 ? used - 1 : used);", "cpu"),
    Mutation("bz2 GPU walk: four whole entries taken with 19 to 24 codes left", "kernels/bz2/bz2_steps.hpp",
             "while (left > 4 * kWalkMaxCodes) {", "while (left > 3 * kWalkMaxCodes) {", "cpu"),
    Mutation("engine: a GPU's claim waits for a full batch past the reader's room", "codec/engine_detail.hpp",
             "input_done || reader_held()));", "input_done));", "cpu"),
    Mutation("engine: each GPU takes the whole batch", "codec/engine_detail.hpp",
             "(o.gpu_batch_blocks + gpus - 1) / gpus);", "(o.gpu_batch_blocks + gpus - 1) / 1);", "cpu"),
    Mutation("engine: may_use_gpus with the formats' rules swapped", "codec/engine.cpp",
             "  return bz2 ? detail::bz2_may_use_gpus(o, decompress) : pcmp_may_use_gpus(o, decompress);",
             "  return !bz2 ? detail::bz2_may_use_gpus(o, decompress) : pcmp_may_use_gpus(o, decompress);", "cpu"),
    Mutation("engine: kept buffers never replaced by larger ones", "codec/engine_detail.hpp",
             "      if (size_of_(*smallest) >= size) return;", "      return;", "cpu"),
    Mutation("bz2 writer: a block's bits copied out one byte short", "codec/bz2.cpp",
             "out.bytes.assign(scratch.bits.data(), scratch.bits.data() + (out.bits + 7) / 8);",
             "out.bytes.assign(scratch.bits.data(), scratch.bits.data() + (out.bits + 7) / 8 - 1);", "cpu"),
    Mutation("bz2 encoder on threads: a zero run across chunks dropped", "codec/bz2.cpp",
             "run_in[c] = mtf_run_after(run_in[c - 1], at(c) - at(c - 1), tails[c - 1]);", "run_in[c] = 0;", "cpu"),
    Mutation("run_experiments: rows skipped for a missing dataset kept as results", "scripts/run_experiments.py",
             'return None if m.group(1) in accepted else f"dataset {m.group(1)}"', "return None", "python"),
    Mutation("run_experiments: --split ignored", "scripts/run_experiments.py",
             "if split is None or not re.search(split, e):", "if True:", "python"),
    Mutation("run_experiments: --merge-only runs the parts left", "scripts/run_experiments.py",
             "            if a.merge_only:\n                left_over.append(u.key)", "            if False:\n                left_over.append(u.key)", "python"),
    Mutation("suite-call: a bundle of another commit taken", "scripts/maint/suite-call.sh",
             '[[ "$built" == "$sha"* ]] || die', "true || die", "python"),
    Mutation("suite-call: the parts not returned", "scripts/maint/suite-call.sh", "trap pack EXIT\n", "\n", "python"),
    Mutation("suite-call: held rows not put back", "scripts/maint/suite-call.sh", "pack() { restore; sweep; tar", "pack() { sweep; tar", "python"),
    Mutation("suite-call: a run merged while rows are held", "scripts/maint/suite-call.sh",
             '  rm -f "$out/bench.json"\n  [ "$rc" -ne 0 ] || rc=3\n', "", "python"),
    Mutation("suite-call: dropped rows run all the same", "scripts/maint/suite-call.sh",
             "if n not in mine and n not in gone", "if n not in mine", "python"),
    Mutation("suite_estimate: the rows left estimated by their count", "scripts/maint/suite_estimate.py",
             "got = rows_share(rows, base, names, these) if base is not None and rows else None", "got = None", "python"),
    Mutation("suite_estimate: another GPU's seconds taken as this one's", "scripts/maint/suite_estimate.py",
             "base = gpus[g].seconds[key] * slower[g]", "base = gpus[g].seconds[key]", "python"),
    Mutation("suite_estimate: a stop at a deadline forgotten", "scripts/maint/suite_estimate.py",
             "need = max(need or 0.0, floor)", "pass", "python"),
    Mutation("suite_estimate: a stopped part's floor kept whole for rows held back", "scripts/maint/suite_estimate.py",
             "floor *= part_of(todo) / part_of(todo + kept)", "pass", "python"),
    Mutation("suite_estimate: a stopped part's floor kept whole for the rows done since", "scripts/maint/suite_estimate.py",
             "floor = 1.5 * max(0.0, mine.stopped[key] - mine.done_since.get(key, 0.0)) + 30", "floor = 1.5 * mine.stopped[key] + 30", "python"),
    Mutation("suite_estimate: an earlier run's row times left out", "scripts/maint/suite_estimate.py",
             "rows = (earlier or {}).get(key) or rows", "rows = rows", "python"),
    Mutation("merge_results: only the first file's dataset records kept", "scripts/merge_results.py",
             '            datasets.setdefault(key, record)', '            datasets.setdefault(key, record) if path is first_path else None', "python"),
    Mutation("plots: figures written as RGBA, not a palette", "plots/common.py",
             "rgb.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(", "rgb.save(", "python"),
    Mutation("run_experiments: a part shares the runner's process group", "scripts/run_experiments.py",
             "start_new_session=True)", "start_new_session=False)", "python"),
    Mutation("run_experiments: a part's process group not killed", "scripts/run_experiments.py",
             "os.killpg(proc.pid, signal.SIGKILL)", "pass", "python"),
    Mutation("run_experiments: the merge forgets the dropped rows", "scripts/run_experiments.py",
             'doc["context"]["parcomp_dropped"] = dropped', "pass", "python"),
    Mutation("suite-call: a part stopped at the deadline forgotten", "scripts/maint/suite-call.sh",
             'f.write_text(f"{seconds:.0f}\\n")', "pass", "python"),
    Mutation("suite-call: a stop does not name the rows it was running", "scripts/maint/suite-call.sh",
             "            rows.write_text(todo.read_text())", "            pass", "python"),
    Mutation("compare: scaling with bandwidth asks for 90% of its gain", "scripts/compare",
             "if bw > 1.05 and med - 1 >= 0.5 * (bw - 1):", "if bw > 1.05 and med - 1 >= 0.9 * (bw - 1):", "python"),
    Mutation("compare: an experiment without GPU rows left out of scaling.md", "scripts/compare",
             "        if not gpu:  # still a line: what it follows instead, measured\n            if not points:",
             "        if not gpu:  # still a line: what it follows instead, measured\n            if True:", "python"),
    Mutation("compare: end-to-end rows counted as device-timed", "scripts/compare",
             'return "gpu" in tokens and "e2e" not in tokens', 'return "gpu" in tokens', "python"),
    Mutation("plots: a log rate axis starting just below the smallest bar", "plots/common.py",
             "limits = (step_125_below(min(lo / 1.2, hi / 10)), hi * 1.5)", "limits = (lo / 1.05, hi * 1.5)", "python"),
    Mutation("thread-states: no line of the process's memory", "scripts/maint/thread-states.py",
             "            if m is not None:\n", "            if False:\n", "python"),
]


def flat(ms):
    for m in ms:
        if isinstance(m, list):
            yield m
        else:
            yield [m]


def run(cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kw)


def build(build_dir: Path, target: str) -> bool:
    r = run(["cmake", "--build", str(build_dir), "--target", target])
    return r.returncode == 0


def tests_fail(kind: str, build_dir: Path) -> tuple[bool, str]:
    env = dict(os.environ, PARCOMP_BUILD=str(build_dir))
    if kind == "cpu":
        try:
            r = subprocess.run([str(build_dir / "tests" / "parcomp-tests-cpu"), "--gtest_brief=1"], cwd=ROOT, capture_output=True,
                               text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return True, "the tests hang (killed after 300 s; ctest fails a CPU test after 600 s)"
        failed = [l.split("]", 1)[1].strip().split(",")[0].split(" (")[0] for l in r.stdout.splitlines()
                  if l.startswith("[  FAILED  ]") and "listed below" not in l and "FAILED TEST" not in l]
        if failed:
            return True, failed[0]
        return r.returncode != 0, ("crashed (signal %d)" % -r.returncode if r.returncode < 0 else "exit %d" % r.returncode)
    files = ["tests/python/test_cli.py"] if kind == "cli" else ["tests/python/test_plot_content.py", "tests/python/test_plots.py",
                                                                 "tests/python/test_fetch.py", "tests/python/test_tools.py",
                                                                 "tests/python/test_run_experiments.py", "tests/python/test_suite_call.py",
                                                                 "tests/python/test_suite_estimate.py"]
    # Deselected: the row check, which any mutation's edit trips (its text is gone while it is applied).
    r = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "--deselect",
                        "tests/python/test_tools.py::test_every_mutation_still_finds_its_line", *files], cwd=ROOT, capture_output=True, text=True, env=env, timeout=900)
    failed = [l.split("::")[-1].split()[0] for l in r.stdout.splitlines() if l.startswith("FAILED")]
    return r.returncode != 0, (failed[0] if failed else ("exit %d" % r.returncode))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", type=Path, default=ROOT / "build")
    ap.add_argument("--only", default="")
    ap.add_argument("--markdown", action="store_true", help="print the table only")
    args = ap.parse_args(argv)
    # Every mutation's text must still be there, once, before anything is built (a list gone stale
    # after a refactoring fails at once, not after half an hour of builds).
    stale = [f"'{m.name}': {(ROOT / m.file).read_text().count(m.find)} times in {m.file}"
             for group in flat(MUTATIONS) for m in group if args.only in m.name and (ROOT / m.file).read_text().count(m.find) != 1]
    if stale:
        raise SystemExit("mutations whose text to change does not occur exactly once:\n  " + "\n  ".join(stale))
    rows, survived = [], 0
    for group in flat(MUTATIONS):
        name = group[0].name.split(" (")[0]
        if args.only not in name:
            continue
        originals = {}
        t0 = time.monotonic()
        try:
            for m in group:
                path = ROOT / m.file
                text = originals.setdefault(m.file, path.read_text()) if m.file not in originals else path.read_text()
                if text.count(m.find) != 1:
                    raise SystemExit(f"mutation '{m.name}': the text to change occurs {text.count(m.find)} times in {m.file}")
                text = text.replace(m.find, m.replace, 1)
                path.write_text(text)
            kind = group[0].kind
            if kind in ("cpu", "cli"):
                target = "parcomp-tests-cpu" if kind == "cpu" else "parcomp"
                if not build(args.build, target):
                    rows.append((name, "killed", "does not compile"))
                    continue
            killed, by = tests_fail(kind, args.build)
            rows.append((name, "killed" if killed else "SURVIVED", by if killed else "-"))
            survived += 0 if killed else 1
        finally:
            for f, text in originals.items():
                (ROOT / f).write_text(text)
        if not args.markdown:
            print(f"{rows[-1][1]:9} {name} ({time.monotonic() - t0:.0f} s): {rows[-1][2]}", file=sys.stderr)
    build(args.build, "parcomp-tests-cpu")
    build(args.build, "parcomp")
    print("| mutation | result | killed by |")
    print("|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
