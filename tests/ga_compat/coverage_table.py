#!/usr/bin/env python3
"""The coverage table of framework/ga_compat/README.md names every function the GA headers
declare (as itself, its 64-bit twin's base name, or its GA_/NGA_ twin), with a status of done,
differs or not yet; and every function of GA's API -- the names in --api-list (ga58_api.txt: GA
5.8's ga.h, macdecls.h and ga-mpi.h, so that the check needs no GA installed) and, with GA's own
ga.h at hand (--ga-header), its functions -- is either declared here or listed under "Not yet".

usage: coverage_table.py <include/gaea-ga dir> <README.md> [--api-list ga58_api.txt]
                         [--ga-header /usr/include/ga.h]
"""
import re
import sys
from pathlib import Path

NAME = re.compile(r"\b((?:N?GA|MA)_[A-Za-z0-9_]+)\s*\(")


def declared(inc: Path) -> set[str]:
    names = set()
    for h in ("ga.h", "macdecls.h", "ga-mpi.h"):
        code = "\n".join(l for l in (inc / h).read_text().splitlines() if not l.startswith("#"))
        names |= set(NAME.findall(code))
    return names


def twins(f: str) -> set[str]:
    """Names under which the table may list `f`."""
    out = {f}
    base = f[:-2] if f.endswith("64") else f
    out.add(base)
    for n in list(out):
        if n.startswith("NGA_"):
            out.add("GA_" + n[4:])
        elif n.startswith("GA_"):
            out.add("NGA_" + n[3:])
    return out


def main() -> int:
    args = sys.argv[1:]
    ga_header = None
    api_list = None
    if "--api-list" in args:
        i = args.index("--api-list")
        api_list = Path(args[i + 1])
        del args[i : i + 2]
    if "--ga-header" in args:
        i = args.index("--ga-header")
        ga_header = Path(args[i + 1])
        del args[i : i + 2]
    inc, readme = Path(args[0]), Path(args[1])
    text = readme.read_text()
    table = text[text.index("## Coverage") :]
    rows = [l for l in table.splitlines() if l.startswith("| `")]
    listed: dict[str, str] = {}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        status = cells[1]
        if status not in ("done", "differs", "not yet"):
            print(f"bad status '{status}' in row: {row}")
            return 1
        for n in re.findall(r"`((?:N?GA|MA)_[A-Za-z0-9_]+)", cells[0]):
            listed[n] = status
    bad = 0
    mine = declared(inc)
    for f in sorted(mine):
        if not twins(f) & listed.keys():
            print(f"declared but not in the coverage table: {f}")
            bad += 1
    theirs: set[str] = set()
    if api_list is not None:
        theirs |= {
            l.strip()
            for l in api_list.read_text().splitlines()
            if l.strip() and not l.startswith("#")
        }
    if ga_header is not None and ga_header.exists():
        theirs |= set(NAME.findall(ga_header.read_text()))
    if theirs:
        not_yet = table[table.index("### Not yet") :] if "### Not yet" in table else ""
        for f in sorted(theirs - mine):
            if f not in not_yet:
                print(f"GA function neither provided nor listed under 'Not yet': {f}")
                bad += 1
    print(f"{len(mine)} declared functions, {len(listed)} names in the table, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
