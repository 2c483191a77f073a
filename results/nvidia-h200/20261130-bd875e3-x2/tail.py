#!/usr/bin/env python3
# Runs a command (argv) with its standard error read line by line: prints as JSON when each line came
# (seconds since the start), the "in X s" of parcomp's -v report, and when the process was reaped.
import json, re, subprocess, sys, time, os
env = dict(os.environ)
label = sys.argv[1]; cmd = sys.argv[2:]
t0 = time.monotonic()
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
lines = []
for raw in p.stderr:
    lines.append((time.monotonic() - t0, raw.decode(errors='replace').rstrip()))
eof = time.monotonic() - t0
rc = p.wait()
reaped = time.monotonic() - t0
own = None; at = None
for t, l in lines:
    m = re.search(r' in ([0-9.]+) s,', l)
    if m: own, at = float(m.group(1)), t
print(json.dumps({"label": label, "rc": rc, "own_s": own, "report_at_s": at, "stderr_eof_s": eof, "reaped_s": reaped,
                  "before_engine_s": (at - own) if own else None, "after_report_s": (reaped - at) if at else None}))
