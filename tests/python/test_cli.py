"""The parcomp program as a user runs it (in the manner of zstd's tests/playTests.sh): exit codes,
messages, output names, standard input and output, refusals before any work, no partial file after
an error or a signal, damaged and truncated input, several files, bounded memory. Runs without a
GPU (the engine then uses the CPU workers); PARCOMP_BUILD names the build folder."""
import gzip
import os
import pty
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PARCOMP_BUILD", ROOT / "build"))
PARCOMP = BUILD / "codec" / "parcomp"
GOLDEN = ROOT / "tests" / "golden"

pytestmark = pytest.mark.skipif(not PARCOMP.exists(), reason=f"{PARCOMP} not built (set PARCOMP_BUILD)")


def run(*args, stdin=None, input_bytes=None, cwd=None, timeout=120):
    return subprocess.run([str(PARCOMP), *map(str, args)], input=input_bytes, stdin=stdin, capture_output=True,
                          cwd=cwd, timeout=timeout)


def text(n, seed=1):
    import random
    r = random.Random(seed)
    words = [b"stream ", b"frame ", b"block ", b"GPU ", b"CPU ", b"order\n", b"%d " % seed]
    out = bytearray()
    while len(out) < n:
        out += r.choice(words)
    return bytes(out[:n])


@pytest.fixture
def sample(tmp_path):
    f = tmp_path / "sample.txt"
    f.write_bytes(text(300_000))
    return f


def no_partials(folder: Path):
    return not list(folder.glob("*parcomp-partial*"))


def pc(*args, **kw):
    """parcomp writing the parcomp format (--format parcomp)."""
    return run("--format", "parcomp", *args, **kw)


def test_the_default_is_bzip2_minus_9(sample, tmp_path):
    """`parcomp FILE` writes FILE.bz2, the bytes bzip2 -9 writes, as a bzip2 user expects."""
    r = run(sample)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sample.txt", "sample.txt.bz2"]
    want = subprocess.run(["bzip2", "-9", "-c", str(sample)], capture_output=True, check=True).stdout
    assert (tmp_path / "sample.txt.bz2").read_bytes() == want
    assert run("-c", input_bytes=sample.read_bytes()).stdout == want, "standard input likewise"
    r = run("--block", "1M", sample)
    assert r.returncode == 1 and b"add --format parcomp" in r.stderr
    r = run("--format", "parcomp", "-6", sample)
    assert r.returncode == 1 and b"do not go with --format parcomp" in r.stderr


def test_compress_and_decompress_a_file(sample, tmp_path):
    r = pc(sample)
    assert r.returncode == 0, r.stderr
    packed = tmp_path / "sample.txt.pcmp"
    assert packed.exists() and sample.exists(), "the input is kept by default"
    assert packed.stat().st_size < sample.stat().st_size / 2
    original = sample.read_bytes()
    sample.unlink()
    r = run("-d", packed)
    assert r.returncode == 0, r.stderr
    assert sample.read_bytes() == original and packed.exists()


def test_stdin_to_stdout_and_dash(sample):
    data = sample.read_bytes()
    for fmt in ([], ["--format", "parcomp"]):
        packed = run(*fmt, input_bytes=data).stdout
        assert run("-d", input_bytes=packed).stdout == data
        assert run("-dc", "-", input_bytes=packed).stdout == data
        assert run(*fmt, "-c", sample).stdout == packed, "the same bytes from a file and from a pipe"


def test_stdin_that_is_a_file_and_a_cap_on_device_memory(sample):
    """`parcomp < file` (standard input a regular file, read as a named one) writes the bytes of
    `parcomp file`, and so does a run with --gpu-memory (the GPU, where there is one, shares; a cap
    too small for a batch leaves the blocks to the CPU workers). A size that is not one is a usage
    error."""
    want = run("-c", sample).stdout
    with open(sample, "rb") as f:
        assert run("-c", stdin=f).stdout == want
    with open(sample, "rb") as f:
        f.seek(1000)  # from where the file stands, as any reader of standard input
        assert run("-dc", input_bytes=run("-c", stdin=f).stdout).stdout == sample.read_bytes()[1000:]
    for cap in ("1M", "64K", "2G"):
        r = run("-c", "--gpu-memory", cap, sample)
        assert r.returncode == 0 and r.stdout == want, r.stderr
    for bad in ("0", "12Q", "-1", "G"):
        r = run("-c", "--gpu-memory", bad, sample)
        assert r.returncode == 1 and b"--gpu-memory" in r.stderr, (bad, r.stderr)


def test_rm_removes_the_input_only_after_success(sample, tmp_path):
    r = pc("--rm", sample)
    assert r.returncode == 0 and not sample.exists() and (tmp_path / "sample.txt.pcmp").exists()


def test_test_mode(sample, tmp_path):
    pc(sample)
    packed = tmp_path / "sample.txt.pcmp"
    r = run("-t", packed)
    assert r.returncode == 0 and b"ok" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sample.txt", "sample.txt.pcmp"], "-t writes nothing"


def test_existing_output_is_refused_before_any_work(tmp_path):
    big = tmp_path / "big"
    with open(big, "wb") as f:  # 4 GB, sparse: compressing it would take minutes
        f.truncate(4 << 30)
    out = tmp_path / "big.pcmp"
    out.write_bytes(b"keep me")
    t0 = time.monotonic()
    r = pc(big)
    assert r.returncode == 1
    assert b"big.pcmp exists (use -f to overwrite)" in r.stderr
    assert time.monotonic() - t0 < 5, "the refusal came after work"
    assert out.read_bytes() == b"keep me"


def test_force_overwrites(sample, tmp_path):
    out = tmp_path / "sample.txt.pcmp"
    out.write_bytes(b"old")
    assert pc("-f", sample).returncode == 0
    assert run("-dc", out).stdout == sample.read_bytes()


def test_missing_input_directory_and_unknown_option(tmp_path):
    r = run(tmp_path / "nope")
    assert r.returncode == 1 and b"Can't open input file" in r.stderr and b"No such file" in r.stderr
    r = run(tmp_path)
    assert r.returncode == 1 and b"is a directory" in r.stderr
    r = run("--frobnicate")
    assert r.returncode == 1 and b"unknown option --frobnicate" in r.stderr and b"usage:" in r.stderr
    r = run("-o", tmp_path / "x", "a", "b")
    assert r.returncode == 1 and b"-o takes one input file" in r.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_input(sample):
    sample.chmod(0)
    r = run(sample)
    assert r.returncode == 1 and b"Permission denied" in r.stderr


def test_corrupt_and_truncated_input_exit_2_and_leave_no_file(sample, tmp_path):
    pc(sample)
    packed = (tmp_path / "sample.txt.pcmp").read_bytes()
    cases = {"truncated.pcmp": packed[: len(packed) // 2], "tail.pcmp": packed[:-1],
             "flipped.pcmp": packed[:200] + bytes([packed[200] ^ 0x40]) + packed[201:],
             "trailing.pcmp": packed + b"\0", "garbage.pcmp": b"not a parcomp file at all"}
    for name, data in cases.items():
        f = tmp_path / name
        f.write_bytes(data)
        r = run("-d", f)
        assert r.returncode == 2, (name, r.stderr)
        assert b"corrupt input" in r.stderr, (name, r.stderr)
        assert not (tmp_path / name[:-5]).exists(), f"{name}: a partial output was left"
        assert no_partials(tmp_path)
    r = run("-d", tmp_path / "truncated.pcmp")
    assert b"stream offset" in r.stderr, "a damaged stream names the offset"


def test_decompressing_without_the_suffix_writes_dot_out(sample, tmp_path):
    pc(sample)
    other = tmp_path / "data.bin"
    (tmp_path / "sample.txt.pcmp").rename(other)
    assert run("-d", other).returncode == 0
    assert (tmp_path / "data.bin.out").read_bytes() == sample.read_bytes()


def test_several_files_continue_after_an_error(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(text(1000, 2))
    b.write_bytes(text(2000, 3))
    r = pc(a, tmp_path / "missing", b)
    assert r.returncode == 1
    assert (tmp_path / "a.pcmp").exists() and (tmp_path / "b.pcmp").exists()


def test_version_names_the_commit():
    # A result must name the commit its binary came from: scripts/bz2-times.sh reads this line.
    r = run("--version")
    assert r.returncode == 0
    lines = r.stdout.decode().splitlines()
    assert lines[0].startswith("parcomp ")
    assert re.fullmatch(r"built from commit ([0-9a-f]{40}|unknown)( \(with uncommitted changes\))?", lines[1]), lines


def test_the_program_says_the_projects_one_version():
    cmake = (ROOT / "CMakeLists.txt").read_text()
    version = re.search(r"project\(parcomp VERSION (\S+)", cmake).group(1)
    assert run("--version").stdout.decode().splitlines()[0].startswith(f"parcomp {version} "), version


def test_reads_version_two_containers():
    data = (GOLDEN / "input.bin").read_bytes()
    for name in ("input.bin.fast-16k.pcmp", "input.bin.paper-16k.pcmp"):
        r = run("-dc", GOLDEN / name)
        assert r.returncode == 0, r.stderr
        assert r.stdout == data


def test_empty_and_one_byte(tmp_path):
    for data in (b"", b"x"):
        packed = run(input_bytes=data).stdout
        assert run("-d", input_bytes=packed).stdout == data


def test_compressed_data_is_not_written_to_a_terminal(sample):
    master, slave = pty.openpty()
    try:
        r = subprocess.run([str(PARCOMP), "-c", str(sample)], stdout=slave, stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(slave)
        os.close(master)
    assert r.returncode == 1 and b"not written to a terminal" in r.stderr


def test_progress_line(sample):
    r = run("--progress", "-c", sample)
    assert r.returncode == 0 and b"\rparcomp: " in r.stderr and b"MB" in r.stderr or b"kB" in r.stderr


def test_verbose_says_what_ran_where(sample):
    """Every block is counted where it ran: on the GPUs, or on the host (the CPU workers, or a GPU's
    preparer for blocks of equal rotations)."""
    for args in (["-9"], ["--format", "parcomp"]):
        r = run("-v", *args, "-c", sample)
        m = re.search(rb"(\d+) blocks, (\d+) on \d+ GPU\(s\), (\d+) on the host \(\d+ CPU workers\)", r.stderr)
        assert b"ratio" in r.stderr and m, r.stderr
        blocks, gpu, host = map(int, m.groups())
        assert blocks > 0 and gpu + host == blocks, r.stderr


def test_a_signal_leaves_no_partial_file(tmp_path):
    # An endless input: the program is stopped mid-way; its temporary output must go with it.
    producer = subprocess.Popen(["yes", "parcomp"], stdout=subprocess.PIPE)
    proc = subprocess.Popen([str(PARCOMP), "-o", str(tmp_path / "endless.pcmp"), "-"], stdin=producer.stdout,
                            stderr=subprocess.PIPE)
    producer.stdout.close()
    time.sleep(1.0)
    assert list(tmp_path.glob("*parcomp-partial*")), "no temporary output was being written"
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    producer.kill()
    producer.wait()
    assert proc.returncode != 0
    assert no_partials(tmp_path) and not (tmp_path / "endless.pcmp").exists()


def peak_rss_kib(command: str) -> int:
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1], shell=True, check=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, command], capture_output=True, text=True, check=True, timeout=600)
    return int(out.stdout.split()[-1])


def test_memory_does_not_grow_with_the_input():
    small = peak_rss_kib(f"yes 'parcomp streams any size' | head -c 30000000 | {PARCOMP} | {PARCOMP} -d > /dev/null")
    large = peak_rss_kib(f"yes 'parcomp streams any size' | head -c 300000000 | {PARCOMP} | {PARCOMP} -d > /dev/null")
    assert large < 1.5 * small + 64 * 1024, f"peak RSS {small} KiB for 30 MB, {large} KiB for 300 MB"


def test_a_malformed_container_is_a_corrupt_input_not_a_crash(tmp_path):
    # The 36-byte version-2 file whose block count once overflowed the parser: magic,
    # version 2, config fast, block 2, count 0, original 2^64 - 1, both checksums valid.
    import struct
    import zlib
    head = struct.pack("<IHBBIIQI", 0x504D4350, 2, 1, 0, 2, 0, 2**64 - 1, 0)
    f = tmp_path / "overflow.pcmp"
    f.write_bytes(head + struct.pack("<I", zlib.crc32(head)) + struct.pack("<I", zlib.crc32(b"")))
    r = run("-d", f)
    assert r.returncode == 2, r.stderr
    assert b"header: block count" in r.stderr
    assert not (tmp_path / "overflow").exists() and no_partials(tmp_path)


def test_stats_file_tells_the_run(sample, tmp_path):
    import json
    stats = tmp_path / "run.json"
    r = run("-q", "--stats", stats, "-o", tmp_path / "s.pcmp", sample)
    assert r.returncode == 0, r.stderr
    j = json.loads(stats.read_text())
    assert j["original_bytes"] == sample.stat().st_size
    assert j["compressed_bytes"] == (tmp_path / "s.pcmp").stat().st_size
    assert j["blocks"] >= 1 and j["seconds"] > 0 and j["cpu_workers"] >= 1
    assert j["gpu_blocks"] <= j["blocks"] and (j["gpus"] or j["gpu_blocks"] == 0)
    r = run("--stats", stats, sample, sample)
    assert r.returncode == 1 and b"--stats takes one input file" in r.stderr


# ---- .bz2 ---------------------------------------------------------------------------------------

def program(name):
    import shutil
    return shutil.which(name)


def need(name):
    exe = program(name)
    if exe is None:
        pytest.skip(f"{name} is not installed")
    return exe


@pytest.mark.parametrize("level", [1, 6, 9])
def test_bz2_levels_write_bzip2s_bytes(sample, level):
    bzip2 = need("bzip2")
    ours = run(f"-{level}", "-c", sample)
    assert ours.returncode == 0, ours.stderr
    theirs = subprocess.run([bzip2, f"-{level}", "-c", str(sample)], capture_output=True, check=True).stdout
    assert ours.stdout == theirs


def test_bz2_reads_what_the_bzip2_programs_write(sample):
    ran = 0
    for name, args in (("bzip2", ["-9", "-c"]), ("lbzip2", ["-9", "-n", "2", "-c"]), ("pbzip2", ["-9", "-p2", "-c"])):
        exe = program(name)
        if exe is None:
            continue
        packed = subprocess.run([exe, *args, str(sample)], capture_output=True, check=True).stdout
        r = run("-dc", input_bytes=packed)
        assert r.returncode == 0, (name, r.stderr)
        assert r.stdout == sample.read_bytes(), name
        ran += 1
    if ran == 0:
        pytest.skip("none of bzip2, lbzip2, pbzip2 is installed")


def test_bz2_names_outputs_as_bzip2_does(sample, tmp_path):
    assert run("-9", sample).returncode == 0
    packed = tmp_path / "sample.txt.bz2"
    assert packed.exists()
    original = sample.read_bytes()
    sample.unlink()
    r = run("-d", packed)
    assert r.returncode == 0, r.stderr
    assert sample.read_bytes() == original
    tbz = tmp_path / "archive.tbz2"
    tbz.write_bytes(packed.read_bytes())
    assert run("-d", tbz).returncode == 0
    assert (tmp_path / "archive.tar").read_bytes() == original


def test_bz2_damage_and_truncation_exit_2_and_leave_no_file(sample, tmp_path):
    assert run("--format", "bz2", "-o", tmp_path / "s.bz2", sample).returncode == 0
    good = (tmp_path / "s.bz2").read_bytes()
    bad = tmp_path / "bad.bz2"
    bad.write_bytes(good[:len(good) // 2] + bytes([good[len(good) // 2] ^ 0x20]) + good[len(good) // 2 + 1:])
    r = run("-d", bad)
    assert r.returncode == 2, r.stderr
    assert b"stream 1, block" in r.stderr and b"bit " in r.stderr
    assert not (tmp_path / "bad").exists() and no_partials(tmp_path)
    cut = tmp_path / "cut.bz2"
    cut.write_bytes(good[:-5])
    r = run("-t", cut)
    assert r.returncode == 2 and b"truncated" in r.stderr, r.stderr


def test_bz2_trailing_garbage_is_ignored_with_a_warning(sample, tmp_path):
    assert run("-1", "-o", tmp_path / "s.bz2", sample).returncode == 0
    junk = tmp_path / "junk.bz2"
    junk.write_bytes((tmp_path / "s.bz2").read_bytes() + b"not bzip2")
    r = run("-dc", junk)
    assert r.returncode == 0, r.stderr
    assert r.stdout == sample.read_bytes()
    assert b"trailing garbage" in r.stderr and b"(9 bytes)" in r.stderr


@pytest.mark.parametrize("tail,status", [(b"B", 2), (b"BZ", 2), (b"BZh", 2), (b"BZh9", 2), (b"BZx", 0), (b"BZh0", 0)])
def test_bz2_what_follows_a_stream_is_judged_as_bzip2_judges_it(sample, tmp_path, tail, status):
    # bzip2 -d: the input ending inside what could be a next stream's header is a truncated file
    # (exit 2); other bytes are trailing garbage (a warning, exit 0). Checked against bzip2 where
    # it is installed.
    assert run("-1", "-o", tmp_path / "s.bz2", sample).returncode == 0
    f = tmp_path / "t.bz2"
    f.write_bytes((tmp_path / "s.bz2").read_bytes() + tail)
    r = run("-t", f)
    assert r.returncode == status, r.stderr
    if status == 2:
        assert b"truncated" in r.stderr
    bzip2 = shutil.which("bzip2")
    if bzip2:
        assert subprocess.run([bzip2, "-t", str(f)], capture_output=True).returncode == status


@pytest.mark.parametrize("option,value", [("--gpu-batch", v) for v in ["0", "x", "12k", "-3", "2000000"]] +
                         [("--gpu-lanes", v) for v in ["0", "9", "2x", "-1"]] +
                         [("--blocks-in-flight", v) for v in ["0", "x", "-1", "2000000"]] +
                         [("--gpu-host-piece", v) for v in ["0", "x", "-1", "4097"]] +
                         [("--decoded-in-flight", v) for v in ["0", "x", "-1", "65537"]])
def test_gpu_batch_and_lanes_take_a_count_in_range(sample, option, value):
    r = run(option, value, "-c", sample)
    assert r.returncode == 1 and option.encode() + b" takes a number from 1 to" in r.stderr, r.stderr


@pytest.mark.parametrize("value", ["12", "10x256", "12x128", "x64", "11x64x"])
def test_gpu_walk_takes_one_of_four(sample, value):
    r = run("-d", "--gpu-walk", value, "-c", sample)
    assert r.returncode == 1 and b"--gpu-walk takes 12x256, 12x64, 11x256 or 11x64" in r.stderr, r.stderr


def test_gpu_walk_round_trips(sample, tmp_path):
    # Without a GPU the CPU workers decode; the option is accepted.
    out = tmp_path / "s.bz2"
    assert run("-9", "-q", "-o", out, sample).returncode == 0
    for value in ("12x256", "11x64"):
        back = run("-d", "-c", "--gpu-walk", value, out)
        assert back.returncode == 0 and back.stdout == sample.read_bytes()
    back = run("-d", "-c", "--gpu-host-piece", "1", out)
    assert back.returncode == 0 and back.stdout == sample.read_bytes()
    back = run("-d", "-c", "--decoded-in-flight", "1", out)
    assert back.returncode == 0 and back.stdout == sample.read_bytes()


def test_gpu_batch_round_trips(sample, tmp_path):
    # Without a GPU the CPU workers do the work; the option is accepted in both formats.
    for extra in ([], ["-9"]):
        out = tmp_path / ("s.bz2" if extra else "s.pcmp")
        assert run(*extra, "--gpu-batch", "3", "-q", "-o", out, sample).returncode == 0
        back = run("-d", "-c", "--gpu-batch", "2", out)
        assert back.returncode == 0 and back.stdout == sample.read_bytes()


def test_bz2_option_errors():
    r = run("--format", "gzip", "x")
    assert r.returncode == 1 and b"--format must be bz2 or parcomp" in r.stderr


@pytest.mark.parametrize("extra", [["--format", "parcomp", "--block", "64K"], ["-1"]])  # 64 KiB blocks; .bz2's of 100k
def test_trace_is_the_runs_timeline(sample, tmp_path, extra):
    """--trace: every block read once, worked on by exactly one worker, written once, each lane's
    spans in order and inside the run; the plot script draws a row per lane."""
    packed, trace, stats = tmp_path / "s.out", tmp_path / "t.json", tmp_path / "st.json"
    r = run(*extra, "--threads", "2", "-q", "--stats", stats, "--trace", trace, "-o", packed, sample)
    assert r.returncode == 0, r.stderr
    import json
    for direction in ("compress", "decompress"):
        if direction == "decompress":
            r = run("-d", "--threads", "2", "-q", "--stats", stats, "--trace", trace, "-o", tmp_path / "back", packed)
            assert r.returncode == 0, r.stderr
        doc, st = json.loads(trace.read_text()), json.loads(stats.read_text())
        assert doc["trace"] == "parcomp" and doc["mode"] == direction
        spans = doc["spans"]
        by = lambda what: [s for s in spans if s["what"] == what]
        blocks = st["blocks"]
        assert blocks > 1
        assert sum(s["blocks"] for s in by("block")) == blocks, "each block on exactly one CPU worker"
        assert {s["lane"] for s in by("block")} <= {"cpu 0", "cpu 1"}
        assert sum(s["blocks"] for s in by("write")) == blocks and {s["lane"] for s in by("write")} == {"writer 0"}
        assert len(by("read")) >= blocks if direction == "compress" else len(by("read")) >= 1
        for lane in {s["lane"] for s in spans}:
            mine = sorted((s for s in spans if s["lane"] == lane), key=lambda s: s["start"])
            assert all(0 <= s["start"] <= s["end"] for s in mine)
            assert all(a["end"] <= b["start"] + 1e-6 for a, b in zip(mine, mine[1:])), f"{lane}: spans overlap"
        timeline = subprocess.run([sys.executable, str(ROOT / "plots" / "tool_timeline.py"), str(trace), "--out", str(tmp_path)],
                                  capture_output=True, text=True)
        assert timeline.returncode == 0, timeline.stderr
        assert (tmp_path / "t.png").stat().st_size > 0
        assert sum(1 for line in timeline.stdout.splitlines() if "spans" in line) == len({s["lane"] for s in spans})
        # results/ keeps large traces gzipped: the same drawing from trace.json.gz
        zipped = tmp_path / "z" / "t.json.gz"
        zipped.parent.mkdir(exist_ok=True)
        zipped.write_bytes(gzip.compress(trace.read_bytes()))
        again = subprocess.run([sys.executable, str(ROOT / "plots" / "tool_timeline.py"), str(zipped), "--out", str(zipped.parent)],
                               capture_output=True, text=True)
        assert again.returncode == 0, again.stderr
        assert again.stdout.replace(str(zipped.parent), "") == timeline.stdout.replace(str(tmp_path), "")


def test_trace_to_an_unwritable_place_is_an_error(sample, tmp_path):
    r = run("-q", "--trace", tmp_path / "no" / "such" / "t.json", "-o", tmp_path / "s.pcmp", sample)
    assert r.returncode == 1 and b"cannot write" in r.stderr


def test_a_large_bz2_file_read_in_pieces_on_several_threads(tmp_path):
    # A .bz2 input of 128 MiB and more goes to the GPUs by default (to CPU workers on every thread
    # where none starts, as on a machine without one), and its reader reads 32 MiB at a time with
    # pread() on several threads: every piece in its place, the last read short. From standard
    # input the same bytes come from plain reads.
    import random
    r = random.Random(7)
    unit = bytearray(text(1 << 20, seed=3))
    big = bytearray()
    while len(big) < (136 << 20) + 12345:  # pieces differ: a mutation per MiB
        unit[r.randrange(len(unit))] = r.randrange(256)
        big += unit
    big = bytes(big[: (136 << 20) + 12345])
    f = tmp_path / "big.txt"
    f.write_bytes(big)
    r1 = run("-9", "-c", f, timeout=600)
    assert r1.returncode == 0, r1.stderr
    with open(f, "rb") as stdin:
        r2 = run("-9", "-c", "-", stdin=stdin, timeout=600)
    assert r2.returncode == 0, r2.stderr
    assert r1.stdout == r2.stdout
    packed = tmp_path / "big.txt.bz2"
    packed.write_bytes(r1.stdout)
    back = run("-d", "-c", packed, timeout=600)
    assert back.returncode == 0, back.stderr
    assert back.stdout == big


def test_an_ordinary_users_workers_do_not_stay_at_the_lowest_priority(tmp_path):
    """.bz2 compression from 128 MiB starts its CPU workers at SCHED_IDLE while CUDA starts. A process
    that may not bring a thread back from it (no CAP_SYS_NICE, RLIMIT_NICE below 20: most users)
    replaces them by workers at its own priority once CUDA's start-up is over and no GPU works (here:
    none visible), so that they do not work at the lowest priority for the rest of the job; and
    libbz2's rows of blocks of equal rotations are asked on a thread at its priority. Runs as
    uid 65534 where the tests run as root; skipped where this process may bring threads back."""
    import bz2
    prefix = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as another user needs setpriv(1)")
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    elif resource.getrlimit(resource.RLIMIT_NICE)[0] >= 20 or resource.getrlimit(resource.RLIMIT_NICE)[0] == resource.RLIM_INFINITY:
        pytest.skip("this process may bring a thread back from SCHED_IDLE (RLIMIT_NICE)")
    data = bytes(136 << 20) + text(3_000_000, seed=5)  # one periodic block (libbz2's row), then text
    f = tmp_path / "big.bin"
    f.write_bytes(data)
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    import threading
    policies = set()  # of the CPU workers' threads, sampled from /proc while the job runs
    names = set()
    with open(f, "rb") as stdin:  # a regular file on standard input: its size is known
        p = subprocess.Popen([*prefix, str(PARCOMP), "-v", "-9"], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        out = {}
        reader = threading.Thread(target=lambda: out.update(zip(("stdout", "stderr"), p.communicate(timeout=600))))
        reader.start()
        while p.poll() is None:
            for task in Path(f"/proc/{p.pid}/task").glob("*"):
                try:
                    name = (task / "comm").read_text().strip()
                    names.add(name)
                    if name == "parcomp-cpu":
                        policies.add(int((task / "stat").read_text().rsplit(")", 1)[1].split()[38]))
                except (OSError, IndexError, ValueError):
                    pass  # the thread left
            time.sleep(0.002)
        reader.join()
    assert p.returncode == 0, out["stderr"]
    assert b"may not bring a thread back" in out["stderr"], out["stderr"]
    assert b"workers at the program's priority replace the CPU workers" in out["stderr"], out["stderr"]
    assert 0 in policies, f"the CPU workers' policies: {policies} (SCHED_OTHER is 0, SCHED_IDLE 5)"
    assert "parcomp-ask" in names, f"no thread asks libbz2 for rows at the program's priority: {names}"
    assert out["stdout"] == bz2.compress(data, 9)


def test_a_full_file_system_is_an_error_and_leaves_no_file(tmp_path):
    """A full disk under the output, by write() calls and through mapped windows (codec/file_sink.hpp,
    where a full tmpfs would otherwise raise SIGBUS): exit 1, "write failed" naming the file, and
    nothing left in the full folder. Needs a small tmpfs mounted (root); skipped where that fails."""
    if os.geteuid() != 0 or shutil.which("mount") is None or shutil.which("umount") is None:
        pytest.skip("mounting a small tmpfs needs root and mount(8)")
    mnt = tmp_path / "small"
    mnt.mkdir()
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mnt)], capture_output=True)
    if m.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {m.stderr.decode(errors='replace').strip()}")
    try:
        src = tmp_path / "in.txt"
        src.write_bytes(text(200_000) * 60)  # 12 MB: more than the 8 MB that fit
        r = pc("-q", "--cpu", src)
        assert r.returncode == 0, r.stderr
        for mode in ("write", "map", "auto"):
            r = run("-d", "-f", "--cpu", "--output-io", mode, "-o", mnt / "out.txt", tmp_path / "in.txt.pcmp")
            assert r.returncode == 1, (mode, r.stderr)
            assert b"write failed: " + str(mnt / "out.txt").encode() in r.stderr, (mode, r.stderr)
            assert not list(mnt.iterdir()), (mode, list(mnt.iterdir()))
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


# ---- the file habits of bzip2 and gzip ----------------------------------------------------------

@pytest.mark.parametrize("fmt", [["-9"], ["--format", "parcomp"]])
def test_the_output_gets_the_inputs_mode_and_times(sample, tmp_path, fmt):
    """Both ways, both formats: the output file's mode bits and access and modification times
    (nanoseconds) are the input's, as bzip2 -k and gzip -k leave them."""
    sample.chmod(0o640)
    os.utime(sample, ns=(1_234_567_891_123_456_789, 1_111_111_111_987_654_321))
    assert run(*fmt, sample).returncode == 0
    packed = next(p for p in tmp_path.iterdir() if p.name != sample.name)
    st = packed.stat()
    assert oct(st.st_mode & 0o7777) == "0o640"
    assert (st.st_atime_ns, st.st_mtime_ns) == (1_234_567_891_123_456_789, 1_111_111_111_987_654_321)
    packed.chmod(0o604)
    os.utime(packed, ns=(2_000_000_000_000_000_001, 1_900_000_000_000_000_002))
    sample.unlink()
    assert run("-d", packed).returncode == 0
    st = sample.stat()
    assert sample.read_bytes() == text(300_000)
    assert oct(st.st_mode & 0o7777) == "0o604"
    assert (st.st_atime_ns, st.st_mtime_ns) == (2_000_000_000_000_000_001, 1_900_000_000_000_000_002)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give a file to another owner")
def test_the_output_gets_the_inputs_owner_and_group_as_root(sample, tmp_path):
    os.chown(sample, 65534, 65533)
    assert run("-9", sample).returncode == 0
    st = (tmp_path / "sample.txt.bz2").stat()
    assert (st.st_uid, st.st_gid) == (65534, 65533)


def test_the_output_is_private_while_it_is_written(tmp_path):
    """The temporary output is created 0600 (never readable by others while data lands in it),
    whatever the umask; only the complete file gets the input's mode."""
    src = tmp_path / "in.txt"
    src.write_bytes(text(2_000_000))
    src.chmod(0o644)
    producer = subprocess.Popen(["sh", "-c", f"cat {src}; sleep 3; cat {src}"], stdout=subprocess.PIPE)
    # Standard input to a named output: the partial file exists while the producer sleeps.
    proc = subprocess.Popen([str(PARCOMP), "-9", "-o", str(tmp_path / "out.bz2"), "-"], stdin=producer.stdout,
                            stderr=subprocess.PIPE, preexec_fn=lambda: os.umask(0))
    producer.stdout.close()
    modes = []
    deadline = time.time() + 20
    while proc.poll() is None and time.time() < deadline:
        for p in tmp_path.glob("*parcomp-partial*"):
            try:
                modes.append(p.stat().st_mode & 0o777)
            except FileNotFoundError:  # renamed into place between the listing and the stat
                pass
        time.sleep(0.05)
    proc.wait(timeout=30)
    assert proc.returncode == 0
    assert modes and set(modes) == {0o600}, modes
    assert (tmp_path / "out.bz2").stat().st_mode & 0o777 == 0o666, "from standard input: a new file's mode (umask 0)"
    assert run("-dc", tmp_path / "out.bz2").stdout == src.read_bytes() * 2


def test_a_symbolic_link_is_refused_without_f_as_bzip2_does(sample, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(sample.name)
    r = run("-9", link)
    assert r.returncode == 1 and f"Input file {link} is not a normal file.".encode() in r.stderr
    assert not (tmp_path / "link.bz2").exists()
    # -c and -t follow it, as bzip2's; -f reads it and writes link.bz2.
    assert run("-9", "-c", link).stdout == run("-9", "-c", sample).stdout
    assert run("-9", "-f", link).returncode == 0
    assert run("-dc", tmp_path / "link.bz2").stdout == sample.read_bytes()
    assert run("-t", tmp_path / "link.bz2").returncode == 0


def test_a_fifo_or_device_named_as_a_file_is_refused_without_f(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for args in (["-9", fifo], ["-9", "-c", fifo], ["-d", fifo]):
        r = run(*args, timeout=20)  # refused before it is opened: no writer is ever waited for
        assert r.returncode == 1 and f"Input file {fifo} is not a normal file.".encode() in r.stderr
    r = run("-9", "-c", "/dev/null")
    assert r.returncode == 1 and b"Input file /dev/null is not a normal file." in r.stderr
    writer = subprocess.Popen(["sh", "-c", f"printf 'through a fifo' > {fifo}"])
    r = run("-9", "-f", "-c", fifo, timeout=20)
    writer.wait(timeout=10)
    assert r.returncode == 0 and run("-dc", input_bytes=r.stdout).stdout == b"through a fifo"


def processes_naming(word: str) -> list[str]:
    found = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit() and p.name != str(os.getpid()):
            try:
                if word.encode() in (p / "cmdline").read_bytes():
                    found.append(p.name)
            except OSError:
                pass
    return found


# Runs a command as a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so that the processes it
# leaves behind become this helper's children; prints the command's exit status and how many such
# orphans ended within 5 s, reaped here (a still running one counts as -1000).
ADOPT = r"""
import ctypes, os, subprocess, sys, time
assert ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
adopted, deadline = 0, time.monotonic() + 5
while True:
    try:
        pid, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    if pid != 0:
        adopted += 1
    elif time.monotonic() > deadline:
        adopted -= 1000
        break
    else:
        time.sleep(0.02)
print(rc, adopted)
"""


def test_the_program_leaves_no_process_behind_and_its_output_ends_with_it(tmp_path):
    """By default the program releases its memory and GPU contexts itself and leaves no process
    behind, not even a killed one that an init which does not reap orphans would keep as a zombie.
    PARCOMP_EXIT=child leaves the release to a child that shares them, killed once the program has
    gone: its output is whole and its standard output closed when it exits, and the one orphan it
    leaves is dead."""
    data = text(2_000_000, seed=7)
    for how, orphans in (("", 0), ("child", 1)):
        src = tmp_path / f"leaving-{os.getpid()}-{how or 'default'}.txt"
        src.write_bytes(data)
        env = dict(os.environ, PARCOMP_EXIT=how)
        r = subprocess.run([str(PARCOMP), "-9", "-c", str(src)], capture_output=True, env=env, timeout=120)
        assert r.returncode == 0, r.stderr
        assert run("-d", "-c", input_bytes=r.stdout).stdout == data
        r = subprocess.run([str(PARCOMP), "-9", "-k", str(src)], capture_output=True, env=env, timeout=120)
        assert r.returncode == 0 and run("-d", "-c", f"{src}.bz2").stdout == data
        deadline = time.monotonic() + 5
        while processes_naming(src.name) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert processes_naming(src.name) == []
        r = subprocess.run([sys.executable, "-c", ADOPT, str(PARCOMP), "-9", "-c", str(src)],
                           capture_output=True, text=True, env=env, timeout=120)
        assert r.stdout.split() == ["0", str(orphans)], (how, r.stdout, r.stderr)


def test_the_threads_say_what_they_are(tmp_path):
    """The threads parcomp starts carry names (top -H, /proc/PID/task/*/comm, debuggers): the
    reader and the CPU workers of a .bz2 compression, seen while it runs."""
    f = tmp_path / "in.txt"
    f.write_bytes(text(6_000_000) * 4)
    p = subprocess.Popen([str(PARCOMP), "-9", "--threads", "2", "-c", str(f)], stdout=subprocess.DEVNULL)
    names = set()
    while p.poll() is None:
        try:
            for tid in os.listdir(f"/proc/{p.pid}/task"):
                try:
                    names.add(Path(f"/proc/{p.pid}/task/{tid}/comm").read_text().strip())
                except OSError:
                    pass
        except OSError:
            pass
    assert p.returncode == 0
    assert {"parcomp-read", "parcomp-cpu"} <= names, names
