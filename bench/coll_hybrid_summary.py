#!/usr/bin/env python3
"""Summary of bench/compare_coll_hybrid.sh's results folder (markdown on stdout): per case A-D of
[Bcast-Energy]'s validation, every broadcast algorithm's predicted and measured time per call and
energy for the case's messages, the errors, and whether the estimator's choice (least predicted
energy within 2 % of the fastest) is the measured cheapest by the same rule.
   usage: bench/coll_hybrid_summary.py RESULTS_DIR
"""
import json
import pathlib
import sys


def pct(pred, meas):
    return 100 * (pred / meas - 1) if meas > 0 else float("nan")


def main(folder):
    folder = pathlib.Path(folder)
    print("# [Bcast-Energy] validation cases A-D, scaled: estimator against measurement\n")
    print("```")
    print((folder / "run.txt").read_text().rstrip())
    print("```\n")
    worst = []
    for line in (folder / "cases.txt").read_text().splitlines():
        name, msgs, hosts, ppn = line.split()
        msgs = int(msgs)
        j = json.loads((folder / f"{name}.json").read_text())
        rows = j["rows"]
        size = rows[0]["bytes"] if rows else 0
        print(f"## Case {name}: {msgs} x {size} B on {hosts} host(s) x {ppn} "
              f"({j['ranks']} ranks, {j['nodes']} node(s))\n")
        print("| algorithm | predicted ms/call | measured ms/call | time err % | noise % "
              "| predicted J (all msgs) | measured J | energy err % | |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            et, ee = pct(r["pred_s"], r["meas_s"]), pct(r["pred_j"], r["meas_j"])
            worst.append((abs(et), abs(ee), name, r["algorithm"]))
            mark = ("chosen, measured cheapest" if r["chosen"] and r["measured_best"] else
                    "chosen" if r["chosen"] else "measured cheapest" if r["measured_best"] else "")
            print(f"| {r['algorithm']} | {1e3 * r['pred_s']:.3f} | {1e3 * r['meas_s']:.3f} "
                  f"| {et:+.1f} | {100 * r['noise']:.1f} | {msgs * r['pred_j']:.4g} "
                  f"| {msgs * r['meas_j']:.4g} | {ee:+.1f} | {mark} |")
        right = j["picked_best"] == j["picks"] and j["picks"] > 0
        print(f"\nEstimator's choice is the measured cheapest: {'yes' if right else 'no'}.\n")
    if worst:
        within_t = sum(1 for t, _, _, _ in worst if t <= 7)
        within_e = sum(1 for _, e, _, _ in worst if e <= 7)
        print(f"Within 7 %: time {within_t} of {len(worst)}, energy {within_e} of {len(worst)} "
              f"points; worst time {max(w[0] for w in worst):.1f} %, worst energy "
              f"{max(w[1] for w in worst):.1f} %.")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
