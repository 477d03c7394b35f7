# Helpers for the benchmarks' summaries of flat JSON lines (one object per line, no nesting),
# loaded before the program text: awk -f bench/jsonl.awk -f <(program).
#   med(list)          median of the space-separated numbers in `list` (which starts with a space)
#   parse_flat(line, f) fills f[key] = value for every "key":value of `line` (values unquoted)
function med(list,   n, a, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function parse_flat(line, f,   m, kv, p, i) {
  gsub(/[{}"]/, "", line); m = split(line, kv, ",")
  for (k in f) delete f[k]
  for (i = 1; i <= m; i++) { split(kv[i], p, ":"); f[p[1]] = p[2] }
}
