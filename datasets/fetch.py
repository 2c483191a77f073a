#!/usr/bin/env python3
"""Fetch the named datasets of datasets/manifest.json into the cache, verified by sha256.

    python3 datasets/fetch.py [NAME ...] [--mirror DIR] [--cache DIR] [--list]

NAME is a source id ("linux", "enwik8", "silesia/dickens", "canterbury", ...), a file name
("canterbury/alice29.txt"), or "all" (the default). Each source comes from a local mirror
(--mirror DIR or $PARCOMP_MIRROR: a folder laid out like the manifest's mirror files) or else
from its canonical URL; it is decompressed, every file is checked by size and sha256, and the
result is cached under --cache (default $PARCOMP_DATA, else datasets/cache). Files already in the
cache are re-verified, not fetched again. A missing or corrupt dataset is an error that says how
to get it; nothing is ever substituted.
"""
from __future__ import annotations

import argparse
import bz2
import gzip
import hashlib
import io
import json
import lzma
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_MANIFEST = HERE / "manifest.json"
CHUNK = 1 << 20


class FetchError(Exception):
    pass


class Progress:
    """Progress lines on stderr for long steps (at most one every 2 s, and a final line)."""

    def __init__(self, what: str, total: int | None):
        self.what, self.total, self.done = what, total, 0
        self.start = self.last = time.monotonic()

    def add(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.last >= 2.0:
            self.last = now
            self._print()

    def _print(self, end: str = "") -> None:
        mb = self.done / 1e6
        rate = mb / max(time.monotonic() - self.start, 1e-9)
        pct = f" {100.0 * self.done / self.total:5.1f}%" if self.total else ""
        print(f"  {self.what}: {mb:8.1f} MB{pct} ({rate:.0f} MB/s){end}", file=sys.stderr, flush=True)

    def finish(self) -> None:
        if time.monotonic() - self.start >= 2.0:
            self._print(" done")


def sha256_file(path: Path, what: str | None = None) -> str:
    h = hashlib.sha256()
    progress = Progress(what or f"verifying {path.name}", path.stat().st_size)
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
            progress.add(len(chunk))
    progress.finish()
    return h.hexdigest()


def load_manifest(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise FetchError(f"cannot read the manifest {path}: {e}") from e
    if doc.get("schema") != 1:
        raise FetchError(f"{path}: unsupported manifest schema {doc.get('schema')!r}")
    return doc


def select_sources(manifest: dict, names: list[str]) -> list[dict]:
    sources = manifest["sources"]
    if not names or names == ["all"]:
        return sources
    chosen = []
    for name in names:
        match = [s for s in sources if s["id"] == name or any(f["name"] == name for f in s["files"])]
        if not match:
            known = ", ".join(s["id"] for s in sources)
            raise FetchError(f"unknown dataset '{name}'; known: {known}, or 'all'")
        for s in match:
            if s not in chosen:
                chosen.append(s)
    return chosen


def decompressing_reader(fileobj, fmt: str):
    if fmt == "xz":
        return lzma.open(fileobj)
    if fmt == "bz2":
        return bz2.open(fileobj)
    if fmt == "gz":
        return gzip.open(fileobj)
    if fmt == "raw":
        return fileobj
    raise FetchError(f"unknown single-file format {fmt}")


def copy_stream(reader, dest: Path, what: str, total: int | None) -> None:
    progress = Progress(what, total)
    tmp = dest.with_name(dest.name + ".part")
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(tmp, "wb") as out:
            while chunk := reader.read(CHUNK):
                out.write(chunk)
                progress.add(len(chunk))
    except (OSError, EOFError, lzma.LZMAError, zipfile.BadZipFile, tarfile.TarError) as e:
        tmp.unlink(missing_ok=True)
        raise FetchError(f"{what}: the archive is damaged ({e})") from e
    progress.finish()
    tmp.replace(dest)


def verify(file_entry: dict, path: Path) -> None:
    size = path.stat().st_size
    if size != file_entry["size"]:
        raise FetchError(f"{file_entry['name']}: {size} bytes at {path}, the manifest says {file_entry['size']}")
    digest = sha256_file(path, f"verifying {file_entry['name']}")
    if digest != file_entry["sha256"]:
        raise FetchError(f"{file_entry['name']} at {path} is corrupt: sha256 {digest}, "
                         f"the manifest says {file_entry['sha256']}")


def extract(archive: Path, fmt: str, source: dict, cache: Path, wanted: list[dict]) -> None:
    """Writes each wanted file of the source from `archive` (already checked) into the cache."""
    if fmt in ("xz", "bz2", "gz", "raw"):
        (only,) = source["files"]
        with open(archive, "rb") as raw, decompressing_reader(raw, fmt) as reader:
            copy_stream(reader, cache / only["name"], f"decompressing {only['name']}", only["size"])
        return
    if fmt == "zip":
        try:
            with zipfile.ZipFile(archive) as z:
                for f in wanted:
                    with z.open(f.get("member", Path(f["name"]).name)) as reader:
                        copy_stream(reader, cache / f["name"], f"extracting {f['name']}", f["size"])
        except (KeyError, zipfile.BadZipFile) as e:
            raise FetchError(f"{archive}: {e}") from e
        return
    if fmt == "tar.gz":
        try:
            with tarfile.open(archive, "r:gz") as t:
                members = {Path(m.name).name: m for m in t.getmembers() if m.isfile()}
                for f in wanted:
                    member = members.get(f.get("member", Path(f["name"]).name))
                    if member is None:
                        raise FetchError(f"{archive} has no member for {f['name']}")
                    copy_stream(t.extractfile(member), cache / f["name"], f"extracting {f['name']}", f["size"])
        except tarfile.TarError as e:
            raise FetchError(f"{archive}: {e}") from e
        return
    raise FetchError(f"unknown archive format {fmt}")


def find_in_mirror(source: dict, mirror: Path | None):
    if mirror is None:
        return None
    for m in source.get("mirror", []):
        path = mirror / m["file"]
        if path.is_file():
            if "sha256" in m:
                digest = sha256_file(path, f"checking mirror file {m['file']}")
                if digest != m["sha256"]:
                    raise FetchError(f"mirror file {path} is corrupt: sha256 {digest}, expected {m['sha256']}")
            return path, m["format"]
    return None


def download(url: str, dest: Path, expected_sha: str | None) -> None:
    print(f"downloading {url}", file=sys.stderr)
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            total = response.headers.get("Content-Length")
            copy_stream(response, dest, f"downloading {dest.name}", int(total) if total else None)
    except OSError as e:
        raise FetchError(f"cannot download {url}: {e}") from e
    if expected_sha:
        digest = sha256_file(dest)
        if digest != expected_sha:
            dest.unlink()
            raise FetchError(f"{url} downloaded with sha256 {digest}, expected {expected_sha}")


def normalize_tar(archive_bz2: Path, spec: dict, out: Path) -> None:
    """Re-tars a downloaded tarball the way the manifest's bytes were made (GNU tar, sorted names,
    owner 0, fixed mtime), since the published tarball's headers differ from the mirror's."""
    with tempfile.TemporaryDirectory() as tmp:
        with bz2.open(archive_bz2) as reader, tarfile.open(fileobj=reader, mode="r|") as t:
            t.extractall(tmp, filter="data")
        cmd = ["tar", "--sort=name", "--format=gnu", "--owner=0", "--group=0", "--numeric-owner",
               f"--mtime={spec['mtime']}", "--mode=u+rw,go+r,go-w", "-cf", str(out), "-C", tmp, spec["top"]]
        try:
            subprocess.run(cmd, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            raise FetchError(f"re-tarring with GNU tar failed: {e}") from e


def fetch_source(source: dict, cache: Path, mirror: Path | None, only: set[str] | None) -> None:
    wanted = [f for f in source["files"] if only is None or f["name"] in only or source["id"] in only]
    missing = []
    for f in wanted:
        path = cache / f["name"]
        if path.is_file():
            try:
                verify(f, path)
                print(f"ok     {f['name']} (cached)", file=sys.stderr)
                continue
            except FetchError as e:
                print(f"stale  {e}; fetching again", file=sys.stderr)
        missing.append(f)
    if not missing:
        return

    found = find_in_mirror(source, mirror)
    if found is not None:
        archive, fmt = found
        print(f"mirror {source['id']}: {archive}", file=sys.stderr)
        extract(archive, fmt, source, cache, missing)
    else:
        dl = source.get("download")
        if dl is None:
            raise FetchError(f"{source['id']}: no mirror file found and no download URL")
        downloads = cache / "downloads"
        downloads.mkdir(parents=True, exist_ok=True)
        archive = downloads / Path(dl["url"]).name
        if not archive.is_file():
            try:
                download(dl["url"], archive, dl.get("sha256"))
            except FetchError as e:
                hint = (f" Put the mirror file(s) {[m['file'] for m in source.get('mirror', [])]} in a folder "
                        f"and pass --mirror DIR (or set PARCOMP_MIRROR).")
                raise FetchError(str(e) + hint) from e
        if "normalize_tar" in dl:
            (only_file,) = source["files"]
            normalize_tar(archive, dl["normalize_tar"], cache / only_file["name"])
        else:
            extract(archive, dl["format"], source, cache, missing)

    for f in missing:
        verify(f, cache / f["name"])
        print(f"ok     {f['name']} ({f['size']} bytes, sha256 verified)", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="source ids or file names; default all")
    ap.add_argument("--mirror", type=Path, default=os.environ.get("PARCOMP_MIRROR") or None,
                    help="local mirror folder (default $PARCOMP_MIRROR)")
    ap.add_argument("--cache", type=Path, default=os.environ.get("PARCOMP_DATA") or HERE / "cache",
                    help="cache folder (default $PARCOMP_DATA, else datasets/cache)")
    ap.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST, help=argparse.SUPPRESS)
    ap.add_argument("--list", action="store_true", help="list the datasets and exit")
    args = ap.parse_args(argv)

    try:
        manifest = load_manifest(args.manifest)
        if args.list:
            for s in manifest["sources"]:
                total = sum(f["size"] for f in s["files"])
                print(f"{s['id']:<20} {len(s['files']):>3} file(s) {total / 1e6:10.1f} MB   {s.get('paper', '')}")
            return 0
        sources = select_sources(manifest, args.names)
        explicit = {n for n in args.names if n != "all"} or None
        failures = []
        for source in sources:
            try:
                fetch_source(source, args.cache, args.mirror, explicit)
            except FetchError as e:
                failures.append(f"{source['id']}: {e}")
                print(f"FAILED {source['id']}: {e}", file=sys.stderr)
        if failures:
            print(f"\n{len(failures)} dataset source(s) could not be fetched:", file=sys.stderr)
            for f in failures:
                print(f"  {f}", file=sys.stderr)
            return 1
        print(f"datasets ready in {args.cache}", file=sys.stderr)
        return 0
    except FetchError as e:
        print(f"fetch: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
