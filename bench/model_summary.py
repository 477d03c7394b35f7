#!/usr/bin/env python3
"""Summary of bench/model_validate.sh: mean |error| per model and layout, fresh vs other launch.

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
    layouts = list(fresh)
    models = sorted({m for v in fresh.values() for m in v["summary"]})
    print("# Scale models: mean |error| per model (%)\n")
    print("Each cell: same launch as the calibration / a later launch. Cases per model in the")
    print("JSON files beside this one.\n")
    print("| model | " + " | ".join(layouts) + " |")
    print("|---|" + "---|" * len(layouts))
    for m in models:
        cells = []
        for lay in layouts:
            f = fresh[lay]["summary"].get(m)
            o = other.get(lay, {}).get("summary", {}).get(m)
            if f is None:
                cells.append("—")
            else:
                cells.append("%.0f / %s" % (f["mean_abs_error_pct"],
                                            "%.0f" % o["mean_abs_error_pct"] if o else "—"))
        print("| %s | %s |" % (m, " | ".join(cells)))
    print()
    for lay in layouts:
        print("- %s: %d ranks on %d nodes; machine %s" % (
            lay, fresh[lay]["ranks"], fresh[lay]["nodes"], fresh[lay]["machine_source"]))


if __name__ == "__main__":
    main()
