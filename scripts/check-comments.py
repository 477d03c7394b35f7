#!/usr/bin/env python3
"""Checks the comment rules of CONTRIBUTING.md on the tracked C/C++ sources.

  scripts/check-comments.py [repo]             check
  scripts/check-comments.py --one-line [repo]  also list files whose purpose sentence wraps

Fails (exit 1), naming each place, when
  - a source or header does not start with a purpose comment (after `#pragma once`),
  - a `catch` block has no statement and no comment saying why the error is dropped,
  - a code comment points into bench/results (comments cite docs/measurements.md or a README).
Exit 77 (skipped) outside a git checkout. apps/lu and apps/scf are not checked yet.
"""
import re
import subprocess
import sys
from pathlib import Path

SKIP = ("apps/lu/", "apps/scf/", "bench/reference/")
SUFFIXES = (".cpp", ".hpp", ".h", ".c", ".cc")


def tracked(repo):
    out = subprocess.run(["git", "-C", str(repo), "ls-files"], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return [f for f in out.stdout.split("\n")
            if f.endswith(SUFFIXES) and not f.startswith(SKIP)
            and f.split("/")[0] in ("framework", "apps", "bench", "tests", "tools", "examples",
                                    "python")]


def purpose_missing(text):
    for line in text.split("\n"):
        s = line.strip()
        if s == "" or s == "#pragma once" or s.startswith("#!"):
            continue
        return not (s.startswith("//") or s.startswith("/*"))
    return True


def purpose_wraps(text):
    """Whether the first comment's first sentence runs on to a second line."""
    lines = [l for l in text.split("\n") if l.strip() not in ("", "#pragma once", "/// \\file")]
    if len(lines) < 2:
        return False
    strip = lambda l: re.sub(r"^\s*(///?|/\*+|\*)\s?", "", l).rstrip()
    first, second = lines[0], lines[1]
    return (re.match(r"^\s*(//|\*)", second) is not None and strip(second) != ""
            and not re.search(r"[.:;)\]]$", strip(first)))


def silent_catches(text):
    """Line numbers of catch blocks with neither a statement nor a comment."""
    for m in re.finditer(r"catch\s*\([^)]*\)\s*\{", text):
        i, depth = m.end(), 1
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if text[m.end():i - 1].strip() == "":
            yield text.count("\n", 0, m.start()) + 1


def main():
    args = sys.argv[1:]
    one_line = "--one-line" in args
    args = [a for a in args if a != "--one-line"]
    repo = Path(args[0] if args else ".")
    files = tracked(repo)
    if files is None:
        print("check-comments: not a git checkout; skipped", file=sys.stderr)
        return 77
    problems = []
    for f in files:
        text = (repo / f).read_text(encoding="utf-8", errors="replace")
        if purpose_missing(text):
            problems.append(f"{f}:1: no purpose comment at the top")
        elif one_line and purpose_wraps(text):
            problems.append(f"{f}:1: the purpose comment's first sentence wraps")
        for line in silent_catches(text):
            problems.append(f"{f}:{line}: catch block drops the error without a word")
        for n, line in enumerate(text.split("\n"), 1):
            if re.search(r"//.*bench/results", line):
                problems.append(f"{f}:{n}: comment points into bench/results")
    for p in problems:
        print(p)
    if problems:
        print(f"check-comments: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check-comments: {len(files)} sources follow the comment rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
