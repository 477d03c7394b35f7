#!/usr/bin/env python3
"""Summary of bench/model_validate.sh: mean |error| per model, layout and progress mode, in the
launch that calibrated and in a later launch.

usage: bench/model_summary.py RESULTS_DIR  (prints Markdown)
"""
import json
import pathlib
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = pathlib.Path(sys.argv[1])
    fresh = {p.stem[len("fresh-"):]: load(p) for p in sorted(d.glob("fresh-*.json"))}
    other = {p.stem[len("other-"):]: load(p) for p in sorted(d.glob("other-*.json"))}
    modes = sorted({k.rsplit("-", 1)[1] for k in fresh}, key=lambda m: (m != "spin", m))
    print("# Scale models: mean |error| per model (%)\n")
    print("Each cell: the launch that calibrated / a later launch with that calibration. Sizes lie")
    print("between the calibration's; the cases are in the JSON files beside this one.\n")
    for mode in modes:
        keys = [k for k in fresh if k.endswith("-" + mode)]
        layouts = [k[: -len(mode) - 1] for k in keys]
        models = sorted({m for k in keys for m in fresh[k]["summary"]})
        print("## progress mode %s\n" % mode)
        print("| model | " + " | ".join(layouts) + " |")
        print("|---|" + "---|" * len(layouts))
        for m in models:
            cells = []
            for k in keys:
                f = fresh[k]["summary"].get(m)
                o = other.get(k, {}).get("summary", {}).get(m)
                if f is None:
                    cells.append("—")
                else:
                    cells.append("%.0f / %s" % (f["mean_abs_error_pct"],
                                                "%.0f" % o["mean_abs_error_pct"] if o else "—"))
            print("| %s | %s |" % (m, " | ".join(cells)))
        # All cases of a layout alike.
        cells = []
        for k in keys:
            def mean(run):
                errs = [abs(c["error_pct"]) for c in run.get("cases", [])]
                return sum(errs) / len(errs) if errs else float("nan")
            cells.append("%.0f / %.0f" % (mean(fresh[k]), mean(other.get(k, {}))))
        print("| **all cases** | %s |\n" % " | ".join(cells))
    for k in fresh:
        print("- %s: %d ranks on %d nodes; %s" % (
            k, fresh[k]["ranks"], fresh[k]["nodes"], fresh[k]["machine_source"]))


if __name__ == "__main__":
    main()
