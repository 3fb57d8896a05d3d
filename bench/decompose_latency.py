# Wall time of one `mmkg search --mode hybrid --json` process per question of the vignettes dev set,
# with --fusion relative (no decomposition) and --fusion auto (z-score + the parts of a
# multi-part question searched too). Two passes each, the faster of the two per question.
# Usage: python3 bench/decompose_latency.py  (from the repo root; STORE=DIR: a store of the eight vignettes)
import json, os, subprocess, statistics, sys, time
qs=[json.loads(l)['question'] for l in open(os.environ.get('QA', '../shared/eval/dev_vignettes_qa.jsonl'))]
res={}
for fusion in ('relative','auto','relative','auto'):
    ts=[]
    for q in qs:
        t=time.perf_counter()
        subprocess.run(['build/mmkg','search',q,'--store',os.environ.get('STORE', '/work/stores/vig-s2'),'--mode','hybrid','--fusion',fusion,'--json','-k','10'],capture_output=True)
        ts.append((time.perf_counter()-t)*1000)
    res.setdefault(fusion,[]).append(ts)
for f,runs in res.items():
    per=[min(a,b) for a,b in zip(*runs)]
    print(f, 'p50 %.1f ms p90 %.1f ms mean %.1f ms'%(statistics.median(per), sorted(per)[int(0.9*len(per))], statistics.mean(per)))
