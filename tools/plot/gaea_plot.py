#!/usr/bin/python3
"""Figures (PNG or SVG) of Gaea's benchmark results and GAEA_TRACE files.

  gaea_plot.py shift    FILE -o OUT    shift-*.json or shift-*.txt: latency ratio and energy per MB
                                       vs transfer size per wait configuration [PASCoL §4.2]
  gaea_plot.py reaction FILE -o OUT    reaction-*.json: reaction time vs gap per wait mode
                                       [AdaptivePolling Fig. 5]
  gaea_plot.py counters FILE -o OUT    compare_counters.sh's results.jsonl: fetch-and-add latency
                                       vs ranks per counter mode and variant [PGAS-BGQ Fig. 10]
  gaea_plot.py idle     FILE -o OUT    idle_wait-*.json: CPU and power of waiting ranks per mode
  gaea_plot.py timeline FILE -o OUT    a GAEA_TRACE HDF5 file: wait states per rank and thread
  gaea_plot.py apps     FILE -o OUT    bench/app_energy.sh's summary.json: time over the fastest
                                       mode and CPU-s per wait mode and app, per layout; the
                                       colocated hog's throughput per mode
  gaea_plot.py all DIR -o OUTDIR [--format png|svg]
                                       every file above found under DIR (recursively), each to
                                       OUTDIR/<path under DIR, '/' -> '_'>.<format>; a
                                       results.jsonl or .h5 of another kind is skipped, a bad
                                       file of the others is reported and the rest drawn; a
                                       shift .txt beside its .json is drawn once, from the .json

OUT's extension (.png or .svg) chooses the format. Every figure prints one line:
  <out>: kind=<kind> panels=<n> series=<n> x=<n> points=<n>
series = lines (configurations, modes, mode+variant, or timeline bands), x = distinct x values
(sizes, gaps, rank counts; ranks for a timeline), points = values drawn (state changes for a
timeline). Exit status: 0 drawn; 2 bad input (a missing file, another benchmark's file, a bad
output name; one line on stderr each; for `all`, any file); 3 matplotlib (python3-matplotlib) or
h5py (python3-h5py) missing.
Run with Debian's /usr/bin/python3 (scripts/install-deps.sh --plots installs both packages).
"""
import argparse
import fnmatch
import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gaea_plot_data import (PlotError, read_apps, read_counters,  # noqa: E402
                            read_idle, read_reaction, read_shift, read_trace)

FORMATS = (".png", ".svg")

# kind -> (reader, figure function name, file-name patterns `all` picks up)
KINDS = {
    "shift": (read_shift, "shift", ("shift-*.json", "shift-*.txt")),
    "reaction": (read_reaction, "reaction", ("reaction-*.json",)),
    "counters": (read_counters, "counters", ("results.jsonl",)),
    "idle": (read_idle, "idle", ("idle_wait-*.json",)),
    "timeline": (read_trace, "timeline", ("*.h5",)),
    "apps": (read_apps, "apps", ("summary.json",)),
}


def _figures():
    try:
        import gaea_plot_figures  # pylint: disable=import-outside-toplevel
    except ImportError as e:
        print(f"gaea_plot: error: {e}: install python3-matplotlib (scripts/install-deps.sh --plots)"
              f" and run with /usr/bin/python3 (this is {sys.executable})", file=sys.stderr)
        sys.exit(3)
    return gaea_plot_figures


def draw(kind, path, out):
    """Reads `path` as a `kind` result and writes its figure to `out`; returns the summary line."""
    if os.path.splitext(out)[1].lower() not in FORMATS:
        raise PlotError(f"output '{out}': the name must end in .png or .svg")
    out_dir = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(out_dir):
        raise PlotError(f"output '{out}': directory '{out_dir}' does not exist")
    reader, function, _ = KINDS[kind]
    if kind == "timeline":
        if importlib.util.find_spec("h5py") is None:
            print("gaea_plot: error: reading a GAEA_TRACE file needs h5py: install python3-h5py "
                  "(scripts/install-deps.sh --plots)", file=sys.stderr)
            sys.exit(3)
    data = reader(path)
    summary = getattr(_figures(), function)(data, path, out)
    return (f"{out}: kind={summary['kind']} panels={summary['panels']} "
            f"series={summary['series']} x={summary['x']} points={summary['points']}")


def found(root):
    """(kind, path) of every known result file under `root`, in sorted order. A results.jsonl is
    taken only if it holds counter lines, a shift .json only if it is one (checked when read). A
    shift .txt beside a .json of the same name (bench/run_energy.sh writes both) is the same run:
    only the .json is drawn, or both would write one figure."""
    hits = []
    for d, subdirs, files in os.walk(root):
        subdirs.sort()
        for name in sorted(files):
            for kind, (_, _, patterns) in KINDS.items():
                if not any(fnmatch.fnmatch(name, p) for p in patterns):
                    continue
                stem, ext = os.path.splitext(name)
                if kind == "shift" and ext == ".txt" and stem + ".json" in files:
                    continue
                hits.append((kind, os.path.join(d, name)))
    return hits


def draw_all(root, out_dir, fmt):
    if not os.path.isdir(root):
        raise PlotError(f"'{root}': not a directory")
    os.makedirs(out_dir, exist_ok=True)
    hits = found(root)
    drawn, failed = 0, 0
    for kind, path in hits:
        rel = os.path.relpath(path, root)
        out = os.path.join(out_dir, os.path.splitext(rel)[0].replace(os.sep, "_") + "." + fmt)
        try:
            print(draw(kind, path, out), flush=True)
            drawn += 1
        except PlotError as e:
            if kind in ("counters", "timeline", "apps"):
                # results.jsonl, *.h5 and summary.json are also other benchmarks' and GA I/O's
                # names
                print(f"{path}: skipped, not a {kind} input ({e})", flush=True)
            else:
                print(f"gaea_plot: error: all: {e}", file=sys.stderr, flush=True)
                failed += 1
    if drawn == 0 and failed == 0:
        raise PlotError(f"'{root}': no known result file (shift-*, reaction-*.json, "
                        "idle_wait-*.json, results.jsonl, *.h5, summary.json)")
    print(f"all: {drawn} figures from {root}" + (f", {failed} failed" if failed else ""))
    return 2 if failed else 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="gaea_plot.py", description=__doc__.split("\n\n", maxsplit=1)[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 1)[1])
    sub = parser.add_subparsers(dest="kind", required=True, metavar="KIND")
    for kind in KINDS:
        p = sub.add_parser(kind, help=f"one {kind} figure")
        p.add_argument("file")
        p.add_argument("-o", "--output", required=True, help="OUT.png or OUT.svg")
    p = sub.add_parser("all", help="every known result under a directory")
    p.add_argument("dir")
    p.add_argument("-o", "--output", required=True, help="output directory (created)")
    p.add_argument("--format", choices=("png", "svg"), default="png")
    args = parser.parse_args(argv)
    try:
        if args.kind == "all":
            return draw_all(args.dir, args.output, args.format)
        else:
            print(draw(args.kind, args.file, args.output))
    except PlotError as e:
        print(f"gaea_plot: error: {args.kind}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
