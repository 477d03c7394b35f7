#!/usr/bin/env python3
"""Runs as a user other than the job's (but in its group): tries to read and write every shared
object of the job's user. Usage: probe.py <job uid> <pid>... Prints each object it reached and
exits 1 if any; 0 if every attempt was refused."""
import ctypes
import os
import sys

job_uid = int(sys.argv[1])
pids = [int(p) for p in sys.argv[2:]]
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
reached, tried = [], 0

# SysV segments of the job's user (any group-accessible one is a breach).
with open("/proc/sysvipc/shm") as f:
    header = f.readline().split()
    for line in f:
        row = dict(zip(header, line.split()))
        if int(row["uid"]) != job_uid:
            continue
        tried += 1
        addr = libc.shmat(int(row["shmid"]), None, 0)
        if addr not in (None, ctypes.c_void_p(-1).value):
            reached.append(f"SysV segment {row['shmid']} (mode {int(row['perms']):o}): attached")
            libc.shmdt(ctypes.c_void_p(addr))

# Files of the job's user in /dev/shm, and the ranks' open files and memory through /proc.
for name in os.listdir("/dev/shm"):
    path = os.path.join("/dev/shm", name)
    try:
        if os.stat(path).st_uid != job_uid:
            continue
    except OSError:
        continue
    tried += 1
    try:
        os.close(os.open(path, os.O_RDONLY))
        reached.append(f"{path}: opened")
    except OSError:
        pass
for pid in pids:
    for what in ("mem", "fd"):
        tried += 1
        path = f"/proc/{pid}/{what}"
        try:
            if what == "mem":
                os.close(os.open(path, os.O_RDONLY))
                reached.append(f"{path}: opened")
            else:
                for fd in os.listdir(path):
                    try:
                        os.close(os.open(os.path.join(path, fd), os.O_RDONLY))
                        reached.append(f"{path}/{fd}: opened")
                    except OSError:
                        pass
        except OSError:
            pass

print(f"probe: {tried} objects of uid {job_uid} tried, {len(reached)} reached")
for r in reached:
    print("probe: reached " + r)
sys.exit(1 if reached else 0)
