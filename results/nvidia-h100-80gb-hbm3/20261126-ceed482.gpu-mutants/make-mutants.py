import subprocess, sys, shutil, lzma, pathlib
root = pathlib.Path('/work/main')
muts = {
 'link-order': ('kernels/bz2/bz2_decode.cu', 'next[before + static_cast<std::uint32_t>(__popc(peers & below))] = i;',
                'next[before + static_cast<std::uint32_t>(__popc(peers & ~below & ~(1u << lane)))] = i;'),
 'rank-round': ('kernels/bz2/bz2_decode.cu', 'for (std::uint32_t span = 1; span < slots; span *= 2) {', 'for (std::uint32_t span = 2; span < slots; span *= 2) {'),
 'emit-tail': ('kernels/bz2/bz2_decode.cu', 'for (std::uint32_t j = cap; j < d && start + j < n; ++j) {', 'for (std::uint32_t j = cap + 1; j < d && start + j < n; ++j) {'),
 'kept-last-word': ('kernels/bz2/bz2_decode.cu', 'if (d < cap && (d & 3u) != 0) kept[(d - 1) / 4] = word;', 'if (d < cap && (d & 3u) == 3u) kept[(d - 1) / 4] = word;'),
 'word-ahead': ('codec/common/bits.hpp', 'base_ + 4 * (std::uintptr_t{k_} + 1)', 'base_ + 4 * (std::uintptr_t{k_} + 2)'),
}
for name, (f, a, b) in muts.items():
    p = root / f; text = p.read_text()
    assert text.count(a) == 1, (name, text.count(a))
    p.write_text(text.replace(a, b))
    try:
        r = subprocess.run(['cmake', '--build', str(root / 'build-nonv'), '--target', 'parcomp-tests-gpu'], capture_output=True, text=True)
        if r.returncode: print(name, 'build failed', r.stdout[-2000:]); continue
        data = (root / 'build-nonv/tests/parcomp-tests-gpu').read_bytes()
        (pathlib.Path('/tmp/mut') / f'tests-{name}.xz').write_bytes(lzma.compress(data, preset=6))
        print(name, 'ok')
    finally:
        p.write_text(text)
subprocess.run(['cmake', '--build', str(root / 'build-nonv')], capture_output=True)
print('restored', subprocess.run(['git', '-C', str(root), 'status', '--short', 'kernels', 'codec'], capture_output=True, text=True).stdout)
