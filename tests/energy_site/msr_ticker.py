#!/usr/bin/env python3
"""Advances MSR_PKG_ENERGY_STATUS (0x611) of a fake msr_safe file, as a package's energy counter
does: msr_ticker.py <msr_safe file> [counts per ms]. Runs until killed (nonroot.sh stops it)."""
import os
import struct
import sys
import time

path = sys.argv[1]
step = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
fd = os.open(path, os.O_RDWR)
while True:
    count = struct.unpack("<I", os.pread(fd, 4, 0x611))[0]
    os.pwrite(fd, struct.pack("<I", (count + step) & 0xFFFFFFFF), 0x611)  # 32-bit, wraps
    time.sleep(0.001)
