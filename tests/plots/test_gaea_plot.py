#!/usr/bin/python3
"""Tests of tools/plot/gaea_plot.py (ctest "plots.*", label "plots").

  test_gaea_plot.py render SOURCE_DIR   `all` over the stored run in tests/plots/data/run and
                                        over bench/results (its summaries), and the fixtures in
                                        tests/plots/data: every figure exists, is a real PNG/SVG,
                                        and the tool's summary (series, x values, points) matches
                                        counts taken here from the inputs; the shift .txt and
                                        .json readers agree on the same run
  test_gaea_plot.py errors SOURCE_DIR   bad input: one-line error naming the file, exit code 2

Exits 77 (ctest's SKIP_RETURN_CODE) when matplotlib or h5py is missing from this interpreter.
The fixtures: data/run/ holds raw files of two stored runs, removed from bench/results (which
keeps summaries only) in git history: shift-sm.txt, reaction-sm.{json,txt} and idle_wait-sm.json
of 20261123-161619-energy (`bench/run_energy.sh`) and results.jsonl of 20261123-counters
(`bench/compare_counters.sh`); data/shift-sm.json is the same energy run's shift-sm.json (git
5e94a98) without per-rep samples, put and acc only; data/trace-scf-2ranks.h5 is
GAEA_TRACE of `mpirun -np 2 gaea-scf water.xyz --basis STO-3G` (UCX_TLS=sm, main at 2520145);
data/app_energy-summary.json is the summary.json of one `bench/app_energy.sh --reps 1` run (3
layouts, every mode, colocation) on a loaded machine.
"""
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

missing = [m for m in ("matplotlib", "h5py") if importlib.util.find_spec(m) is None]
if missing:
    print(f"SKIP: {sys.executable} lacks {', '.join(missing)} (install python3-matplotlib "
          "python3-h5py: scripts/install-deps.sh --plots)")
    sys.exit(77)
import h5py  # noqa: E402  pylint: disable=wrong-import-position

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(source, *args):
    tool = os.path.join(source, "tools", "plot", "gaea_plot.py")
    return subprocess.run([sys.executable, tool, *args], capture_output=True, text=True,
                          timeout=300, check=False)  # `all` renders every stored result


SUMMARY = re.compile(r"^(\S+): kind=(\w+) panels=(\d+) series=(\d+) x=(\d+) points=(\d+)$")


def summaries(stdout):
    """{output path: (kind, panels, series, x, points)} from the tool's lines."""
    out = {}
    for line in stdout.splitlines():
        m = SUMMARY.match(line)
        if m:
            out[m.group(1)] = (m.group(2),) + tuple(int(g) for g in m.group(3, 4, 5, 6))
    return out


def valid_image(path):
    """True if `path` is a PNG (signature and IHDR) or an SVG (XML whose root is <svg>)."""
    with open(path, "rb") as f:
        head = f.read(16)
    if path.endswith(".png"):
        return head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    try:
        return ET.parse(path).getroot().tag.endswith("svg")
    except ET.ParseError:
        return False


# Expected counts, taken from the inputs by other code than the tool's readers.

def expect_shift_txt(path):
    prims, configs, sizes, rows = set(), set(), set(), 0
    prim = None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"== (\S+) ==", line)
        if m:
            prim = m.group(1)
        m = re.match(r"(\d+ (?:B|KiB|MiB))\s+(\S+)\s+\d+\s+[0-9.]+\s+[0-9.]+\s", line)
        if m and prim:
            prims.add(prim)
            sizes.add(m.group(1))
            configs.add(m.group(2))
            rows += 1
    return ("shift", 2 * len(prims), len(configs), len(sizes), 2 * rows)


def expect_shift_json(path):
    rows = json.load(open(path, encoding="utf-8"))["results"]
    return ("shift", 2 * len({r["prim"] for r in rows}), len({r["config"] for r in rows}),
            len({r["bytes"] for r in rows}), 2 * len(rows))


def expect_reaction(path):
    d = json.load(open(path, encoding="utf-8"))
    return ("reaction", 1, len(d["modes"]), len(d["gaps"]), len(d["modes"]) * len(d["gaps"]))


def expect_idle(path):
    n = len(json.load(open(path, encoding="utf-8"))["results"])
    return ("idle", 3, n, n, 4 * n)


def expect_counters(path):
    lines = [json.loads(x) for x in open(path, encoding="utf-8") if x.strip()]
    lines = [x for x in lines if x.get("bench") in ("counter_latency", "ga_read_inc")
             and not x.get("failed")]
    if not lines:
        return None
    series, points = set(), set()
    for x in lines:
        if x["bench"] == "ga_read_inc":
            keys = [(x.get("config"), "ga", "", s) for s in ("idle", "compute")
                    if f"{s}_avg_us" in x]
        else:
            keys = [(x["config"] == "gaea-off", e["mode"], e["variant"], e["rank0"])
                    for e in x["latency"]]
        for k in keys:
            series.add(k[:3])
            points.add((x.get("tls", x.get("ucx_tls")), k, x["ranks"]))
    groups = {x.get("tls", x.get("ucx_tls")) for x in lines}
    return ("counters", 2 * len(groups), len(series), len({x["ranks"] for x in lines}),
            len(points))


def expect_apps(path):
    d = json.load(open(path, encoding="utf-8"))
    rows, coloc = d["rows"], d.get("colocation") or []
    cols = len({r["layout"] for r in rows}) + (1 if coloc else 0)
    points = 2 * sum(1 for r in rows if r["time_ratio"] is not None)
    points += 2 * sum(1 for c in coloc if c["hog_percent"] is not None)
    return ("apps", 2 * cols, len({r["mode"] for r in rows}), len({r["app"] for r in rows}),
            points)


def expect_trace(path):
    with h5py.File(path, "r") as f:
        ranks = [g for g in f if g.startswith("rank_")]
        bands = sum(len(set(f[g]["thread"][()].tolist())) for g in ranks)
        samples = sum(f[g]["t_s"].shape[0] for g in ranks)
    return ("timeline", 1, bands, len(ranks), samples)


def render_all(source, root, out):
    """`all root -o out`: every figure drawn, each as the inputs' counts say. Returns the kinds."""
    r = run(source, "all", root, "-o", out)
    check(r.returncode == 0, f"all {root}: exit {r.returncode} {r.stderr.strip()}")
    got = summaries(r.stdout)
    expected = {}
    for pattern, count in (("**/shift-*.txt", expect_shift_txt),
                           ("**/reaction-*.json", expect_reaction),
                           ("**/idle_wait-*.json", expect_idle),
                           ("**/results.jsonl", expect_counters),
                           ("**/*-app-energy/summary.json", expect_apps)):
        for path in sorted(glob.glob(os.path.join(root, pattern), recursive=True)):
            want = count(path)
            if want is None:
                continue
            rel = os.path.splitext(os.path.relpath(path, root))[0].replace(os.sep, "_")
            expected[os.path.join(out, rel + ".png")] = want
    for path, want in sorted(expected.items()):
        check(os.path.isfile(path) and valid_image(path), f"{path} is a PNG")
        check(got.get(path) == want,
              f"{os.path.basename(path)}: drew {got.get(path)}, input has {want}")
    check(len(got) == len(expected), f"all {root} drew {len(got)} figures, expected "
                                     f"{len(expected)}")
    return {w[0] for w in expected.values()}


def render(source):
    results = os.path.join(source, "bench", "results")
    data = os.path.join(source, "tests", "plots", "data")
    with tempfile.TemporaryDirectory(prefix="gaea-plot-test.") as tmp:
        kinds = render_all(source, os.path.join(data, "run"), os.path.join(tmp, "run"))
        for kind in ("shift", "reaction", "idle", "counters"):
            check(kind in kinds, f"the stored run has a {kind} result")
        # bench/results keeps summaries only: bench/app_energy.sh's summary.json is drawn.
        check("apps" in render_all(source, results, os.path.join(tmp, "results")),
              "bench/results has an app_energy summary to draw")

        # The fixtures, as SVG.
        for kind, name, want in (("shift", "shift-sm.json", expect_shift_json),
                                 ("timeline", "trace-scf-2ranks.h5", expect_trace),
                                 ("apps", "app_energy-summary.json", expect_apps)):
            src = os.path.join(data, name)
            svg = os.path.join(tmp, name + ".svg")
            r = run(source, kind, src, "-o", svg)
            check(r.returncode == 0, f"{kind} {name}: exit {r.returncode} {r.stderr.strip()}")
            check(os.path.isfile(svg) and valid_image(svg), f"{svg} is an SVG")
            check(summaries(r.stdout).get(svg) == want(src),
                  f"{name}: drew {summaries(r.stdout).get(svg)}, input has {want(src)}")

    # The .txt reader against the JSON of the same run (put and acc of 2026-11-23, sm).
    sys.path.insert(0, os.path.join(source, "tools", "plot"))
    from gaea_plot_data import read_shift  # pylint: disable=import-outside-toplevel
    txt = read_shift(os.path.join(data, "run", "shift-sm.txt"))
    js = read_shift(os.path.join(data, "shift-sm.json"))
    by_key = {(r["prim"], r["bytes"], r["config"]): r for r in txt["results"]}
    compared = 0
    for r in js["results"]:
        t = by_key.get((r["prim"], r["bytes"], r["config"]))
        check(t is not None, f"txt has {r['prim']} {r['bytes']} {r['config']}")
        if t is None:
            continue
        compared += 1
        if abs(t["latency_ratio"] - r["latency_ratio"]) > 0.0051 or \
                abs(t["energy_j_per_mb"] / r["energy_j_per_mb"] - 1) > 0.0051:  # %.3g
            check(False, f"{r['prim']} {r['bytes']} {r['config']}: txt {t['latency_ratio']} "
                         f"{t['energy_j_per_mb']}, json {r['latency_ratio']} "
                         f"{r['energy_j_per_mb']}")
    check(compared == 84, f"txt and json agree on {compared} rows (2 prims x 7 sizes x 6 configs)")
    check(txt["ucx_tls"] == "sm" and txt["ranks"] == 2, "txt header: UCX_TLS=sm, 2 ranks")


def errors(source):
    data = os.path.join(source, "tests", "plots", "data")
    energy = os.path.join(data, "run")  # one run_energy.sh run's files
    with tempfile.TemporaryDirectory(prefix="gaea-plot-test.") as tmp:
        png = os.path.join(tmp, "x.png")
        cases = [
            (["reaction", os.path.join(tmp, "missing.json"), "-o", png],
             r"'.*missing\.json': no such file"),
            (["reaction", os.path.join(energy, "idle_wait-sm.json"), "-o", png],
             r"idle_wait-sm\.json': a result of bench 'idle_wait', "
             r"expected one of bench 'reaction'"),
            (["idle", os.path.join(energy, "shift-sm.txt"), "-o", png],
             r"shift-sm\.txt': not JSON"),
            (["shift", os.path.join(energy, "reaction-sm.txt"), "-o", png],
             r"reaction-sm\.txt': no shift table rows"),
            (["counters", os.path.join(energy, "reaction-sm.json"), "-o", png],
             r"reaction-sm\.json' line 1: not JSON|no counter_latency or ga_read_inc line"),
            (["timeline", os.path.join(data, "shift-sm.json"), "-o", png],
             r"shift-sm\.json': not an HDF5 file"),
            (["shift", os.path.join(data, "shift-sm.json"), "-o", os.path.join(tmp, "x.jpg")],
             r"x\.jpg': the name must end in \.png or \.svg"),
            (["shift", os.path.join(data, "shift-sm.json"), "-o", os.path.join(tmp, "no/x.png")],
             r"directory '.*no' does not exist"),
            (["all", os.path.join(tmp, "nowhere"), "-o", tmp], r"nowhere': not a directory"),
            (["apps", os.path.join(data, "shift-sm.json"), "-o", png],
             r"shift-sm\.json': a result of bench 'shift', expected one of bench 'app_energy'"),
        ]
        for args, pattern in cases:
            r = run(source, *args)
            lines = r.stderr.strip().splitlines()
            check(r.returncode == 2, f"{' '.join(args[:1])} {os.path.basename(args[1])}: exit 2 "
                                     f"(got {r.returncode})")
            check(len(lines) == 1 and lines[0].startswith("gaea_plot: error: ")
                  and re.search(pattern, lines[0]) is not None,
                  f"one-line error matching {pattern!r}: {r.stderr.strip()!r}")
            check(not os.path.exists(png), "no figure written")

        # `all`: a bad reaction file is reported (exit 2) and the good one still drawn; an .h5
        # that is no trace (here: not HDF5 at all) is skipped, not an error.
        mixed = os.path.join(tmp, "mixed")
        os.makedirs(mixed)
        for src, dst in (("reaction-sm.json", "reaction-a.json"),
                         ("idle_wait-sm.json", "reaction-b.json")):
            shutil.copy(os.path.join(energy, src), os.path.join(mixed, dst))
        with open(os.path.join(mixed, "checkpoint.h5"), "w", encoding="utf-8") as f:
            f.write("not a trace")
        r = run(source, "all", mixed, "-o", os.path.join(tmp, "mixed-out"))
        check(r.returncode == 2, f"all with one bad file: exit 2 (got {r.returncode})")
        check(re.fullmatch(r"gaea_plot: error: all: '.*reaction-b\.json': a result of bench "
                           r"'idle_wait', expected one of bench 'reaction'", r.stderr.strip())
              is not None, f"all: one error line for reaction-b.json: {r.stderr.strip()!r}")
        check(os.path.isfile(os.path.join(tmp, "mixed-out", "reaction-a.png")),
              "all: the good file is still drawn")
        check("checkpoint.h5: skipped, not a timeline input" in r.stdout,
              f"all: a non-trace .h5 is skipped: {r.stdout.strip()!r}")

        # `all`: a shift run stored as .json and .txt (bench/run_energy.sh) is one figure.
        both = os.path.join(tmp, "both")
        os.makedirs(both)
        shutil.copy(os.path.join(data, "shift-sm.json"), os.path.join(both, "shift-sm.json"))
        shutil.copy(os.path.join(energy, "shift-sm.txt"), os.path.join(both, "shift-sm.txt"))
        r = run(source, "all", both, "-o", os.path.join(tmp, "both-out"))
        # (the fixture .json has 4 panels, the stored .txt 8: the figure says which was read)
        check(r.returncode == 0 and "all: 1 figures" in r.stdout and "panels=4 " in r.stdout,
              f"all: a shift run as .json and .txt drawn once, from the .json: "
              f"{r.stdout.strip()!r}")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("render", "errors"):
        print(__doc__, file=sys.stderr)
        return 2
    {"render": render, "errors": errors}[sys.argv[1]](os.path.abspath(sys.argv[2]))
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
