#!/usr/bin/env python3
"""Predicted vs measured table of bench/model_apps.sh.

usage: model_apps_summary.py RESULTS_DIR "LAYOUTS"
Reads meas-<app>-<layout>.txt (the app's --json line, last JSON line of the file) and
pred-<app>-<layout>.json (gaea-model's --json) and prints a Markdown table: per app and layout
the measured and predicted time of one iteration and their parts, and the error of the total
(predicted / measured - 1). Goal: within 15 %.
"""
import json
import pathlib
import sys


def last_json(path):
    found = None
    for line in path.read_text(errors="replace").splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                found = json.loads(line)
            except json.JSONDecodeError:
                pass
    if found is None:
        raise SystemExit(f"{path}: no JSON line")
    return found


def lu(m, p):
    # One factorisation: the slowest rank's time; parts: mean compute, comm, sync per rank.
    return (m["time_s"], p["total_s"],
            f"compute {m['compute_s']:.3g} / {p['compute_s']:.3g}, "
            f"comm {m['comm_s']:.3g} / {p['comm_s']:.3g}, "
            f"sync {m['sync_s']:.3g} / {p['wait_s']:.3g}")


def lbm(m, p):
    # One time step: the loop over the steps, per step; parts per step (mean over ranks).
    s = m["steps"]
    return (m["loop_s"] / s, p["step_s"],
            f"compute {m['compute_s'] / s:.3g} / {p['compute_s']:.3g}, "
            f"ghosts {m['ghosts_s'] / s:.3g} / {p['ghosts_s']:.3g}")


def scf(m, p):
    # One SCF iteration (mean over the iterations), Fock parts summed over a rank's threads.
    return (m["iteration_s"], p["total_s"],
            f"integrals {m['integrals_s']:.3g} / {p['integrals_s']:.3g}, "
            f"counter {m['counter_s']:.3g} / {p['counter_s']:.3g}, "
            f"get {m['get_s']:.3g} / {p['get_s']:.3g}, acc {m['acc_s']:.3g} / {p['acc_s']:.3g}, "
            f"diag {m['diag_s']:.3g} / {p['diag_s'] + p['collectives_s']:.3g}")


def main():
    d = pathlib.Path(sys.argv[1])
    layouts = sys.argv[2].split()
    print("| app | layout | ranks | measured s | predicted s | error | parts (measured / predicted, s) |")
    print("|---|---|---|---|---|---|---|")
    worst = {}
    for app, f in (("lu", lu), ("lbm", lbm), ("scf", scf)):
        for layout in layouts:
            mp, pp = d / f"meas-{app}-{layout}.txt", d / f"pred-{app}-{layout}.json"
            if not mp.exists() or not pp.exists():
                continue
            m = last_json(mp)
            pred = json.loads(pp.read_text())["points"][0]
            meas_s, pred_s, parts = f(m, pred)
            err = pred_s / meas_s - 1
            worst[app] = max(worst.get(app, 0), abs(err))
            print(f"| {app} | {layout} | {m['ranks']} | {meas_s:.4g} | {pred_s:.4g} | "
                  f"{100 * err:+.1f} % | {parts} |")
    print()
    for app, w in worst.items():
        print(f"- {app}: largest |error| {100 * w:.1f} % ({'within' if w <= 0.15 else 'outside'} "
              "the 15 % goal)")


if __name__ == "__main__":
    main()
