#!/usr/bin/env python3
"""Greedy reducer for kernels in which an inserted barrier is removable.

Usage: reduce.py IN.sy OUT.sy

IN.sy is a kernel as `removable_in_file` writes it (SYNCOPT_OUT=...: no `target` line). The
property kept: the barrier pass's output verifies, and removing some inserted barrier still
verifies (`removable N of M` with N > 0, from the `minimal` test binary). It drops lines and
braced blocks (16, 8, 4, 2, 1 at a time, last first) and replaces a loop or `if` by its body
(the then-branch), until nothing more can go. A candidate that does not parse or validate is
simply not removable, so it is never kept.

Environment: BIN, the `minimal` test binary (default target/devbin/minimal, see build.sh);
TGT, the target (default gfx950).
"""
import os
import re
import subprocess
import sys
import tempfile

BIN = os.environ.get("BIN", "target/devbin/minimal")
TGT = os.environ.get("TGT", "gfx950")


def removable(text):
    with tempfile.NamedTemporaryFile("w", suffix=".sy", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        env = dict(os.environ, SYNCOPT_FILE=name, SYNCOPT_TARGET=TGT)
        r = subprocess.run(
            [BIN, "--exact", "removable_in_file", "--nocapture", "--ignored"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        m = re.search(r"removable (\d+) of (\d+)", r.stdout)
        return m is not None and int(m.group(1)) > 0
    except subprocess.TimeoutExpired:
        return False
    finally:
        os.unlink(name)


def pieces(lines):
    """(start, end) of each range that may go: a statement line, or a braced block."""
    out = []
    for i, line in enumerate(lines):
        s = line.strip()
        if s.endswith("{") and not s.startswith("kernel"):
            depth = 0
            for j in range(i, len(lines)):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth == 0:
                    out.append((i, j + 1))
                    break
        elif s and not s.startswith(("target", "kernel", "}")) and "} else {" not in s:
            out.append((i, i + 1))
    return out


def bodies(lines):
    """(start, end) of each loop or `if` (its header line and its closing brace)."""
    out = []
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith(("for", "if")) and s.endswith("{"):
            depth = 0
            for j in range(i, len(lines)):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth == 0:
                    out.append((i, j))
                    break
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    lines = open(src).read().split("\n")
    if not removable("\n".join(lines)):
        sys.exit(f"{src}: no removable barrier on {TGT} to start with")
    changed = True
    while changed:
        changed = False
        for size in (16, 8, 4, 2, 1):
            ps = pieces(lines)
            i = len(ps) - 1
            while i >= 0:
                group = ps[max(0, i - size + 1) : i + 1]
                lo = min(a for a, _ in group)
                hi = max(b for _, b in group)
                cand = lines[:lo] + lines[hi:]
                if removable("\n".join(cand)):
                    lines = cand
                    changed = True
                    ps = pieces(lines)
                    i = min(i - size, len(ps) - 1)
                else:
                    i -= size
        for a, b in reversed(bodies(lines)):
            inner = lines[a + 1 : b]
            ends = [n for n, line in enumerate(inner) if "} else {" in line]
            if ends:
                inner = inner[: ends[0]]
            cand = lines[:a] + inner + lines[b + 1 :]
            if removable("\n".join(cand)):
                lines = cand
                changed = True
                break
    open(dst, "w").write("\n".join(lines))
    print(dst, len(lines))


main()
