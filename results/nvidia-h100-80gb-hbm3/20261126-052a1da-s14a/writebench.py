#!/usr/bin/env python3
"""How fast one thread writes N bytes into a new file (page cache, no fsync): chunk size, with and
without posix_fallocate of the whole size first. One JSON line a run."""
import json, os, sys, time
path, total = sys.argv[1], int(sys.argv[2])
buf = os.urandom(1 << 20) * 64  # 64 MiB, not all zeros
for run in range(int(sys.argv[3]) if len(sys.argv) > 3 else 2):
    for chunk_mib in (1, 8, 64):
        for falloc in (False, True):
            try: os.unlink(path)
            except FileNotFoundError: pass
            mv = memoryview(buf)[: chunk_mib << 20]
            t0 = time.perf_counter()
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            if falloc: os.posix_fallocate(fd, 0, total)
            done = 0
            while done < total:
                n = min(len(mv), total - done)
                done += os.write(fd, mv[:n])
            os.close(fd)
            s = time.perf_counter() - t0
            print(json.dumps({"run": run, "chunk_mib": chunk_mib, "fallocate": falloc, "bytes": total, "seconds": round(s, 4), "gbps": round(total / s / 1e9, 3)}), flush=True)
os.unlink(path)
