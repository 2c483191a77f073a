#!/usr/bin/env python3
"""python.read (ours): .bz2 read from Python, and one .bz2 CSV on a Dask cluster.

  python_bench.py make-csv OUT --bytes 3G [--seed 1]
      A CSV of that many bytes (whole lines), the same bytes for the same seed and size on any
      host: one row per event (id, time, user, country, kind, amount, score, comment), made in
      64 MiB pieces on every core, piece k from the seed and k alone.
  python_bench.py read FILE --runs 3 [--readers parcomp,indexed_bzip2,rapidgzip,bz2,program]
      Each reader reads FILE to its end in a process of its own (the wall a user waits for,
      start to exit), the readers' runs interleaved; every reader's byte count compared.
  python_bench.py dask FILE.csv.bz2 --runs 2 --workers 4 [--blocksize 64MiB]
      A distributed.LocalCluster of that many worker processes; per run, in random order,
      parcomp.dask.read_csv (one file, many partitions) and Dask's own read_csv
      (compression="bz2": one partition per file) count the rows and sum two columns; the
      results compared, the wall of each compute.

Each measurement is a JSON line on stdout: {"name", "seconds": [...], "median", "min", "max", ...};
with --jsonl FILE also each run as scripts/maint/wall-ab.sh writes it (the program's row to
/dev/null; its byte count from one untimed run).
"""

import argparse
import json
import math
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import time

PIECE = 64 << 20

COUNTRIES = ["de", "fr", "us", "br", "in", "jp", "cn", "za", "au", "ca", "mx", "it", "es", "pl", "nl", "se"]
KINDS = ["view", "click", "buy", "share", "login", "logout", "search", "error"]
WORDS = ["alpha", "beta", "gamma", "delta", "block", "stream", "gpu", "core", "file", "index", "pipe", "split", "row", "dump", "log"]


def _piece(args):
    """Piece k of the CSV: whole lines, at least PIECE bytes (the last piece is cut later)."""
    seed, k = args
    rng = random.Random(seed * 1_000_003 + k)
    lines = []
    n = 0
    row = k * 1_000_000_000  # ids unique across pieces
    while n < PIECE:
        comment = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 8)))
        line = (f"{row},{1_700_000_000 + rng.randrange(100_000_000)},user{rng.randrange(1_000_000)},{rng.choice(COUNTRIES)},"
                f"{rng.choice(KINDS)},{rng.randrange(100_000) / 100:.2f},{rng.random():.6f},{comment}\n")
        lines.append(line)
        n += len(line)
        row += 1
    return "".join(lines).encode()


def make_csv(out, size, seed):
    header = b"id,time,user,country,kind,amount,score,comment\n"
    pieces = (size + PIECE - 1) // PIECE
    written = 0
    with open(out, "wb") as f, multiprocessing.Pool() as pool:
        f.write(header)
        written += len(header)
        for data in pool.imap(_piece, [(seed, k) for k in range(pieces)]):
            if written + len(data) > size:
                data = data[: data.rfind(b"\n", 0, max(size - written, 1)) + 1]
            f.write(data)
            written += len(data)
            if written >= size:
                break
    print(json.dumps({"made": out, "bytes": written, "seed": seed}))


def summary(name, secs, **extra):
    return json.dumps({"name": name, "seconds": secs, "median": statistics.median(secs), "min": min(secs), "max": max(secs), **extra})


READERS = {
    "parcomp": "import parcomp; f = parcomp.open(p)",
    "indexed_bzip2": "import indexed_bzip2; f = indexed_bzip2.open(p, parallelization=os.cpu_count())",
    "rapidgzip": "import rapidgzip; f = rapidgzip.open(p, parallelization=os.cpu_count())",
    "bz2": "import bz2; f = bz2.open(p)",
}


def timed(cmd, stdout=subprocess.PIPE):
    """(wall seconds, peak RSS in kB, standard output) of one process, start to exit."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE)
    out = p.stdout.read() if stdout == subprocess.PIPE else b""
    err = p.stderr.read()  # the readers write little there
    _, status, usage = os.wait4(p.pid, 0)
    secs = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, for its rusage
    if p.returncode != 0:
        raise SystemExit(f"{cmd} failed: {err.decode(errors='replace')[-500:]}")
    return secs, usage.ru_maxrss, out


def read(path, runs, readers, jsonl):
    code = "import os, sys\np = sys.argv[1]\n{open}\nn = 0\nwhile b := f.read(1 << 20):\n    n += len(b)\nf.close()\nprint(n)\n"
    secs = {r: [] for r in readers}
    sizes = {}
    lines = []
    if "program" in readers:  # its byte count once, untimed (a pipe into a counter would cost its own time)
        sizes["program"] = int(subprocess.run(["sh", "-c", f"parcomp -q -d -c '{path}' | wc -c"], check=True, capture_output=True, text=True).stdout)
    for run in range(1, runs + 1):
        for r in random.sample(readers, len(readers)):
            if r == "program":
                cmd = ["parcomp", "-q", "-d", "-c", path]
                with open(os.devnull, "wb") as null:
                    s, kb, _ = timed(cmd, stdout=null)
            else:
                cmd = [sys.executable, "-c", code.format(open=READERS[r]), path]
                s, kb, out = timed(cmd)
                sizes[r] = int(out.split()[-1])
            secs[r].append(s)
            lines.append({"label": r, "run": run, "seconds": round(s, 4), "max_rss_kb": kb, "rc": 0, "command": " ".join(cmd[:2] + ["..."] if r != "program" else cmd)})
    same = len(set(sizes.values())) == 1
    for ln in lines:  # every reader's byte count against the others'
        ln["output_bytes"], ln["same_as_ref"] = sizes[ln["label"]], same
        ln["command"] = "parcomp -q -d -c FILE > /dev/null" if ln["label"] == "program" else f"{READERS[ln['label']]}; f.read(1 MiB) to the end"
    write_jsonl(jsonl, lines)
    for r in readers:
        print(summary(f"python.read/{r}", secs[r], bytes=sizes[r], bytes_per_second=sizes[r] / statistics.median(secs[r])), flush=True)
    if not same:
        raise SystemExit(f"the readers disagree on the size: {sizes}")


def write_jsonl(path, lines):
    """Each run as scripts/maint/wall-ab.sh writes it (what report.py's runs tables read)."""
    if path:
        with open(path, "a") as f:
            for ln in lines:
                f.write(json.dumps(ln) + "\n")


def dask_csv(path, runs, workers, blocksize, jsonl):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import parcomp.dask

    cols = dict(usecols=["id", "amount", "score"])

    def ours():
        return parcomp.dask.read_csv(path, blocksize=blocksize, **cols)

    def theirs():
        return dd.read_csv(path, compression="bz2", blocksize=None, **cols)

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True) as cluster, Client(cluster) as client:
        secs = {"parcomp": [], "dask": []}
        got = {}
        order = []
        for run in range(1, runs + 1):
            for name in random.sample(list(secs), 2):
                t0 = time.perf_counter()
                df = ours() if name == "parcomp" else theirs()
                parts = df.npartitions
                rows, amount, score = client.compute([df.shape[0], df["amount"].sum(), df["score"].sum()], sync=True)
                secs[name].append(time.perf_counter() - t0)
                order.append((name, run, secs[name][-1]))
                got[name] = (parts, int(rows), float(amount), float(score))
        a, b = got["parcomp"], got["dask"]  # rows exactly; the sums up to their order's rounding
        same = a[1] == b[1] and all(math.isclose(x, y, rel_tol=1e-9) for x, y in zip(a[2:], b[2:]))
        cmd = {"parcomp": f"parcomp.dask.read_csv(FILE, blocksize={blocksize!r})", "dask": 'dask.dataframe.read_csv(FILE, compression="bz2")'}
        write_jsonl(jsonl, [{"label": f"{n}.workers={workers}", "run": r, "seconds": round(t, 4), "max_rss_kb": None, "rc": 0, "output_bytes": 0,
                             "same_as_ref": same, "command": cmd[n] + "; rows and two sums"} for n, r, t in order])
        for name in secs:
            parts, rows, amount, score = got[name]
            print(summary(f"python.dask_csv/{name}/workers={workers}", secs[name], partitions=parts, rows=rows, amount_sum=amount,
                          score_sum=score, same_as_dask=same), flush=True)
        if not same:
            raise SystemExit(f"parcomp's partitions disagree with Dask's read: {got}")


def parse_size(text):
    """"3G", "512M", "64K" (powers of 1024) or a plain number of bytes."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    text = text.strip().upper().removesuffix("IB").removesuffix("B")
    return int(float(text[:-1]) * units[text[-1]]) if text and text[-1] in units else int(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    m = sub.add_parser("make-csv")
    m.add_argument("out")
    m.add_argument("--bytes", default="3G")
    m.add_argument("--seed", type=int, default=1)
    r = sub.add_parser("read")
    r.add_argument("file")
    r.add_argument("--runs", type=int, default=3)
    r.add_argument("--readers", default="parcomp,indexed_bzip2,rapidgzip,bz2,program")
    r.add_argument("--jsonl", help="also each run as a JSON line (scripts/maint/wall-ab.sh's form) into this file")
    d = sub.add_parser("dask")
    d.add_argument("file")
    d.add_argument("--runs", type=int, default=2)
    d.add_argument("--workers", type=int, default=4)
    d.add_argument("--blocksize", default="64MiB")
    d.add_argument("--jsonl", help="also each run as a JSON line into this file")
    a = ap.parse_args()
    if a.what == "make-csv":
        make_csv(a.out, parse_size(a.bytes), a.seed)
    elif a.what == "read":
        read(a.file, a.runs, a.readers.split(","), a.jsonl)
    else:
        dask_csv(a.file, a.runs, a.workers, a.blocksize, a.jsonl)


if __name__ == "__main__":
    main()
