import json,glob,sys,statistics as st,math
# per launch per gap ratio median(auto)/median(spin); per range: geometric mean over gaps of median-over-launches ratio
d=sys.argv[1]; tls=sys.argv[2]
ranges=[(0,50),(50,1000),(1000,4000),(4000,10000),(10000,1e9)]
print(tls, 'ranges(us):', ranges)
for v in sorted(glob.glob(d+'/*/')):
    runs=sorted(glob.glob(v+'rep*/reaction-%s.json'%tls))
    per={}
    for f in runs:
        for g in json.load(open(f))['gaps']:
            a=st.median(g['modes']['auto']['reaction_us']); s=st.median(g['modes']['spin']['reaction_us'])
            per.setdefault(g['gap_us'],[]).append(a/s)
    med={gap:st.median(r) for gap,r in per.items()}
    met=sum(1 for r in med.values() if r<=1.5)
    out=[]
    for lo,hi in ranges:
        rs=[med[g] for g in med if lo<=g<hi]
        out.append('%.2f'%math.exp(sum(map(math.log,rs))/len(rs)) if rs else '-')
    print('%-10s n=%d paired-met %d/%d  gm ratio by range: %s'%(v.split('/')[-2],len(runs),met,len(med),' '.join(out)))
