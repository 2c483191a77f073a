"""Product files speak of the product: the README, RESULTS.md, docs, notes, code and comments say
what a thing is, never how the project's own work was organised (the patterns below list the
phrases, each with what it is a sign of). Result records under results/<gpu>/
(logs, environment dumps) are measurements, not prose, and are not read."""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

WORDS = [
    (r"\bsessions?\b", "a work session"),
    (r"\bdevice (call|tool)s?\b", "a call of the machine-lending tool"),
    (r"\b(lent|lending)\b", "a lent machine"),
    (r"nvidia-h(100|200)-x\d", "a machine kind's name"),
    (r"\b(never given|the H200 never)\b", "what a lending tool gave"),
    (r"\b64 MiB (a|per) call\b|\bcarry limit|\bcalls? carr(y|ies)\b|\bcarried files\b", "a lending tool's limits"),
    (r"\bissue #?\d+|\(#\d+\)|#\d+'s\b|, #\d+\)", "an issue number as a reason"),
    (r"\b(this project's|the) (2-core )?VM\b|\b2-core VM\b|\bdevelopment machine\b", "the build machine"),
]
TEXT = re.compile(r"\.(md|py|sh|cpp|hpp|cu|cuh|h|txt|cmake|json)$|(^|/)(CMakeLists\.txt|compare|run)$")


def product_files() -> list[str]:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [f for f in files if TEXT.search(f) and not re.match(r"results/(?!notes/|experiments\.json)", f)
            and f != "tests/python/test_product_words.py" and (ROOT / f).is_file()]


def test_no_product_file_speaks_of_the_environment_it_was_built_in():
    found = []
    for f in product_files():
        lines = (ROOT / f).read_text(errors="replace").splitlines()
        for n, line in enumerate(lines, 1):
            # The line, and the line with the next one's start: a phrase wrapped over two lines.
            after = lines[n].lstrip(" #/*>-") if n < len(lines) else ""
            for rx, what in WORDS:
                m = re.search(rx, line, re.I) or re.search(rx, f"{line} {after}", re.I)
                if m:
                    found.append(f"{f}:{n}: {m.group(0)!r} ({what})")
    assert not found, f"{len(found)} lines:\n" + "\n".join(found[:200])


def test_the_check_sees_each_kind_of_word(tmp_path):
    """Each pattern matches the phrase it is there for (a check that can fail)."""
    for phrase in ["in session 14", "one device call", "a lent GPU", "nvidia-h200-x2", "the H200 never given",
                   "64 MiB a call", "issue #16", "(commit 188b304, #20)", "the 2-core VM"]:
        assert any(re.search(rx, phrase, re.I) for rx, _ in WORDS), phrase
