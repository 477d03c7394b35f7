#!/usr/bin/env python3
"""The goals of the auto wait mode over several bench/run_energy.sh directories (repetitions).

  bench/energy_goals.py DIR [DIR...] [--sparse FILE...]

reaction: for each gap, every message of every repetition pooled, median reaction per mode;
  auto / spin per gap (goal <= 1.5). shift: per primitive and size, latency per repetition
  (each already a median of the run's blocks), median over repetitions, auto / polling (goal
  <= 1.05), and how many repetitions there were. --sparse: reaction JSON files of sparse-only
  runs (gaps >= 1 ms): the receiver's CPU per mode, auto / spin (goal <= 10 %).
Prints Markdown; exit 2 on unreadable input.
"""
import json
import os
import statistics
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"energy_goals: error: {path}: {e}", file=sys.stderr)
        sys.exit(2)


def runs_of(dirs, name):
    """The results NAME (e.g. reaction-sm.json) of the directories that have one."""
    paths = [os.path.join(d, name) for d in dirs]
    return [load(p) for p in paths if os.path.exists(p)]


def reaction_table(dirs, tls):
    pooled = {}  # gap -> mode -> [reaction_us]
    runs = runs_of(dirs, f"reaction-{tls}.json")
    for run in runs:
        for g in run["gaps"]:
            for mode, v in g["modes"].items():
                pooled.setdefault(g["gap_us"], {}).setdefault(mode, []).extend(v["reaction_us"])
    if not runs:
        return
    modes = list(next(iter(pooled.values())).keys())
    # Runs before --sender-mode existed ran the sender in the measured mode ("same").
    senders = sorted({r.get("parameters", {}).get("sender_mode", "same") for r in runs})
    print(f"\n### reaction, UCX_TLS={tls}: median of {len(runs)} runs x messages per gap (us), "
          f"sender mode {', '.join(senders)}\n")
    print("| gap us | " + " | ".join(modes) + " | auto/spin | goal <= 1.5 |")
    print("|---" * (len(modes) + 3) + "|")
    met = 0
    for gap in sorted(pooled):
        med = {m: statistics.median(pooled[gap][m]) for m in modes}
        ratio = med["auto"] / med["spin"] if med.get("spin") else float("nan")
        ok = ratio <= 1.5
        met += ok
        print(f"| {gap:.1f} | " + " | ".join(f"{med[m]:.1f}" for m in modes) +
              f" | {ratio:.2f} | {'met' if ok else 'missed'} |")
    print(f"\nauto within 1.5x of spin at {met} of {len(pooled)} gaps")


def shift_table(dirs, tls):
    lat = {}  # (prim, bytes) -> config -> [latency per run]
    runs = runs_of(dirs, f"shift-{tls}.json")
    reps = None
    for run in runs:
        for r in run["results"]:
            lat.setdefault((r["prim"], r["bytes"]), {}).setdefault(r["config"], []).append(
                r["latency_us"])
            reps = len(r["reps"])
    if not runs:
        return
    print(f"\n### shift, UCX_TLS={tls}: latency us, median of {len(runs)} runs "
          f"(each the median of {reps} blocks)\n")
    print("| primitive | bytes | polling | auto | auto/polling | goal <= 1.05 |")
    print("|---|---|---|---|---|---|")
    met = total = 0
    for (prim, b), c in lat.items():
        p, a = statistics.median(c["polling"]), statistics.median(c["auto"])
        ok = a / p <= 1.05
        met += ok
        total += 1
        print(f"| {prim} | {b} | {p:.2f} | {a:.2f} | {a / p:.3f} | {'met' if ok else 'missed'} |")
    print(f"\nauto within 1.05x of polling at {met} of {total} primitive x size points")


def sparse_table(files):
    cpu = {}  # tls -> mode -> [cpu %]
    react = {}
    for f in files:
        d = load(f)
        for m in d["modes"]:
            cpu.setdefault(d["ucx_tls"], {}).setdefault(m["mode"], []).append(
                m["receiver_cpu_percent"])
            react.setdefault(d["ucx_tls"], {}).setdefault(m["mode"], []).append(
                m["sparse_median_reaction_us"])
    print("\n### sparse traffic only (gaps 1-100 ms): receiver CPU % of one core, median of runs\n")
    print("| transport | mode | CPU % | of spin's | sparse reaction us |")
    print("|---|---|---|---|---|")
    for tls, modes in cpu.items():
        spin = statistics.median(modes["spin"])
        for m, v in modes.items():
            c = statistics.median(v)
            print(f"| {tls} | {m} | {c:.2f} | {100 * c / spin:.1f} % | "
                  f"{statistics.median(react[tls][m]):.1f} |")


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if "--sparse" in argv:
        i = argv.index("--sparse")
        dirs, sparse = argv[:i], argv[i + 1:]
    else:
        dirs, sparse = argv, []
    if not dirs and not sparse:
        print(__doc__, file=sys.stderr)
        return 2
    for tls in ("sm", "tcp"):
        reaction_table(dirs, tls)
        shift_table(dirs, tls)
    if sparse:
        sparse_table(sparse)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
