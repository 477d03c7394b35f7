#!/usr/bin/python3
"""Records and summary of bench/app_energy.sh (the wait modes at application level).

  app_energy_summary.py record --kind K --app A --layout L --mode M --rep R --ranks N --exit S
      --launch-s T --load-before X --load-after Y --busy-before Z --log LOG --report REPORT
      --args ARGS
                  one JSON line on stdout for one launch: the app's own time (from its --json
                  line in LOG) and the GAEA_REPORT figures (wall_s, cpu_s, energy and its source,
                  wait-state wall times, DVFS transitions), plus the launch facts given
  app_energy_summary.py hog --variant V --rep R --load X --json HOG
                  one JSON line for a run of cpu_hog alone
  app_energy_summary.py attach-hog --variant V --hog HOG < LINE
                  the launch line on stdin with the colocated hog's figures added
  app_energy_summary.py summary DIR
                  DIR/summary.md and DIR/summary.json from DIR/runs.jsonl and DIR/coloc.jsonl
  app_energy_summary.py check DIR [--layouts L] [--apps A] [--modes M] [--coloc-app C]
                  exit 1 unless DIR/summary.json has every layout x app x mode row with positive
                  figures, a goal per layout x app and a colocation row per mode (the ctest)

The app's own time: gaea-lu's factorisation (time_s), gaea-lbm's time-step loop (loop_s),
gaea-scf's guess and iterations (guess_s + iterations x iteration_s).
"""
import argparse
import json
import os
import statistics
import sys

GOAL_TIME = 0.02  # auto within 2 % of the fastest mode's time
GOAL_CPU = 0.30   # and at least 30 % fewer CPU-seconds than spin
WAIT_STATES = ("spin", "sleep", "block")


def app_line(log):
    """The last line of `log` that is a JSON object (the app's --json line), or None."""
    found = None
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.strip()
                if line.startswith("{") and line.endswith("}"):
                    try:
                        found = json.loads(line)
                    except json.JSONDecodeError:
                        pass
    except OSError:
        return None
    return found if isinstance(found, dict) else None


def app_time(app, j):
    """(seconds, what) of the app's own timing from its JSON line."""
    if j is None:
        return None, None
    if app == "lu" and "time_s" in j:
        return float(j["time_s"]), "factorisation"
    if app == "lbm" and "loop_s" in j:
        return float(j["loop_s"]), "time-step loop"
    if app == "scf" and "iteration_s" in j:
        return (float(j.get("guess_s", 0.0)) + float(j["iterations"]) * float(j["iteration_s"]),
                "guess and iterations")
    return None, None


def app_wait_fraction(rep):
    """The application threads' share of their time spent waiting, estimated from the report's
    wait-state wall times (summed over all threads of all ranks): one progress thread per rank
    is taken as waiting for its whole interval, so what remains of the wait
    states is the application threads'. Under `off` that thread exists too, parked (block).
    A lower bound: the progress thread's own handling time is counted as its waiting."""
    states = rep.get("wait_states") or {}
    total = sum(float(v.get("wall_s", 0.0)) for v in states.values())
    waiting = sum(float(states.get(s, {}).get("wall_s", 0.0)) for s in WAIT_STATES)
    rank_wall = sum((rep.get("per_rank") or {}).get("wall_s") or [])
    progress = rank_wall
    app_total = total - progress
    if app_total <= 0:
        return None
    return max(0.0, waiting - progress) / app_total


def record(a):
    line = {"kind": a.kind, "app": a.app, "layout": a.layout, "mode": a.mode, "rep": a.rep,
            "ranks": a.ranks, "exit": a.exit, "launch_s": a.launch_s,
            "load_before": a.load_before, "load_after": a.load_after,
            "busy_before": a.busy_before, "args": a.args, "log": os.path.basename(a.log),
            "report": os.path.basename(a.report)}
    j = app_line(a.log)
    t, what = app_time(a.app, j)
    line["app_time_s"], line["app_time_of"] = t, what
    if j is not None:
        line["app_json"] = j
    try:
        with open(a.report, encoding="utf-8") as f:
            rep = json.load(f)
    except (OSError, json.JSONDecodeError):
        rep = None
    if rep is not None:
        energy = rep.get("energy") or {}
        line.update({
            "wall_s": rep.get("wall_s"), "cpu_s": rep.get("cpu_s"),
            "cpu_fraction_of_hardware_threads": rep.get("cpu_fraction_of_hardware_threads"),
            "energy_j": energy.get("joules"), "energy_kind": energy.get("kind"),
            "energy_source": energy.get("source"), "energy_summed_over": energy.get("summed_over"),
            "report_mode": rep.get("mode"), "nodes": rep.get("nodes"), "hosts": rep.get("hosts"),
            "wait_states_wall_s": {k: v.get("wall_s") for k, v in
                                   (rep.get("wait_states") or {}).items()},
            "rank_wall_s": (rep.get("per_rank") or {}).get("wall_s"),
            "waits": rep.get("waits"), "wakeups": rep.get("wakeups"), "blocks": rep.get("blocks"),
            "dvfs_transitions": (rep.get("dvfs") or {}).get("transitions"),
            "app_wait_fraction": app_wait_fraction(rep)})
    line["ok"] = a.exit == 0 and t is not None and rep is not None
    print(json.dumps(line, sort_keys=True))


def hog_json(path):
    with open(path, encoding="utf-8") as f:
        for text in f:
            text = text.strip()
            if text.startswith("{"):
                return json.loads(text)
    raise ValueError(f"{path}: no cpu_hog JSON line")


def hog(a):
    try:
        h = hog_json(a.json)
    except (OSError, ValueError) as e:
        h = {"error": str(e)}
    print(json.dumps({"kind": "hog-alone", "variant": a.variant, "rep": a.rep, "load": a.load,
                      "hog": h, "ok": "units_per_s" in h}, sort_keys=True))


def attach_hog(a):
    line = json.loads(sys.stdin.read())
    try:
        line["hog"] = hog_json(a.hog)
    except (OSError, ValueError) as e:
        line["hog"] = {"error": str(e)}
        line["ok"] = False
    line["variant"] = a.variant
    print(json.dumps(line, sort_keys=True))


# --- summary --------------------------------------------------------------------------------

def read_lines(path):
    rows = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(x) for x in f if x.strip()]
    return rows


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def common(values):
    values = [v for v in values if v]
    return max(set(values), key=values.count) if values else None


def environment(d):
    env = {}
    try:
        with open(os.path.join(d, "environment.txt"), encoding="utf-8") as f:
            for text in f:
                k, sep, v = text.partition(":")
                if sep:
                    env[k.strip()] = v.strip()
    except OSError:
        pass
    return env


def goal_of(rows_by_mode):
    """The issue's goal for one app x layout: auto within GOAL_TIME of the fastest mode's time
    and at least GOAL_CPU fewer CPU-seconds than spin, wherever ranks wait. "Ranks barely wait"
    when spin's CPU-seconds are within GOAL_CPU of the compute-only floor, taken as the fewest
    CPU-seconds any mode needed for the same work: then no wait policy can save GOAL_CPU."""
    auto, spin = rows_by_mode.get("auto"), rows_by_mode.get("spin")
    if not auto or not spin or not auto.get("time_s") or not spin.get("cpu_s"):
        return {"status": "n/a", "reason": "auto or spin not measured"}
    fastest = min(r["time_s"] for r in rows_by_mode.values() if r.get("time_s"))
    floor = min(r["cpu_s"] for r in rows_by_mode.values() if r.get("cpu_s"))
    floor_cut = 1 - floor / spin["cpu_s"]
    out = {"auto_time_ratio": auto["time_s"] / fastest,
           "auto_cpu_ratio_spin": auto["cpu_s"] / spin["cpu_s"],
           "floor_cpu_ratio_spin": floor / spin["cpu_s"],
           "spin_app_wait_fraction": spin.get("app_wait_fraction")}
    if floor_cut < GOAL_CPU:
        out.update(status="n/a", reason=(
            f"ranks barely wait: the fewest CPU-s of any mode is {100 * floor_cut:.0f} % below "
            f"spin's (< {100 * GOAL_CPU:.0f} %)"))
        return out
    time_ok = out["auto_time_ratio"] <= 1 + GOAL_TIME
    cpu_ok = out["auto_cpu_ratio_spin"] <= 1 - GOAL_CPU
    why = []
    if not time_ok:
        why.append(f"time {100 * (out['auto_time_ratio'] - 1):+.1f} % vs the fastest")
    if not cpu_ok:
        why.append(f"CPU-s {100 * (out['auto_cpu_ratio_spin'] - 1):+.0f} % vs spin")
    out.update(status="met" if time_ok and cpu_ok else "missed", reason="; ".join(why))
    return out


def fmt(v, spec, none="-"):
    return none if v is None else format(v, spec)


def summary(d):
    runs = [r for r in read_lines(os.path.join(d, "runs.jsonl"))]
    coloc = read_lines(os.path.join(d, "coloc.jsonl"))
    env = environment(d)
    order = {"spin": 0, "adaptive": 1, "adaptive_fixed": 2, "interrupt": 3, "auto": 4, "off": 5}
    keys = list(dict.fromkeys((r["app"], r["layout"]) for r in runs))
    rows, goals = [], []
    for app, layout in keys:
        mine = [r for r in runs if r["app"] == app and r["layout"] == layout]
        by_mode = {}
        for mode in sorted({r["mode"] for r in mine}, key=lambda m: order.get(m, 9)):
            ok = [r for r in mine if r["mode"] == mode and r.get("ok")]
            by_mode[mode] = {
                "app": app, "layout": layout, "mode": mode, "runs": len(ok),
                "failed": sum(1 for r in mine if r["mode"] == mode and not r.get("ok")),
                "ranks": mine[0]["ranks"], "time_s": med(r["app_time_s"] for r in ok),
                "time_of": common([r.get("app_time_of") for r in ok]),
                "wall_s": med(r.get("wall_s") for r in ok),
                "launch_s": med(r.get("launch_s") for r in ok),
                "cpu_s": med(r.get("cpu_s") for r in ok),
                "energy_j": med(r.get("energy_j") for r in ok),
                "energy_kind": common([r.get("energy_kind") for r in ok]),
                "energy_source": common([r.get("energy_source") for r in ok]),
                "app_wait_fraction": med(r.get("app_wait_fraction") for r in ok),
                "dvfs_transitions": med(r.get("dvfs_transitions") for r in ok),
                "load_before": [r.get("load_before") for r in ok]}
        fastest = min((r["time_s"] for r in by_mode.values() if r["time_s"]), default=None)
        spin_cpu = (by_mode.get("spin") or {}).get("cpu_s")
        for r in by_mode.values():
            r["time_ratio"] = r["time_s"] / fastest if r["time_s"] and fastest else None
            r["cpu_ratio_spin"] = r["cpu_s"] / spin_cpu if r["cpu_s"] and spin_cpu else None
            rows.append(r)
        goals.append({"app": app, "layout": layout, **goal_of(by_mode)})

    alone = {}
    for variant in sorted({c["variant"] for c in coloc}):
        rates = [c["hog"]["units_per_s"] for c in coloc
                 if c["kind"] == "hog-alone" and c["variant"] == variant and c.get("ok")]
        alone[variant] = med(rates)
    crow = []
    for app, variant in dict.fromkeys((c["app"], c["variant"]) for c in coloc
                                      if c["kind"] != "hog-alone"):
        mine = [c for c in coloc if c["kind"] != "hog-alone" and c["app"] == app
                and c["variant"] == variant]
        for mode in sorted({c["mode"] for c in mine}, key=lambda m: order.get(m, 9)):
            ok = [c for c in mine if c["mode"] == mode and c.get("ok")]
            rate = med(c["hog"].get("units_per_s") for c in ok)
            crow.append({
                "app": app, "variant": variant, "mode": mode, "runs": len(ok),
                "failed": sum(1 for c in mine if c["mode"] == mode and not c.get("ok")),
                "app_time_s": med(c["app_time_s"] for c in ok),
                "app_cpu_s": med(c.get("cpu_s") for c in ok),
                "app_energy_j": med(c.get("energy_j") for c in ok),
                "hog_units_per_s": rate,
                "hog_percent": 100 * rate / alone[variant] if rate and alone.get(variant) else None,
                "hog_cpu_s": med(c["hog"].get("cpu_s") for c in ok)})
        alone_app = {r["mode"]: r["time_s"] for r in rows
                     if r["app"] == app and r["layout"] == "node-2"}
        for c in crow:
            if c["app"] == app and c["variant"] == variant and alone_app.get(c["mode"]) \
                    and c["app_time_s"]:
                c["app_time_vs_alone"] = c["app_time_s"] / alone_app[c["mode"]]

    result = {"bench": "app_energy", "schema_version": 1, "environment": env,
              "goal": {"time_within": GOAL_TIME, "cpu_cut_vs_spin": GOAL_CPU},
              "rows": rows, "goals": goals, "colocation": crow, "hog_alone_units_per_s": alone,
              "failed_launches": sum(1 for r in runs + coloc if not r.get("ok"))}
    write(os.path.join(d, "summary.json"), json.dumps(result, indent=1, sort_keys=True) + "\n")
    write(os.path.join(d, "summary.md"), markdown(result))


def markdown(s):
    env = s["environment"]
    out = ["# Wait modes at application level (bench/app_energy.sh)", ""]
    for k in ("date", "commit", "host", "reps", "GAEA_DVFS", "loadavg at start", "loadavg at end"):
        if k in env:
            out.append(f"- {k}: {env[k]}")
    out += ["", "Per app, layout and mode, medians over repetitions: the app's own time, that time "
            "over the fastest mode's, the report's wall_s, CPU-s (report cpu_s, all ranks) and "
            "CPU-s over spin's, energy (report; summed over ranks for the model, over nodes for a "
            "meter), `wait`: the application threads' share of time in wait states (estimated "
            "from the report's wait-state wall times, one progress thread per rank taken as "
            "always waiting).", "",
            "| app | layout | mode | runs | time s | / fastest | wall_s | CPU-s | / spin | "
            "energy J | source | wait % | DVFS tr. |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in s["rows"]:
        src = f"{r['energy_kind'] or '?'} ({r['energy_source'] or '?'})"
        runs = f"{r['runs']}" + (f" ({r['failed']} failed)" if r["failed"] else "")
        wait = None if r["app_wait_fraction"] is None else 100 * r["app_wait_fraction"]
        out.append(f"| {r['app']} | {r['layout']} | {r['mode']} | {runs} | "
                   f"{fmt(r['time_s'], '.3f')} | {fmt(r['time_ratio'], '.3f')} | "
                   f"{fmt(r['wall_s'], '.3f')} | {fmt(r['cpu_s'], '.2f')} | "
                   f"{fmt(r['cpu_ratio_spin'], '.2f')} | {fmt(r['energy_j'], '.1f')} | {src} | "
                   f"{fmt(wait, '.0f')} | {fmt(r['dvfs_transitions'], '.0f')} |")
    out += ["", f"## Goal: auto within {100 * s['goal']['time_within']:.0f} % of the fastest "
            f"mode's time and ≥ {100 * s['goal']['cpu_cut_vs_spin']:.0f} % fewer CPU-s than spin",
            "", "Where no mode at all needed 30 % fewer CPU-s than spin (the compute-only floor, "
            "taken as the fewest CPU-s of any mode, is within 30 % of spin's), ranks barely wait "
            "and the goal is n/a.", "",
            "| app | layout | goal | auto time / fastest | auto CPU-s / spin | floor / spin | "
            "spin wait % | why |", "|---|---|---|---|---|---|---|---|"]
    for g in s["goals"]:
        w = g.get("spin_app_wait_fraction")
        out.append(f"| {g['app']} | {g['layout']} | {g['status']} | "
                   f"{fmt(g.get('auto_time_ratio'), '.3f')} | "
                   f"{fmt(g.get('auto_cpu_ratio_spin'), '.2f')} | "
                   f"{fmt(g.get('floor_cpu_ratio_spin'), '.2f')} | "
                   f"{fmt(None if w is None else 100 * w, '.0f')} | {g.get('reason', '')} |")
    if s["colocation"]:
        out += ["", "## Colocation: the app on 2 ranks (node-2) with cpu_hog (2 threads) on the "
                "same 2 cores", "",
                "Hog throughput: its work units per second over its lifetime (the app's launch) "
                "against the hog alone (median units/s alone: " +
                ", ".join(f"{k} {v:.0f}" for k, v in s["hog_alone_units_per_s"].items() if v) +
                "). App time vs alone: against the same mode's node-2 time above.", "",
                "| app | hog | mode | runs | app time s | vs alone | hog throughput % | "
                "app CPU-s | hog CPU-s |", "|---|---|---|---|---|---|---|---|---|"]
        for c in s["colocation"]:
            runs = f"{c['runs']}" + (f" ({c['failed']} failed)" if c["failed"] else "")
            out.append(f"| {c['app']} | {c['variant']} | {c['mode']} | {runs} | "
                       f"{fmt(c['app_time_s'], '.3f')} | {fmt(c.get('app_time_vs_alone'), '.2f')}"
                       f" | {fmt(c['hog_percent'], '.0f')} | {fmt(c['app_cpu_s'], '.2f')} | "
                       f"{fmt(c['hog_cpu_s'], '.2f')} |")
    if s["failed_launches"]:
        out += ["", f"**{s['failed_launches']} launch(es) failed**: see runs.jsonl / coloc.jsonl "
                "(`ok`: false) and logs/."]
    return "\n".join(out) + "\n"


def check(d, layouts, apps, modes, coloc_app):
    """Exit 1 unless DIR/summary.json has, for every layout x app x mode asked for, a row of
    successful launches with positive times, CPU-s and energy and a named energy source, a goal
    per layout x app, and (unless coloc_app is none) a colocation row per mode with a positive
    app time and hog throughput. Prints one line per problem."""
    try:
        with open(os.path.join(d, "summary.json"), encoding="utf-8") as f:
            s = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        print(f"check: cannot read {d}/summary.json: {e}")
        return 1
    bad = []
    rows = {(r["layout"], r["app"], r["mode"]): r for r in s.get("rows", [])}
    for layout in layouts:
        for app in apps:
            for mode in modes:
                r = rows.get((layout, app, mode))
                what = f"{app} {layout} {mode}"
                if r is None:
                    bad.append(f"{what}: no row")
                    continue
                if r["runs"] < 1 or r["failed"]:
                    bad.append(f"{what}: {r['runs']} run(s), {r['failed']} failed")
                for key in ("time_s", "wall_s", "cpu_s", "energy_j", "time_ratio",
                            "cpu_ratio_spin"):
                    if not isinstance(r.get(key), (int, float)) or r[key] <= 0:
                        bad.append(f"{what}: {key} = {r.get(key)!r}, not positive")
                if not r.get("energy_source") or r.get("energy_kind") not in ("measured",
                                                                               "estimated"):
                    bad.append(f"{what}: energy source {r.get('energy_source')!r} kind "
                               f"{r.get('energy_kind')!r}")
            if not any(g["app"] == app and g["layout"] == layout and
                       g["status"] in ("met", "missed", "n/a") for g in s.get("goals", [])):
                bad.append(f"{app} {layout}: no goal")
    if coloc_app != "none":
        crows = {c["mode"]: c for c in s.get("colocation", []) if c["app"] == coloc_app}
        for mode in modes:
            c = crows.get(mode)
            if c is None:
                bad.append(f"colocation {coloc_app} {mode}: no row")
                continue
            for key in ("app_time_s", "app_cpu_s", "hog_percent", "hog_cpu_s"):
                if not isinstance(c.get(key), (int, float)) or c[key] <= 0:
                    bad.append(f"colocation {coloc_app} {mode}: {key} = {c.get(key)!r}")
    if s.get("failed_launches"):
        bad.append(f"{s['failed_launches']} launch(es) failed")
    for b in bad:
        print("check: " + b)
    print(f"check: {d}/summary.json: " + ("ok" if not bad else f"{len(bad)} problem(s)"))
    return 1 if bad else 0


def write(path, text):
    """Writes `text` to a temporary beside `path`, then renames it over `path`."""
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        sys.exit(f"app_energy_summary.py: cannot write '{path}': {e.strerror or e}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    for name in ("kind", "app", "layout", "mode", "load-before", "load-after", "busy-before",
                 "log", "report", "args"):
        r.add_argument("--" + name, required=True)
    for name in ("rep", "ranks", "exit"):
        r.add_argument("--" + name, type=int, required=True)
    r.add_argument("--launch-s", type=float, required=True)
    h = sub.add_parser("hog")
    h.add_argument("--variant", required=True)
    h.add_argument("--rep", type=int, required=True)
    h.add_argument("--load", required=True)
    h.add_argument("--json", required=True)
    a = sub.add_parser("attach-hog")
    a.add_argument("--variant", required=True)
    a.add_argument("--hog", required=True)
    s = sub.add_parser("summary")
    s.add_argument("dir")
    c = sub.add_parser("check")
    c.add_argument("dir")
    c.add_argument("--layouts", default="node-2")
    c.add_argument("--apps", default="scf lu lbm")
    c.add_argument("--modes", default="spin adaptive interrupt auto off")
    c.add_argument("--coloc-app", default="lu")
    args = p.parse_args()
    if args.cmd == "check":
        sys.exit(check(args.dir, args.layouts.split(), args.apps.split(), args.modes.split(),
                       args.coloc_app))
    {"record": record, "hog": hog, "attach-hog": attach_hog,
     "summary": lambda x: summary(x.dir)}[args.cmd](args)


if __name__ == "__main__":
    main()
