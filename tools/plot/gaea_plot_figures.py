"""The figures of tools/plot/gaea_plot.py, one function per kind of result.

Each function takes what gaea_plot_data read, draws it, saves it to `out` (PNG or SVG by its
extension) and returns its summary: {"kind", "panels", "series", "x", "points"} where "series"
counts the distinct lines or bar groups drawn, "x" the distinct x values and "points" every
plotted value (the test compares them with the input).
"""
import os
import statistics

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402  pylint: disable=wrong-import-position

from gaea_plot_data import TRACE_STATES, PlotError, environment, run_label  # noqa: E402

_MARKERS = "os^vDP*X<>"
# Wait states: busy ones warm, idle ones cool.
_STATE_COLORS = {"run": "#4c72b0", "spin": "#dd8452", "sleep": "#8fbf6f", "block": "#c8c8c8"}


def _save(fig, out, footnote, right=1.0):
    """Writes `fig` to `out` with the run's facts in a footnote, and closes it. The figure goes
    to a temporary beside `out`, renamed over it only once complete: a failed write (a full
    disk) is a PlotError and leaves an earlier `out` as it was."""
    if footnote:
        fig.text(0.01, 0.005, footnote, fontsize=7, color="#555555", ha="left", va="bottom",
                 wrap=True)
    fig.tight_layout(rect=(0, 0.04 if footnote else 0, right, 1))
    base, ext = os.path.splitext(out)
    tmp = f"{base}.tmp-{os.getpid()}{ext}"  # same extension: savefig picks the format by it
    try:
        fig.savefig(tmp, dpi=90)
        os.replace(tmp, out)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise PlotError(f"cannot write '{out}': {e.strerror or e}") from e
    finally:
        plt.close(fig)


def _size_label(b):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift} {unit}"
    return f"{b} B"


def shift(info, path, out):
    """[PASCoL §4.2] per primitive: latency ratio to polling and energy per MB against transfer
    size, one line per wait configuration."""
    rows = info["results"]
    prims = list(dict.fromkeys(r["prim"] for r in rows))
    configs = list(dict.fromkeys(r["config"] for r in rows))
    sizes = sorted({r["bytes"] for r in rows})
    kind = rows[0].get("energy_kind") or (info.get("energy") or {}).get("kind") or "estimated"
    reference = (info.get("parameters") or {}).get("ratio_reference", "polling")
    fig, axes = plt.subplots(2, len(prims), figsize=(3.6 * len(prims) + 0.8, 6.4), squeeze=False,
                             sharex=True)
    points = 0
    for col, prim in enumerate(prims):
        top, bottom = axes[0][col], axes[1][col]
        for k, config in enumerate(configs):
            mine = sorted((r for r in rows if r["prim"] == prim and r["config"] == config),
                          key=lambda r: r["bytes"])
            if not mine:
                continue
            x = [r["bytes"] for r in mine]
            style = {"marker": _MARKERS[k % len(_MARKERS)], "markersize": 4, "label": config,
                     "linestyle": "--" if "dvfs" in config else "-"}
            top.plot(x, [r["latency_ratio"] for r in mine], **style)
            bottom.plot(x, [r["energy_j_per_mb"] for r in mine], **style)
            points += 2 * len(mine)
        top.axhline(1.0, color="black", linewidth=0.6)
        top.set_title(prim)
        top.set_xscale("log", base=2)
        bottom.set_yscale("log")
        bottom.set_xticks(sizes, [_size_label(s) for s in sizes], rotation=45, fontsize=7)
        bottom.set_xlabel("transfer size (bytes per operation)")
        if col == 0:
            top.set_ylabel(f"latency / latency under {reference}")
            bottom.set_ylabel(f"energy per MB (J, {kind})")
        top.grid(True, alpha=0.3)
        bottom.grid(True, which="both", alpha=0.3)
    axes[0][-1].legend(fontsize=7, title="wait configuration", title_fontsize=7)
    fig.suptitle(f"shift benchmark [PASCoL §4.2], UCX_TLS={info.get('ucx_tls', '?')}")
    _save(fig, out, run_label(info, environment(path)))
    return {"kind": "shift", "panels": 2 * len(prims), "series": len(configs), "x": len(sizes),
            "points": points}


def reaction(info, path, out):
    """[AdaptivePolling Fig. 5]: median reaction time to a message after a gap, per wait mode."""
    gaps = sorted(info["gaps"], key=lambda g: g["gap_us"])
    modes = info["mode_names"]
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    points = 0
    for k, mode in enumerate(modes):
        xs, ys = [], []
        for g in gaps:
            m = g["modes"][mode]
            xs.append(g["gap_us"])
            ys.append(m["median_reaction_us"])
        ax.plot(xs, ys, marker=_MARKERS[k % len(_MARKERS)], markersize=3, label=mode)
        points += len(xs)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("requested gap between messages (µs)")
    ax.set_ylabel(f"median reaction time (µs, {info['parameters'].get('per_gap', '?')} per gap)"
                  if isinstance(info.get("parameters"), dict) else "median reaction time (µs)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="wait mode", fontsize=8)
    ax.set_title(f"reaction time vs gap [AdaptivePolling Fig. 5], UCX_TLS={info.get('ucx_tls')}")
    _save(fig, out, run_label(info, environment(path)))
    return {"kind": "reaction", "panels": 1, "series": len(modes), "x": len(gaps),
            "points": points}


def idle(info, path, out):
    """CPU use of ranks waiting in a barrier, per wait mode, with the working rank's compute rate
    and the modelled power per waiting rank."""
    rows = info["results"]
    modes = [r["mode"] for r in rows]
    kind = rows[0].get("energy_kind", "estimated") if rows else "estimated"
    fig, axes = plt.subplots(1, 3, figsize=(11, 4))
    x = list(range(len(rows)))
    axes[0].bar(x, [r["waiting_cpu_percent_mean"] for r in rows], color="#4c72b0", label="mean")
    axes[0].plot(x, [r["waiting_cpu_percent_max"] for r in rows], "k_", markersize=18,
                 label="max")
    axes[0].set_ylabel("CPU of a waiting rank (% of one core)")
    axes[0].legend(fontsize=8)
    axes[1].bar(x, [r["rank0_rate_vs_solo_percent"] for r in rows], color="#55a868")
    axes[1].axhline(100, color="black", linewidth=0.6)
    axes[1].set_ylabel("working rank's compute rate (% of solo)")
    axes[2].bar(x, [r["waiting_watts_per_rank"] for r in rows], color="#dd8452")
    axes[2].set_ylabel(f"power per waiting rank (W, {kind})")
    for ax in axes:
        ax.set_xticks(x, modes)
        ax.set_xlabel("wait mode")
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle(f"idle waiting: {info.get('ranks', '?')} ranks, rank 0 computes, the others wait "
                 f"in a barrier; UCX_TLS={info.get('ucx_tls')}")
    _save(fig, out, run_label(info, environment(path)))
    return {"kind": "idle", "panels": 3, "series": len(rows), "x": len(rows),
            "points": 4 * len(rows)}


def _group(row):
    """A counter launch's column: compare_counters.sh's "tls" tag (a transport, or an emulated
    host layout such as "2x2 bgq"), else the program's own UCX_TLS."""
    return row.get("tls") or row.get("ucx_tls") or "UCX_TLS not recorded"


def counters(rows, path, out):
    """[PGAS-BGQ Fig. 10]: average fetch-and-add latency against the number of ranks, per counter
    mode and variant, owner idle or computing; GA's NGA_Read_inc beside it. One column per
    transport (or emulated-host layout) of the file; the median where several launches measured
    the same point."""
    groups = list(dict.fromkeys(_group(r) for r in rows))
    states = ("idle", "compute")
    fig, axes = plt.subplots(2, len(groups), figsize=(4.6 * len(groups) + 1.5, 7.4),
                             squeeze=False, sharey=True)
    series, ps, points = set(), set(), 0
    mode_colors = {}
    variant_styles = {"single": "-", "batched": "--", "hierarchical": ":"}
    for col, group in enumerate(groups):
        mine = [r for r in rows if _group(r) == group]
        for row_i, state in enumerate(states):
            ax = axes[row_i][col]
            lines = {}  # (label, mode, variant) -> {ranks: [avg_us of each launch]}
            for r in mine:
                if r["bench"] == "ga_read_inc":
                    value = r.get(f"{state}_avg_us")
                    if value is not None:
                        # GA itself, or a GA program on Gaea's GA API ("ga-api", ...)
                        label = ("GA NGA_Read_inc" if r.get("config", "ga") == "ga"
                                 else f"{r['config']} NGA_Read_inc")
                        lines.setdefault((label, r.get("config", "ga"), "single"), {}).setdefault(
                            r["ranks"], []).append(value)
                    continue
                off = r.get("config") == "gaea-off"
                for e in r["latency"]:
                    if e["rank0"] != state:
                        continue
                    label = f"{e['mode']} {e['variant']}" + (" (no progress thread)" if off else "")
                    lines.setdefault((label, e["mode"] + ("-off" if off else ""), e["variant"]),
                                     {}).setdefault(r["ranks"], []).append(e["avg_us"])
            for (label, mode, variant), by_p in sorted(lines.items()):
                if mode not in mode_colors:
                    mode_colors[mode] = ("black" if mode == "ga" else
                                         f"C{sum(m != 'ga' for m in mode_colors) % 10}")
                p = sorted(by_p)
                ax.plot(p, [statistics.median(by_p[n]) for n in p], marker="o", markersize=4,
                        label=label,
                        color=mode_colors[mode], linestyle=variant_styles.get(variant, "-"),
                        linewidth=2 if mode.startswith("ga") else 1.2)
                series.add(label)
                ps.update(p)
                points += len(p)
            ax.set_yscale("log")
            ax.set_xscale("log", base=2)
            ax.set_xticks(sorted({r["ranks"] for r in mine}),
                          [str(p) for p in sorted({r["ranks"] for r in mine})])
            ax.minorticks_off()
            ax.set_title(f"{group}, counter owner {'idle' if state == 'idle' else 'computing'}",
                         fontsize=9)
            ax.set_xlabel("ranks P (requesters: P - 1)")
            if col == 0:
                ax.set_ylabel("average latency of one next() (µs)")
            ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=7, title="counter mode, variant",
               title_fontsize=7)
    title = "shared-counter fetch-and-add latency vs ranks [PGAS-BGQ Fig. 10]"
    if len(ps) == 1:  # say so rather than let a column of dots pass for a scaling curve
        title += f"\n(this file has one rank count only: P = {next(iter(ps))})"
    fig.suptitle(title)
    info = next((r for r in rows if r["bench"] == "counter_latency"), rows[0])
    loads = sorted({r["load"].split()[0] for r in rows if r.get("load")})
    footnote = run_label({k: info.get(k) for k in ("gaea_version", "energy")}, {})
    if loads:
        footnote += f"; load before launches {loads[0]}–{loads[-1]}"
    footnote += f"; compute {info.get('compute_us', '?')} µs kernels; {path}"
    _save(fig, out, footnote, right=0.8)
    return {"kind": "counters", "panels": 2 * len(groups), "series": len(series), "x": len(ps),
            "points": points}


def timeline(trace, path, out, max_threads=None):
    """Per rank and thread, the wait state over time: one horizontal band per thread."""
    ranks = trace["ranks"]
    bands = []  # (label, {state: [(start, width)]})
    end = max((r["t_s"][-1] for r in ranks if r["t_s"]), default=0.0)
    samples = 0
    for r in ranks:
        threads = sorted(set(r["thread"]))
        if max_threads is not None:
            threads = threads[:max_threads]
        for th in threads:
            idx = [i for i, t in enumerate(r["thread"]) if t == th]
            spans = {s: [] for s in TRACE_STATES}
            for a, b in zip(idx, idx[1:] + [None]):
                t0 = r["t_s"][a]
                t1 = r["t_s"][b] if b is not None else end
                spans[TRACE_STATES[r["state"][a]]].append((t0, max(t1 - t0, 0.0)))
            samples += len(idx)
            name = "progress" if th == 0 else f"app {th}"
            bands.append((f"rank {r['rank']} {name}", spans))
    fig, ax = plt.subplots(figsize=(10, 0.5 * len(bands) + 1.6))
    for y, (_, spans) in enumerate(reversed(bands)):
        for state, segs in spans.items():
            if segs:
                ax.broken_barh(segs, (y - 0.4, 0.8), facecolors=_STATE_COLORS[state])
    ax.set_yticks(range(len(bands)), [label for label, _ in reversed(bands)])
    ax.set_xlim(0, end if end > 0 else 1)
    ax.set_ylim(-0.6, len(bands) - 0.4)
    ax.set_xlabel("time since the runtime started (s)")
    handles = [matplotlib.patches.Patch(color=_STATE_COLORS[s], label=s) for s in TRACE_STATES]
    ax.legend(handles=handles, ncol=4, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.25))
    ax.set_title(f"wait states per rank and thread (GAEA_TRACE), {len(ranks)} ranks")
    _save(fig, out, f"{path}; {samples} state changes")
    return {"kind": "timeline", "panels": 1, "series": len(bands), "x": len(ranks),
            "points": samples}


_MODE_ORDER = ("spin", "adaptive", "adaptive_fixed", "interrupt", "auto", "off")


def apps(summary, path, out):
    """bench/app_energy.sh: per layout (one column each), the app's time over the fastest mode's
    (top) and its CPU-seconds (bottom) as bars per wait mode, grouped by app; with a colocation
    run, one more column: the colocated hog's throughput (% of the hog alone, top) and the app's
    time beside it (bottom) per mode and hog placement."""
    rows = summary["rows"]
    layouts = list(dict.fromkeys(r["layout"] for r in rows))
    app_names = list(dict.fromkeys(r["app"] for r in rows))
    modes = sorted({r["mode"] for r in rows},
                   key=lambda m: _MODE_ORDER.index(m) if m in _MODE_ORDER else len(_MODE_ORDER))
    coloc = summary.get("colocation") or []
    cols = len(layouts) + (1 if coloc else 0)
    fig, axes = plt.subplots(2, cols, figsize=(4.2 * cols + 1.2, 6.6), squeeze=False)
    width = 0.8 / max(len(modes), 1)
    points = 0
    kind = next((r.get("energy_kind") for r in rows if r.get("energy_kind")), None)
    for col, layout in enumerate(layouts):
        top, bottom = axes[0][col], axes[1][col]
        for k, mode in enumerate(modes):
            mine = {r["app"]: r for r in rows if r["layout"] == layout and r["mode"] == mode}
            here = [a for a in app_names if a in mine and mine[a].get("time_ratio") is not None]
            xs = [app_names.index(a) + (k - (len(modes) - 1) / 2) * width for a in here]
            color = f"C{_MODE_ORDER.index(mode) if mode in _MODE_ORDER else k}"
            top.bar(xs, [mine[a]["time_ratio"] for a in here], width, label=mode, color=color)
            bottom.bar(xs, [mine[a]["cpu_s"] for a in here], width, label=mode, color=color)
            points += 2 * len(here)
        top.axhline(1.0, color="black", linewidth=0.6)
        top.axhline(1.02, color="black", linewidth=0.6, linestyle=":")  # the goal's 2 %
        top.set_title(layout)
        for ax in (top, bottom):
            ax.set_xticks(range(len(app_names)), app_names)
            ax.grid(True, axis="y", alpha=0.3)
        if col == 0:
            top.set_ylabel("time / fastest mode's time")
            bottom.set_ylabel("CPU-seconds (all ranks)")
    axes[0][0].legend(fontsize=7, title="wait mode", title_fontsize=7)
    if coloc:
        variants = list(dict.fromkeys(c["variant"] for c in coloc))
        top, bottom = axes[0][-1], axes[1][-1]
        cmodes = [m for m in modes if any(c["mode"] == m for c in coloc)]
        w = 0.8 / max(len(variants), 1)
        for k, variant in enumerate(variants):
            mine = {c["mode"]: c for c in coloc if c["variant"] == variant}
            ms = [m for m in cmodes if m in mine and mine[m].get("hog_percent") is not None]
            xs = [cmodes.index(m) + (k - (len(variants) - 1) / 2) * w for m in ms]
            top.bar(xs, [mine[m]["hog_percent"] for m in ms], w, label=f"hog {variant}")
            bottom.bar(xs, [mine[m].get("app_time_s") or 0 for m in ms], w,
                       label=f"hog {variant}")
            points += 2 * len(ms)
        top.axhline(100, color="black", linewidth=0.6)
        top.set_title(f"colocation: {coloc[0]['app']} (2 ranks) + CPU hog")
        top.set_ylabel("hog throughput (% of hog alone)")
        bottom.set_ylabel("app time with the hog (s)")
        for ax in (top, bottom):
            ax.set_xticks(range(len(cmodes)), cmodes, fontsize=8)
            ax.grid(True, axis="y", alpha=0.3)
        top.legend(fontsize=7)
    fig.suptitle("wait modes at application level (bench/app_energy.sh): time and CPU-seconds, "
                 "medians" + (f"; energy {kind}" if kind else ""))
    env = summary.get("environment") or {}
    footnote = "; ".join(f"{k} {env[k]}" for k in ("date", "commit", "loadavg at start")
                         if env.get(k))
    _save(fig, out, footnote or path)
    return {"kind": "apps", "panels": 2 * cols, "series": len(modes), "x": len(app_names),
            "points": points}
