#!/usr/bin/env python3
"""Checks the relative links of every tracked Markdown file (ctest: docs.links).

Scans each file of `git -C ROOT ls-files '*.md'` for inline links and images, `[text](target)`
and `![alt](target)`, and for reference definitions, `[label]: target`, outside fenced code blocks
and inline code. A target with a scheme (http:, https:, mailto:, ...) is not checked. Any other
target must name a file or directory that exists, relative to the linking file (or to ROOT when
it starts with '/'). An anchor, `path.md#anchor` or `#anchor` alone, must be one of the target
Markdown file's headings as GitHub spells them (lowercase; every character other than a letter,
a digit, a space, '-' or '_' dropped; each space made '-'; a repeated heading gets -1, -2, ...) or
an explicit `<a name="...">`/`id="..."`. Anchors into other files (`main.cpp#L10`) are not checked.

    scripts/check-links.py [ROOT]    ROOT: the repository (default: this script's parent's parent)

Exit status: 0 when every link resolves; 1 when some do not (each printed as file:line: link:
reason); 2 on bad usage; 77 when ROOT is not a git checkout (nothing to list).
"""

import os
import re
import subprocess
import sys
import urllib.parse

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?:.+?)\1")
# [text](target) or [text](target "title"); the text may hold one level of brackets.
INLINE_LINK = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
# A whole line: `[label]: target` with an optional title.
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*$")
ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*(?:\s#+)?\s*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
HTML_ANCHOR = re.compile(r"<a\s[^>]*(?:name|id)\s*=\s*\"([^\"]+)\"|\bid\s*=\s*\"([^\"]+)\"", re.I)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def usage_error(message):
    print(f"check-links.py: error: {message}", file=sys.stderr)
    print("usage: check-links.py [ROOT]", file=sys.stderr)
    sys.exit(2)


def lines_outside_code(text):
    """Yields (line number, line) outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and \
                    line.strip() == m.group(1):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield number, line


def heading_text(raw):
    """A heading's visible text: links reduced to their text, emphasis and code marks kept
    (slugging drops them)."""
    raw = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)
    return re.sub(r"<[^>]+>", "", raw)


def slug(text):
    text = heading_text(text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(path, cache):
    if path in cache:
        return cache[path]
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        cache[path] = set()
        return cache[path]
    found, counts = set(), {}

    def add(title):
        base = slug(title)
        n = counts.get(base, 0)
        counts[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")

    previous = None
    for _, line in lines_outside_code(text):
        m = ATX.match(line)
        if m:
            add(m.group(2))
            previous = None
            continue
        if previous is not None and previous.strip() and SETEXT.match(line) and \
                not previous.lstrip().startswith(("-", "*", "|", ">")):
            add(previous.strip())
            previous = None
            continue
        for a in HTML_ANCHOR.finditer(line):
            found.add(a.group(1) or a.group(2))
        previous = line
    cache[path] = found
    return found


def targets(line):
    bare = INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
    for m in INLINE_LINK.finditer(bare):
        yield m.group(1)
    m = REF_DEF.match(line)
    if m:
        yield m.group(1)


def check(root, md_files):
    bad, count, cache = [], 0, {}
    for rel in md_files:
        path = os.path.join(root, rel)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except FileNotFoundError:
            continue  # deleted in the work tree but not yet in the index
        for number, line in lines_outside_code(text):
            for target in targets(line):
                target = target.strip()
                if target.startswith("<") and target.endswith(">"):
                    target = target[1:-1]
                if not target or SCHEME.match(target):
                    continue
                count += 1
                where, _, anchor = target.partition("#")
                where = urllib.parse.unquote(where)
                if where:
                    base = root if where.startswith("/") else os.path.dirname(path)
                    dest = os.path.normpath(os.path.join(base, where.lstrip("/")))
                    if os.path.relpath(dest, root).split(os.sep)[0] == "..":
                        bad.append((rel, number, target, "points outside the repository"))
                        continue
                    if not os.path.exists(dest):
                        bad.append((rel, number, target, "no such file or directory"))
                        continue
                else:
                    dest = path
                if anchor and dest.endswith(".md") and os.path.isfile(dest):
                    anchor = urllib.parse.unquote(anchor)
                    if anchor.lower() not in anchors_of(dest, cache) and \
                            anchor not in anchors_of(dest, cache):
                        bad.append((rel, number, target,
                                    f"no heading '#{anchor}' in {os.path.relpath(dest, root)}"))
    return bad, count


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        if len(argv) == 2:
            print(__doc__.strip())
            return 0
        usage_error("too many arguments")
    root = argv[1] if len(argv) == 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       "..")
    root = os.path.abspath(root)
    if not os.path.isdir(root):
        usage_error(f"'{root}' is not a directory")
    try:
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", "*.md"],
                                check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        detail = e.stderr.decode(errors="replace").strip() if hasattr(e, "stderr") and \
            isinstance(e.stderr, bytes) else str(e)
        print(f"check-links.py: skipped: cannot list the Markdown files of '{root}' with git "
              f"({detail})", file=sys.stderr)
        return 77
    md_files = sorted(p for p in listed.decode().split("\0") if p)
    bad, count = check(root, md_files)
    for rel, number, target, reason in bad:
        print(f"{rel}:{number}: ({target}): {reason}")
    if bad:
        print(f"check-links.py: {len(bad)} of {count} links in {len(md_files)} Markdown files do "
              "not resolve", file=sys.stderr)
        return 1
    print(f"check-links.py: {count} links in {len(md_files)} Markdown files resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
