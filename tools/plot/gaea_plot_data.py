"""Readers of Gaea's benchmark results and GAEA_TRACE files for tools/plot/gaea_plot.py.

Every reader returns plain Python data (dicts and lists, no matplotlib) and raises PlotError with
one line naming the file and what is wrong with it; the command line turns that into exit code 2.
"""
import json
import os
import re
import stat


class PlotError(Exception):
    """Bad input: a missing or unreadable file, or a file of another kind than the one asked for."""


MAX_TEXT_BYTES = 64 << 20  # a result or table file; far above any real one


def check_input(path, max_bytes=MAX_TEXT_BYTES):
    """PlotError unless `path` is a regular file of at most `max_bytes` (None: any size): a FIFO
    would block the reader, a device (/dev/zero) never ends, a huge file fills the memory."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise PlotError(f"'{path}': no such file") from None
    except OSError as e:
        raise PlotError(f"'{path}': cannot be examined ({e.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else
                "a character device" if stat.S_ISCHR(st.st_mode) else
                "a block device" if stat.S_ISBLK(st.st_mode) else
                "a FIFO" if stat.S_ISFIFO(st.st_mode) else
                "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise PlotError(f"'{path}': is {kind}; only a regular file can be read")
    if max_bytes is not None and st.st_size > max_bytes:
        raise PlotError(f"'{path}': is {st.st_size} bytes, more than the {max_bytes} "
                        "such a file may have")


def load_json(path):
    """The JSON object in `path` (PlotError if missing, unreadable or not a JSON object)."""
    check_input(path)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise PlotError(f"'{path}': no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise PlotError(f"'{path}': cannot read it ({e})") from None
    except json.JSONDecodeError as e:
        raise PlotError(f"'{path}': not JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(data, dict):
        raise PlotError(f"'{path}': a JSON {type(data).__name__}, not a benchmark result object")
    return data


def expect_bench(path, data, kind):
    """Raises PlotError unless `data` (from `path`) is the result of benchmark `kind`."""
    got = data.get("bench")
    if got != kind:
        what = f"a result of bench '{got}'" if got else "no \"bench\" field"
        raise PlotError(f"'{path}': {what}, expected one of bench '{kind}'")


def field(path, obj, key):
    """obj[key], or a PlotError naming the file and the missing field."""
    if not isinstance(obj, dict) or key not in obj:
        raise PlotError(f"'{path}': field \"{key}\" missing")
    return obj[key]


def environment(path):
    """The run's facts for a footnote: `environment.txt` beside `path` (commit, load, date), as a
    dict of short strings; empty when the file is absent."""
    env = {}
    env_path = os.path.join(os.path.dirname(os.path.abspath(path)), "environment.txt")
    try:
        with open(env_path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return env
    for line in lines:
        key, sep, value = line.partition(":")
        if not sep:
            continue
        value = value.strip()
        if key == "commit":
            env["commit"] = value[:7]
        elif key == "date":
            env["date"] = value[:16].replace("T", " ")
        elif key.startswith("loadavg at "):
            # "loadavg at start: 1.92 1.96 1.95 1/80 8666": the 1-minute average is enough
            env["load " + key[len("loadavg at "):]] = value.split()[0] if value else "?"
        elif key == "uptime at start":
            m = re.search(r"load average: ([0-9.]+)", value)
            if m:
                env["load start"] = m.group(1)
    return env


def run_label(info, env):
    """A one-line description of a run for a figure's footnote."""
    parts = []
    if info.get("gaea_version"):
        parts.append(f"gaea {info['gaea_version']}")
    if env.get("commit"):
        parts.append(f"commit {env['commit']}")
    if info.get("ranks"):
        nodes = info.get("nodes")
        parts.append(f"{info['ranks']} ranks" + (f" on {nodes} node(s)" if nodes else ""))
    if info.get("ucx_tls"):
        parts.append(f"UCX_TLS={info['ucx_tls']}")
    dvfs = info.get("dvfs")
    if isinstance(dvfs, dict) and dvfs.get("actuator"):
        parts.append(f"DVFS {dvfs['actuator']}")
    energy = info.get("energy")
    if isinstance(energy, dict) and energy.get("kind"):
        parts.append(f"energy {energy['kind']}")
    if env.get("date"):
        parts.append(env["date"] + " UTC")
    loads = [f"{k.split()[1]} {v}" for k, v in env.items() if k.startswith("load ")]
    if loads:
        parts.append("load " + ", ".join(loads))
    return "; ".join(parts)


# --- shift ------------------------------------------------------------------------------------

_SIZE_UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
_SHIFT_HEADER = re.compile(r"# shift: (\d+) ranks on (\d+) node\(s\), UCX_TLS=(\S+), DVFS (\S+)")


def _shift_txt(path):
    """Parses a shift table (bench/shift's standard output) into the JSON layout."""
    check_input(path)
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        raise PlotError(f"'{path}': no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise PlotError(f"'{path}': cannot read it ({e})") from None
    info = {"bench": "shift", "results": []}
    prim = None
    energy_kind = None
    for n, line in enumerate(lines, 1):
        m = _SHIFT_HEADER.match(line)
        if m:
            info.update(ranks=int(m.group(1)), nodes=int(m.group(2)),
                        ucx_tls=m.group(3).rstrip(","), dvfs={"actuator": m.group(4).rstrip(",")})
            continue
        if line.startswith("# energy: "):
            info["energy"] = {"kind": line.split()[2]}
            continue
        m = re.match(r"== (\S+) ==$", line)
        if m:
            prim = m.group(1)
            continue
        if line.startswith("size ") and prim:
            energy_kind = "measured" if "J/MB(meas)" in line else "estimated"
            continue
        cols = line.split()
        if prim is None or len(cols) != 11 or cols[1] not in _SIZE_UNITS:
            continue
        try:
            info["results"].append({
                "prim": prim, "bytes": int(cols[0]) * _SIZE_UNITS[cols[1]], "config": cols[2],
                "ops_per_rank": float(cols[3]), "latency_us": float(cols[4]),
                "latency_ratio": float(cols[5]), "cpu_s_per_mb": float(cols[6]),
                "energy_j_per_mb": float(cols[7]), "energy_kind": energy_kind})
        except ValueError:
            raise PlotError(f"'{path}' line {n}: not a shift table row: {line.strip()}") from None
    if not info["results"]:
        raise PlotError(f"'{path}': no shift table rows (not the output of bench/shift)")
    return info


def read_shift(path):
    """The shift benchmark's rows from its --json file or its printed table (.txt).
    Returns the run info with "results": [{prim, bytes, config, latency_ratio, energy_j_per_mb,
    ...}], in the file's order."""
    if path.endswith(".txt"):
        return _shift_txt(path)
    data = load_json(path)
    expect_bench(path, data, "shift")
    for r in field(path, data, "results"):
        for key in ("prim", "bytes", "config", "latency_ratio", "energy_j_per_mb"):
            field(path, r, key)
    return data


# --- reaction, idle_wait ------------------------------------------------------------------------

def read_reaction(path):
    """bench/reaction's --json: run info, "modes" (names in run order) and "gaps"
    [{gap_us, modes: {mode: {median_reaction_us, reaction_us}}}]."""
    data = load_json(path)
    expect_bench(path, data, "reaction")
    modes = [field(path, m, "mode") for m in field(path, data, "modes")]
    gaps = field(path, data, "gaps")
    for g in gaps:
        field(path, g, "gap_us")
        for mode in modes:
            field(path, field(path, g, "modes").get(mode, {}), "median_reaction_us")
    data["mode_names"] = modes
    return data


def read_idle(path):
    """bench/idle_wait's --json: run info and "results" [{mode, waiting_cpu_percent_mean, ...}]."""
    data = load_json(path)
    expect_bench(path, data, "idle_wait")
    for r in field(path, data, "results"):
        for key in ("mode", "waiting_cpu_percent_mean", "waiting_cpu_percent_max",
                    "waiting_watts_per_rank", "rank0_rate_vs_solo_percent"):
            field(path, r, key)
    return data


# --- counters -----------------------------------------------------------------------------------

def read_counters(path):
    """bench/compare_counters.sh's results.jsonl: every launch's JSON line (counter_latency and
    GA's ga_read_inc), tagged with "tls" and "config". Returns the list of lines; PlotError if
    none is a counter benchmark's."""
    rows = []
    check_input(path)
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    raise PlotError(f"'{path}' line {n}: not JSON ({e.msg})") from None
                if isinstance(row, dict):
                    rows.append(row)
    except FileNotFoundError:
        raise PlotError(f"'{path}': no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise PlotError(f"'{path}': cannot read it ({e})") from None
    rows = [r for r in rows if r.get("bench") in ("counter_latency", "ga_read_inc")
            and not r.get("failed")]
    if not rows:
        raise PlotError(f"'{path}': no counter_latency or ga_read_inc line "
                        "(expected bench/compare_counters.sh's results.jsonl)")
    for r in rows:
        field(path, r, "ranks")
        if r["bench"] == "counter_latency":
            for entry in field(path, r, "latency"):
                for key in ("mode", "variant", "rank0", "avg_us"):
                    field(path, entry, key)
    return rows


# --- app_energy ---------------------------------------------------------------------------------

def read_apps(path):
    """bench/app_energy.sh's summary.json: "rows" [{app, layout, mode, time_ratio, cpu_s, ...}],
    "goals", and "colocation" [{app, variant, mode, hog_percent, ...}] (may be empty)."""
    data = load_json(path)
    expect_bench(path, data, "app_energy")
    rows = field(path, data, "rows")
    if not rows:
        raise PlotError(f"'{path}': no rows (no launch succeeded?)")
    for r in rows:
        for key in ("app", "layout", "mode", "time_ratio", "cpu_s"):
            field(path, r, key)
    for c in data.get("colocation") or []:
        for key in ("app", "variant", "mode", "hog_percent"):
            field(path, c, key)
    return data


# --- trace --------------------------------------------------------------------------------------

TRACE_STATES = ("run", "spin", "sleep", "block")  # the writer's "states" attribute, in order


def read_trace(path):
    """A GAEA_TRACE HDF5 file (framework/runtime/src/report.cpp): per rank group "rank_<r>" the
    columns t_s, state, thread (a thread's state holds from its sample to its next one).
    Returns {"ranks": [{rank, t_s, state, thread}], "states": names}."""
    try:
        import h5py  # pylint: disable=import-outside-toplevel
    except ImportError:
        raise PlotError("reading a GAEA_TRACE file needs h5py: apt-get install python3-h5py "
                        "(scripts/install-deps.sh --plots)") from None
    check_input(path, None)
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise PlotError(f"'{path}': not an HDF5 file ({e})") from None
    with f:
        states = f.attrs.get("states")
        if states is None:
            raise PlotError(f"'{path}': no \"states\" attribute (not a GAEA_TRACE file)")
        if isinstance(states, bytes):
            states = states.decode()
        names = [s.split()[1] for s in str(states).split(", ")]
        if tuple(names) != TRACE_STATES:
            raise PlotError(f"'{path}': states '{states}', expected '0 run, 1 spin, 2 sleep, "
                            "3 block' (a newer trace format?)")
        groups = sorted((g for g in f if re.fullmatch(r"rank_\d+", g)), key=lambda g: int(g[5:]))
        if not groups:
            raise PlotError(f"'{path}': no rank_<r> groups (not a GAEA_TRACE file)")
        ranks = []
        for g in groups:
            cols = {}
            for key in ("t_s", "state", "thread"):
                if key not in f[g]:
                    raise PlotError(f"'{path}': {g}/{key} missing")
                cols[key] = f[g][key][()].tolist()
            ranks.append({"rank": int(g[5:]), **cols})
        return {"ranks": ranks, "states": names, "power_source": f.attrs.get("power_source")}
