#!/usr/bin/env python3
"""A fake msr-safe tree for the end-to-end energy test: make_msr_safe_tree.py <root> <cpus>.
Writes <root>/dev/cpu/N/msr_safe for N < cpus (0x700 bytes, every byte 0xEE but the registers
below, at their addresses) and the allow-list <root>/dev/cpu/msr_allowlist permitting what the
msr-safe throttle and meter need."""
import os
import struct
import sys

root, cpus = sys.argv[1], int(sys.argv[2])
registers = {
    0x19A: 0,            # IA32_CLOCK_MODULATION: T0
    0x606: 0xE << 8,     # MSR_RAPL_POWER_UNIT: energy unit 1/2^14 J (bits 12:8)
    0x611: 1000,         # MSR_PKG_ENERGY_STATUS
}
for cpu in range(cpus):
    d = os.path.join(root, "dev", "cpu", str(cpu))
    os.makedirs(d, exist_ok=True)
    data = bytearray(b"\xEE" * 0x700)
    for reg, value in registers.items():
        data[reg:reg + 8] = struct.pack("<Q", value)
    with open(os.path.join(d, "msr_safe"), "wb") as f:
        f.write(data)
with open(os.path.join(root, "dev", "cpu", "msr_allowlist"), "w") as f:
    f.write("# fake msr-safe allow-list (tests/energy_site)\n0x19A 0x1F\n0x606 0x0\n0x611 0x0\n")
