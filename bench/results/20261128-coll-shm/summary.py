import json, glob, statistics, collections, sys
out = "/tmp/collrun/out"
# (kind, np, op, bytes, variant) -> [avg_us per launch]
d = collections.defaultdict(list)
for f in glob.glob(out + "/*.json"):
    kind, np, op, L = f.split("/")[-1][:-5].split("-")
    j = json.load(open(f))
    for row in j.get("rows", []):
        for v, r in row["variants"].items():
            if "avg_us" in r:
                d[(kind, int(np), op, row["bytes"], v)].append(r["avg_us"])
def med(k):
    x = d.get(k); return statistics.median(x) if x else None
def lab(b):
    for u, s in ((1 << 20, "MiB"), (1 << 10, "KiB")):
        if b >= u: return f"{b // u} {s}"
    return f"{b} B"
for np in (2, 4):
    for op in ("barrier", "broadcast", "reduce", "allreduce", "allgather", "alltoall"):
        sizes = sorted({k[3] for k in d if k[1] == np and k[2] == op})
        if not sizes: continue
        print(f"\n{op}, {np} ranks (us, median of launches; MPI = median of both runs' MPI)")
        print("| size | shm | messages (before) | MPI | shm/MPI | before/MPI |")
        print("|---|---|---|---|---|---|")
        for b in sizes:
            shm = med(("shm", np, op, b, "shm")); msg = med(("msg", np, op, b, "auto"))
            mpi_all = d.get(("shm", np, op, b, "mpi"), []) + d.get(("msg", np, op, b, "mpi"), [])
            mpi = statistics.median(mpi_all) if mpi_all else None
            f = lambda x: "-" if x is None else f"{x:.2f}"
            r = lambda x: "-" if x is None or not mpi else f"{x / mpi:.2f}x"
            print(f"| {lab(b)} | {f(shm)} | {f(msg)} | {f(mpi)} | {r(shm)} | {r(msg)} |")
