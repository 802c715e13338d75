import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
for mode in a["modes"]:
    if mode not in b["modes"]: continue
    pa, pb = a["modes"][mode]["per_query"], b["modes"][mode]["per_query"]
    ch = [(q, pa[q]["ndcg"], pb[q]["ndcg"]) for q in pa if pa[q]["ndcg"] is not None and abs(pa[q]["ndcg"] - pb[q]["ndcg"]) > 1e-9]
    same_top10 = sum(pa[q]["top"][:10] == pb[q]["top"][:10] for q in pa)
    tot = sum(y - x for _, x, y in ch) / len([q for q in pa if pa[q]["ndcg"] is not None])
    print(f"{mode}: {a['modes'][mode]['means']['ndcg@10']} -> {b['modes'][mode]['means']['ndcg@10']}; top10 identical {same_top10}/{len(pa)}; "
          f"nDCG changed {len(ch)} (up {sum(y>x for _,x,y in ch)}, down {sum(y<x for _,x,y in ch)}), sum delta/n {tot:+.5f}")
    if "-v" in sys.argv:
        for q, x, y in sorted(ch, key=lambda t: t[2] - t[1]):
            print(f"  {q:>5} {x:.3f} -> {y:.3f} {y-x:+.3f}  {pa[q]['text'][:90]!r} named {pa[q]['named']} / {pb[q]['named']}")
