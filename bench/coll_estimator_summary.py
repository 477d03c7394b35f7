#!/usr/bin/env python3
"""Summary tables of bench/compare_coll_estimator.sh's results folder (markdown on stdout).

Per layout and algorithm, mean |time error| of the estimator (fresh: over all its launches):
  model     against the validation cases measured inside the calibration's own run (fresh): what
            the model gets wrong when nothing else changes;
  fresh     against the same cases measured again later in that launch;
  other     a calibration file validated in two other launches (val-a, val-b): what a user sees;
and the drift of the measured times between those two launches and the mean noise inside a
launch; then the same per layout over all algorithms, with the energy errors and how often the
choice was the measured cheapest.
   usage: bench/coll_estimator_summary.py RESULTS_DIR
"""
import json
import pathlib
import statistics
import sys


def rows(path):
    return json.loads(path.read_text())["rows"]


def err(r, what, against="meas_"):
    meas = r.get(against + what, 0)
    return abs(r["pred_" + what] / meas - 1) if meas > 0 else None


def mean(xs):
    xs = [x for x in xs if x is not None]
    return 100 * statistics.fmean(xs) if xs else float("nan")


def main():
    d = pathlib.Path(sys.argv[1])
    layouts = sorted(p.name[len("fresh-"):-len("-1.json")] for p in d.glob("fresh-*-1.json"))
    overall = []
    for name in layouts:
        launches = sorted(d.glob(f"fresh-{name}-*.json"))
        per_launch = [rows(p) for p in launches]
        fresh = [r for rs in per_launch for r in rs]
        va, vb = rows(d / f"val-{name}-a.json"), rows(d / f"val-{name}-b.json")
        key = lambda r: (r["op"], r["algorithm"], r["bytes"])
        vb_by = {key(r): r for r in vb}
        print(f"\n## {name}\n")
        print("| operation | algorithm | model time err % | fresh time err % "
              "| other launches time err % | drift between launches % | noise in a launch % |")
        print("|---|---|---|---|---|---|---|")
        algos = []
        for r in fresh:
            if (r["op"], r["algorithm"]) not in algos:
                algos.append((r["op"], r["algorithm"]))
        for op, algo in algos:
            f = [r for r in fresh if (r["op"], r["algorithm"]) == (op, algo)]
            a = [r for r in va + vb if (r["op"], r["algorithm"]) == (op, algo)]
            drift = [abs(r["meas_s"] / vb_by[key(r)]["meas_s"] - 1)
                     for r in va if (r["op"], r["algorithm"]) == (op, algo) and key(r) in vb_by]
            print(f"| {op} | {algo} | {mean(err(r, 's', 'same_run_') for r in f):.1f} "
                  f"| {mean(err(r, 's') for r in f):.1f} "
                  f"| {mean(err(r, 's') for r in a):.1f} | {mean(drift):.1f} "
                  f"| {mean(r['noise'] for r in f + a):.1f} |")
        drift_all = [abs(r["meas_s"] / vb_by[key(r)]["meas_s"] - 1) for r in va if key(r) in vb_by]
        picks = [r for r in fresh if r["chosen"]]
        model_by_launch = sorted(mean(err(r, "s", "same_run_") for r in rs) for rs in per_launch)
        print(f"\nModel time error per launch ({len(per_launch)} launches): "
              + ", ".join(f"{x:.1f} %" for x in model_by_launch)
              + f"; median {statistics.median(model_by_launch):.1f} %.")
        overall.append((name, mean(err(r, "s", "same_run_") for r in fresh),
                        mean(err(r, "j", "same_run_") for r in fresh),
                        mean(err(r, "s") for r in fresh), mean(err(r, "s") for r in va + vb),
                        mean(drift_all), mean(r["noise"] for r in fresh + va + vb),
                        mean(err(r, "j") for r in fresh), mean(err(r, "j") for r in va + vb),
                        sum(r["measured_best"] for r in picks), len(picks)))
    print("\n## All algorithms\n")
    print("| layout | model time err % | model energy err % | fresh time err % "
          "| other launches time err % | drift % | noise % | fresh energy err % "
          "| other launches energy err % | fresh choice = measured cheapest |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for o in overall:
        print(f"| {o[0]} | {o[1]:.1f} | {o[2]:.1f} | {o[3]:.1f} | {o[4]:.1f} | {o[5]:.1f} "
              f"| {o[6]:.1f} | {o[7]:.1f} | {o[8]:.1f} | {o[9]} of {o[10]} |")


if __name__ == "__main__":
    main()
