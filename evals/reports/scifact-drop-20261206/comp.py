import json, sys
a = json.load(open(sys.argv[1]))["modes"]["hybrid"]["per_query"]; b = json.load(open(sys.argv[2]))["modes"]["hybrid"]["per_query"]
for comp in ("dense", "bm25"):
    n = len(a); same = sum(a[q][comp] == b[q][comp] for q in a)
    same10 = sum(a[q][comp][:10] == b[q][comp][:10] for q in a)
    setsame = sum(set(a[q][comp]) == set(b[q][comp]) for q in a)
    print(f"{comp}: identical top30 {same}/{n}, identical top10 {same10}/{n}, same top30 set {setsame}/{n}")
    if "-v" in sys.argv and comp == "bm25":
        for q in a:
            if a[q][comp] != b[q][comp]:
                x, y = a[q][comp], b[q][comp]
                i = next(i for i in range(min(len(x), len(y))) if x[i] != y[i]) if any(x[i] != y[i] for i in range(min(len(x), len(y)))) else min(len(x), len(y))
                print(" ", q, "first diff at", i, x[i:i+3], y[i:i+3], a[q]["bm25_s"][i:i+3], b[q]["bm25_s"][i:i+3], len(x), len(y))
