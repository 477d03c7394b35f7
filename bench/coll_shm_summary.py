"""Tables of bench/coll_shm_sweep.sh's output: shm and, for broadcast/allgather from 32 KiB with
SINGLE=1, shm with single copy (GAEA_COLL_SHM_SINGLE_COPY=64K), beside Open MPI; medians of
launches.   python3 bench/coll_shm_summary.py <out-dir>"""
import collections
import glob
import json
import statistics
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/coll-shm-sweep"
d = collections.defaultdict(list)  # (kind, np, op, bytes, variant) -> [avg_us per launch]
for f in glob.glob(out + "/*.json"):
    kind, np, op, _ = f.split("/")[-1][:-5].split("-")
    for row in json.load(open(f)).get("rows", []):
        for v, r in row["variants"].items():
            if "avg_us" in r:
                d[(kind, int(np), op, row["bytes"], v)].append(r["avg_us"])


def med(x):
    return statistics.median(x) if x else None


def lab(b):
    for u, s in ((1 << 20, "MiB"), (1 << 10, "KiB")):
        if b >= u:
            return f"{b // u} {s}"
    return f"{b} B"


fmt = lambda x: "-" if x is None else f"{x:.2f}"
for np in (2, 4):
    for op in ("barrier", "broadcast", "reduce", "allreduce", "allgather", "alltoall"):
        sizes = sorted({k[3] for k in d if k[1] == np and k[2] == op})
        if not sizes:
            continue
        print(f"\n{op}, {np} ranks (us; median of the launches, each the median of its reps)")
        print("| size | shm | shm, single copy | MPI | shm/MPI | single/MPI |")
        print("|---|---|---|---|---|---|")
        for b in sizes:
            shm = med(d.get(("shm", np, op, b, "shm")))
            reg = med(d.get(("single", np, op, b, "shm")))
            mpi = med(d.get(("shm", np, op, b, "mpi"), []) + d.get(("single", np, op, b, "mpi"), []))
            r = lambda x: "-" if x is None or not mpi else f"{x / mpi:.2f}x"
            print(f"| {lab(b)} | {fmt(shm)} | {fmt(reg)} | {fmt(mpi)} | {r(shm)} | {r(reg)} |")
