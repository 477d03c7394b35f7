#!/usr/bin/env bash
# Writes a water cluster (H2O)_n as .xyz (Angstrom) on stdout: copies of the validation water
# geometry on a cubic grid (spacing 3.1 A, filled x, then y, then z), each turned about z by
# 0, 90, 180, 270 degrees in turn so neighbours do not point their hydrogens at each other.
#   make_cluster.sh <n> [spacing]
set -euo pipefail
n=${1:?usage: make_cluster.sh <n> [spacing]}
spacing=${2:-3.1}
awk -v n="$n" -v a="$spacing" 'BEGIN {
  if (n !~ /^[0-9]+$/ || n < 1) { print "make_cluster.sh: n must be a positive integer" > "/dev/stderr"; exit 2 }
  m = 1; while (m * m * m < n) m++
  printf "%d\n(H2O)%d water cluster, grid spacing %s A\n", 3 * n, n, a
  # water: O, H, H (the geometry of molecules/water.xyz)
  ex[0] = 0; ey[0] = -0.075791844; el[0] = "O"
  ex[1] = 0.866811829; ey[1] = 0.601435779; el[1] = "H"
  ex[2] = -0.866811829; ey[2] = 0.601435779; el[2] = "H"
  for (k = 0; k < n; k++) {
    i = k % m; j = int(k / m) % m; l = int(k / (m * m))
    r = k % 4   # quarter turns about z
    for (t = 0; t < 3; t++) {
      x = ex[t]; y = ey[t]
      if (r == 1) { x0 = -y; y = x; x = x0 }
      else if (r == 2) { x = -x; y = -y }
      else if (r == 3) { x0 = y; y = -x; x = x0 }
      printf "%-2s %14.9f %14.9f %14.9f\n", el[t], i * a + x, j * a + y, l * a
    }
  }
}'
