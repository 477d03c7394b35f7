/* Statistics shared by the reference benchmarks (C99, header-only). */
#ifndef GAEA_BENCH_REF_STATS_H
#define GAEA_BENCH_REF_STATS_H

#include <stdlib.h>
#include <string.h>

static int ref_cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Median of n > 0 values; sorts a copy, so `v` is left as it is. */
static double ref_median(const double* v, int n) {
  double* s = malloc((size_t)n * sizeof(double));
  double m;
  memcpy(s, v, (size_t)n * sizeof(double));
  qsort(s, (size_t)n, sizeof(double), ref_cmp_double);
  m = (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
  return m;
}

#endif
