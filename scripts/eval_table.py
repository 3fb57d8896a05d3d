# Prints `mmkg eval --json` results as per-mode tables: R@5, R@10, MRR and, per question type,
# R@10/MRR; then answer accuracy by type. Usage: python3 scripts/eval_table.py EVAL.json...
import json,sys
for f in sys.argv[1:]:
    d=json.load(open(f))
    if d.get('answer_accuracy') is None: print(f, '(retrieval only)')
    else: print(f, 'accuracy %.3f citation_precision %.3f'%(d['answer_accuracy'],d['citation_precision']))
    types=sorted(next(iter(d['modes'].values()))['by_type'].keys())
    print('%-14s %6s %6s %6s | '%('mode','R@5','R@10','MRR')+' '.join('%-12s'%t[:12] for t in types))
    for m,v in d['modes'].items():
        print('%-14s %6.3f %6.3f %6.3f | '%(m,v['recall_at_k']['5'],v['recall_at_k']['10'],v['mrr'])+' '.join('%5.3f/%5.3f '%(v['by_type'][t]['recall_at_10'],v['by_type'][t]['mrr']) for t in types))
    if d.get('answer_accuracy') is not None and 'items' in d:
        from collections import defaultdict
        acc=defaultdict(lambda:[0,0])
        for it in d['items']:
            t=it.get('type'); c=it.get('answer_correct', it.get('correct'))
            acc[t][1]+=1; acc[t][0]+= 1 if c else 0
        print('answers by type:', ' '.join('%s %d/%d'%(t,a,n) for t,(a,n) in sorted(acc.items())))
