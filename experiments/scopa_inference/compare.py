import json, sys
def load(f): return {json.loads(l)['i']: json.loads(l) for l in open(f)}
a = load(sys.argv[1]); 
for f in sys.argv[2:]:
    b = load(f)
    common = sorted(set(a) & set(b)); n = len(common)
    sa = sum(a[i]['score'] for i in common)/(2*n); sb = sum(b[i]['score'] for i in common)/(2*n)
    d = [(b[i]['score']-a[i]['score'])/2 for i in common]; m = sum(d)/n
    sd = (sum((x-m)**2 for x in d)/(n-1))**0.5/n**0.5
    ms = sum(b[i]['t'][0] for i in common)/max(1,sum(b[i]['t'][1] for i in common))*1000
    print(f, n, f"base {sa:.3f} new {sb:.3f} delta {m:+.3f} ± {1.96*sd:.3f} ms {ms:.0f}")
