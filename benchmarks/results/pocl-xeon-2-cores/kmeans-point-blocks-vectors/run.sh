#!/usr/bin/env bash
# K-Means on PoCL 3.1, this 2-core Xeon (nothing else running): point_blocks as loops (old, 62ddc4a's
# kernel) against as vectors (new, 422dd09), the CPUs' entry (64 points a work-item, 256 work-items),
# update on the host, 10 iterations, median iteration; five rounds interleaved at N = 262,144; then the
# defaults at N = 1,048,576 against Debian's scikit-learn Lloyd on the same 2 cores, three rounds.
set -u
cfg() {
cat > /tmp/k/pb2.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "cpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": 4, "n_samples": $1, "random_state": 1},
 "params": {"n_clusters": 300, "init": "random", "n_init": 1, "max_iter": 10, "tol": 0, "random_state": 2,
            "kernel": {"update": "$2"}}, "output": "/tmp/k/pb2-out.json"}
JSON
}
show() { /usr/bin/python3 -c 'import json,sys; r=json.load(open("/tmp/k/pb2-out.json")); t=r["timings"]["median_iteration"]; print(sys.argv[1], "kernel %.2f wall %.2f ms" % (t["kernel_ms"], t["wall_ms"]), r["kernel"]["build_options"][-32:], "inertia %r" % r["result"]["inertia"])' "$1"; }
for rep in 1 2 3 4 5; do for b in old new; do
  cfg 262144 host; .gpu/itercl.$b run /tmp/k/pb2.json --quiet --out /tmp/k/pb2-out.json && show "$b N=262144 rep$rep"
done; done
for rep in 1 2 3; do
  cfg 1048576 auto; .gpu/itercl.new run /tmp/k/pb2.json --quiet --out /tmp/k/pb2-out.json && show "new defaults N=1048576 rep$rep"
  /usr/bin/python3 -c "
import time, numpy as np, sklearn
from sklearn.cluster import KMeans
x = np.random.default_rng(1).random((1048576, 4), dtype=np.float32)
km = KMeans(n_clusters=300, init='random', n_init=1, max_iter=10, tol=0, random_state=2)
t = time.perf_counter(); km.fit(x); s = time.perf_counter() - t
print('scikit-learn', sklearn.__version__, 'Lloyd %.2f ms per iteration' % (s / km.n_iter_ * 1e3))"
done
