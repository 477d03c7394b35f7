import json, glob, statistics, sys, collections
out = sys.argv[1] if len(sys.argv) > 1 else '/tmp/cmp/apps'
d = collections.defaultdict(list)
for f in glob.glob(f'{out}/*-rep*/runs.jsonl'):
    b = f.split('/')[-2].split('-rep')[0]
    for line in open(f):
        j = json.loads(line)
        if j.get('kind') != 'run' or not j.get('ok'): continue
        d[(j['app'], j['layout'], j['mode'], b)].append((j['app_time_s'], j['cpu_s']))
keys = sorted({k[:3] for k in d})
print('| app | layout | mode | base time s | new time s | new/base | base CPU-s | new CPU-s | n |')
print('|---|---|---|---|---|---|---|---|---|')
for k in keys:
    bt = [x[0] for x in d.get(k + ('base',), [])]; nt = [x[0] for x in d.get(k + ('new',), [])]
    bc = [x[1] for x in d.get(k + ('base',), [])]; nc = [x[1] for x in d.get(k + ('new',), [])]
    if not bt or not nt: continue
    mb, mn = statistics.median(bt), statistics.median(nt)
    print(f'| {k[0]} | {k[1]} | {k[2]} | {mb:.3f} | {mn:.3f} | {mn/mb:.3f} | {statistics.median(bc):.2f} | {statistics.median(nc):.2f} | {len(bt)}/{len(nt)} |')
