# usage: bench-s18f-summary.py WORKDIR (of bench-s18f-ab.sh): streaming/raw and raw per binary.
import json,glob,os,sys,statistics as st
os.chdir(sys.argv[1])
rows={}
for f in sorted(glob.glob('out/*.json')):
    if not open(f).read().strip(): continue
    mode,tag=f[4:-5].split('-',1); who=tag.split('-')[0]
    d=json.load(open(f)); r=d['runs'][0]
    for ra in r['ratios']:
        if 'streaming' in ra['what']:
            rows.setdefault((mode,who,ra['code'][:5],'stream/raw'),[]).append(ra['value'])
            rows.setdefault((mode,who,ra['code'][:5],'model cap'),[]).append(ra['model_bound_all'] or 0)
    for x in r['raw']:
        if x['write_bytes']==1<<20:
            rows.setdefault((mode,who,x['code'][:5],'raw 1MiB MiB/s'),[]).append(x['throughput_mib_s'])
            if x['model_bound_s']: rows.setdefault((mode,who,x['code'][:5],'raw 1MiB s / bound s'),[]).append(x['seconds']/x['model_bound_s'])
        else:
            rows.setdefault((mode,who,x['code'][:5],'raw 128KiB MiB/s'),[]).append(x['throughput_mib_s'])
    for s in r['streaming']:
        rows.setdefault((mode,who,s['code'][:5],'streaming MiB/s'),[]).append(s['throughput_mib_s'])
print('| mode | binary | code | quantity | min / median / max (n) |')
print('|---|---|---|---|---|')
for k in sorted(rows):
    v=rows[k]
    print(f'| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {min(v):.2f} / {st.median(v):.2f} / {max(v):.2f} ({len(v)}) |')
