"""python_get_bench: the per-call cost of the Python binding (gaea.Array) for an 8-byte get and a
1 MiB get, measured like bench/get_bench.cpp's default mode so that the two can be run side by
side (bench/compare_python_get.sh):
  rank 0 gets one float64 owned by rank 1 (rank 1 only waits in sync()); 1000 warm-up gets, then
  R repetitions of K gets; per repetition the mean time per get; reported: median and min.
  Forms: a[i] (a Python scalar), a[i:i+1] (a NumPy array of one element), a.iget(i).wait().
  1 MiB: a[patch] into a new NumPy array each time, and a.get(patch, out=buf) into one buffer
  (as get_bench does); median and max GB/s over R repetitions.
  mpirun -np 2 python3 bench/python_get_bench.py [--reps R] [--lat-iters K] [--bw-iters K]"""

import argparse
import json
import statistics
import time

import gaea
import numpy as np

p = argparse.ArgumentParser()
p.add_argument("--reps", type=int, default=7)
p.add_argument("--lat-iters", type=int, default=10000)
p.add_argument("--bw-iters", type=int, default=200)
o = p.parse_args()
if gaea.size() < 2:
    raise SystemExit("python_get_bench: run on 2 or more ranks")

block = (1 << 20) // 8
a = gaea.Array((block * gaea.size(),), np.float64, name="bench")
(box, view), = a.local_tiles()
view[:] = box[0].start + np.arange(view.size)
del view
a.sync()
b1 = a.distribution(1)[0]
i = b1.start + 7
rows = {}


def latency(name, get):
    for _ in range(1000):
        get()
    per = []
    for _ in range(o.reps):
        t = time.perf_counter()
        for _ in range(o.lat_iters):
            get()
        per.append((time.perf_counter() - t) / o.lat_iters * 1e6)
    rows[name] = {"median_us": statistics.median(per), "min_us": min(per)}


if gaea.rank() == 0:
    assert (a[b1] == np.arange(b1.start, b1.stop)).all()
    one = slice(i, i + 1)
    latency("a[i]", lambda: a[i])
    latency("a[i:i+1]", lambda: a[one])
    latency("a.iget(i).wait()", lambda: a.iget(i).wait())
    for _ in range(10):
        a[b1]
    gbs = []
    for _ in range(o.reps):
        t = time.perf_counter()
        for _ in range(o.bw_iters):
            a[b1]
        gbs.append(o.bw_iters * (1 << 20) / (time.perf_counter() - t) / 1e9)
    rows["a[1 MiB]"] = {"median_GBs": statistics.median(gbs), "max_GBs": max(gbs)}
    buf = np.empty(b1.stop - b1.start)
    gbs = []
    for _ in range(o.reps):
        t = time.perf_counter()
        for _ in range(o.bw_iters):
            a.get(b1, out=buf)
        gbs.append(o.bw_iters * (1 << 20) / (time.perf_counter() - t) / 1e9)
    rows["a.get(1 MiB, out=)"] = {"median_GBs": statistics.median(gbs), "max_GBs": max(gbs)}
a.sync()
if gaea.rank() == 0:
    for name, r in rows.items():
        if "median_us" in r:
            print(f"Python get latency 8 B {name:18}: median {r['median_us']:.3f} us, "
                  f"min {r['min_us']:.3f} us ({o.reps} reps x {o.lat_iters} gets, "
                  f"{gaea.size()} ranks)")
        else:
            print(f"Python get bandwidth  {name:18}: median {r['median_GBs']:.3f} GB/s, "
                  f"max {r['max_GBs']:.3f} GB/s ({o.reps} reps x {o.bw_iters} gets)")
    print(json.dumps({"bench": "python_get", "ranks": gaea.size(), "rows": rows}))
