"""compare.py PLAIN.json RANKS.json P: the run over P ranks answers as the plain run did; -np 1 identical
in every value.
K-Means: labels and iterations identical; inertia, its trace and the centroids within
tolerance::ranks_objective (1e-11 relative, host/src/tuning/tolerances.hpp).
SMACOF: iterations and embedding identical; stress, its trace and the normalized stress within
tolerance::ranks_stress (2 (N + 16) eps of the precision, relative). Packed storage over ranks (the ranks
add their slices' parts of every row): iterations identical, the embedding within tolerance::ranks_packed
(2 (N + 16) eps, relative in the Frobenius norm), the stress within ranks_stress plus twice that.
Distance histogram, pair counts: counts (and g(r)) identical.
Pairwise distances: the matrix (dense or condensed, one .npy written by every rank) identical; min, max,
k nearest, pairs within a threshold identical; row sums within ranks_objective.
PageRank: iterations and the graph's counts (links, self-loops, repeats, dropped, zero weights, dangling) identical, an
R-MAT graph drawn in P parts; ranks within tolerance::ranks_pagerank (32 eps of the precision) in L1,
the L1 changes within 3 times that; and, for an edge-list file, the ranks over P ranks within
tolerance::ranks_l1 of networkx's iteration (written here with scipy.sparse) run as many times. The halo
exchange's counts (result.exchange): the bytes sent are the entries received, and for an edge-list file in
its own node order (spread over the ranks) each rank's entries received and sent are those counted here
from the file.
compare.py RESIDENT.json CHUNKED.json P streamed|kept: a K-Means run over P ranks whose points were in
chunks on every rank's device (streamed through it, or kept there) answers as the resident run over as
many ranks did, every value identical.
compare.py DOUBLE_HELD.json FLOAT_HELD.json P held: a float K-Means run over P ranks whose points the host
held in float (drawn in float by the generator) answers as the run on the same points held in double:
labels and iterations identical, inertia, its trace and the centroids within tolerance::objective(float)
(1e-4 relative): each point was rounded to float before its centring instead of after."""
import json
import sys

import numpy as np
import scipy.sparse

RANKS_OBJECTIVE = 1e-11  # tolerance::ranks_objective()
OBJECTIVE_FLOAT = 1e-4  # tolerance::objective(Precision::f32)


def eps_of(precision):
    return float(np.finfo(np.float32 if precision == "float" else np.float64).eps)


def ranks_pagerank(precision):  # tolerance::ranks_pagerank()
    return 32 * eps_of(precision)


def ranks_l1(precision):  # tolerance::ranks_l1()
    return 5e-6 if precision == "float" else 1e-10


def node_ranks(r):
    """The result's ranks by node id: inline, or a node,rank CSV file."""
    if isinstance(r["ranks"], dict):
        return {int(k): v for k, v in r["ranks"].items()}
    table = np.loadtxt(r["ranks"], delimiter=",", skiprows=1, ndmin=2)
    return {int(k): v for k, v in table}


def reference_pagerank(path, data, params, n_iter):
    """networkx's iteration x <- alpha (x M + D d) + (1 - alpha) p, n_iter times, in double, on the edge
    list at `path` (ids numbered in ascending order; a repeated link counts as often as it appears, as in
    a MultiDiGraph). A third column weighs the links: M's column j is j's links' weights over their sum
    (0 for none: j dangles); with data.duplicates false a repeated link keeps the last weight read, as a
    DiGraph does, and data.self_loops false leaves self-loops out."""
    table = np.loadtxt(path, ndmin=2)
    edges = table[:, :2].astype(np.int64)
    w = table[:, 2] if table.shape[1] > 2 else np.ones(len(edges))
    ids = np.unique(edges)
    if not data.get("self_loops", True):
        keep = edges[:, 0] != edges[:, 1]
        edges, w = edges[keep], w[keep]
    if not data.get("duplicates", True):
        last = {}
        for (u, v), x in zip(edges.tolist(), w):
            last[(u, v)] = x
        edges, w = np.array(list(last), dtype=np.int64).reshape(-1, 2), np.array(list(last.values()))
    src, dst = np.searchsorted(ids, edges[:, 0]), np.searchsorted(ids, edges[:, 1])
    n = len(ids)
    outdeg = np.bincount(src, weights=w, minlength=n)
    m = scipy.sparse.csr_matrix((w / np.where(outdeg[src] > 0, outdeg[src], 1), (dst, src)), shape=(n, n))

    def weights(field):
        value = params.get(field)
        if value is None:
            return None
        if isinstance(value, str):  # a file of "node value" lines
            value = {int(a): float(b) for a, b in np.loadtxt(value, ndmin=2)}
        w = np.zeros(n)
        for node, v in value.items():
            w[np.searchsorted(ids, int(node))] = v
        return w / w.sum()

    uniform = np.full(n, 1.0 / n)
    x = weights("nstart")
    x = uniform if x is None else x
    jump = weights("personalization")
    jump = uniform if jump is None else jump
    dangling = weights("dangling")
    dangling = jump if dangling is None else dangling
    alpha = params.get("alpha", 0.85)
    for _ in range(n_iter):
        x = alpha * (m @ x + x[outdeg == 0].sum() * dangling) + (1 - alpha) * jump
    return dict(zip(ids.tolist(), x))


def halo_reference(path, data, p):
    """Per rank, the remote entries its rows' in-links read and the entries it sends, over p ranks, the
    file's nodes spread over the ranks (pagerank_split.hpp's spread_order: by out-degree, largest first, ties
    by id, dealt round-robin into p groups, the groups one after another): the links kept as
    reference_pagerank keeps them (a link of weight 0 is none), the rows cut where the in-link row pointer
    first reaches links r / p."""
    table = np.loadtxt(path, ndmin=2)
    edges = table[:, :2].astype(np.int64)
    w = table[:, 2] if table.shape[1] > 2 else np.ones(len(edges))
    ids = np.unique(edges)
    keep = [(u, v, x) for (u, v), x in zip(edges.tolist(), w) if data.get("self_loops", True) or u != v]
    if not data.get("duplicates", True):
        keep = [(u, v, x) for (u, v), x in {(u, v): x for u, v, x in keep}.items()]
    links = [(int(np.searchsorted(ids, u)), int(np.searchsorted(ids, v))) for u, v, x in keep if x != 0]
    n = len(ids)
    by_degree = np.argsort(-np.bincount([u for u, _ in links], minlength=n), kind="stable")
    spread = np.concatenate([by_degree[r::p] for r in range(p)])  # new id -> file's id
    new_id = np.empty(n, dtype=np.int64)
    new_id[spread] = np.arange(n)
    links = [(int(new_id[u]), int(new_id[v])) for u, v in links]
    offsets = np.concatenate([[0], np.cumsum(np.bincount([v for _, v in links], minlength=n))])
    bounds = [int(np.searchsorted(offsets[:n], len(links) * r // p)) for r in range(p)] + [n]
    owner = lambda i: int(np.searchsorted(bounds, i, side="right")) - 1
    reads = [sorted({u for u, v in links if owner(v) == r and owner(u) != r}) for r in range(p)]
    sent = [sum(1 for q in range(p) for u in reads[q] if owner(u) == r) for r in range(p)]
    return [len(x) for x in reads], sent


def exchange_problems(ex, p, n, value_bytes, data):
    """result.exchange over p ranks: what is sent is what is received, each rank's rows at most once to each
    other rank, the allgather's bytes those of n values; with `data` (an edge list in the file's order), the
    counts of halo_reference."""
    sent, allgather, remote = (ex.get(k, []) for k in ("bytes_sent_per_rank", "allgather_bytes_per_rank",
                                                       "remote_entries_per_rank"))
    if not len(sent) == len(allgather) == len(remote) == p:
        return [f"exchange: {ex!r} over {p} ranks"]
    problems = []
    if sum(sent) != sum(remote) * value_bytes:
        problems.append(f"exchange: {sum(sent)} bytes sent, {sum(remote)} entries received")
    if sum(allgather) != (p - 1) * n * value_bytes or any(s > a for s, a in zip(sent, allgather)):
        problems.append(f"exchange: sent {sent}, allgather {allgather}, n = {n}")
    if data:
        expected_remote, expected_sent = halo_reference(data["path"], data, p)
        if remote != expected_remote or sent != [s * value_bytes for s in expected_sent]:
            problems.append(f"exchange: received {remote} entries, sent {sent} bytes; expected {expected_remote} "
                            f"and {expected_sent} entries")
    return problems


def ranks_stress(precision, n):  # tolerance::ranks_stress()
    eps = np.finfo(np.float32 if precision == "float" else np.float64).eps
    return 2.0 * (n + 16) * float(eps)


def ranks_packed(precision, n):  # tolerance::ranks_packed()
    return ranks_stress(precision, n)


plain, ranks, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
chunked = sys.argv[4] if len(sys.argv) > 4 else None
a, b = plain["result"], ranks["result"]
problems = []
if chunked in ("streamed", "kept"):
    per_rank = b["streaming"].get("ranks", [b["streaming"]])
    if ("chunks" in a["streaming"] or len(per_rank) != p or
            not all(r["streamed"] == (chunked == "streamed") and r["chunks"] >= 2 for r in per_rank)):
        problems.append(f'streaming: {a["streaming"]!r} resident, {b["streaming"]!r} {chunked}')


def close(x, y, scale, tol):
    return abs(x - y) <= tol * max(abs(scale), 1e-300) or x == y


def same(*keys):
    for key in keys:
        if a[key] != b[key]:
            problems.append(f"{key}: {a[key]} plain, {b[key]} over {p} ranks")


def labels_of(results_path):
    return results_path[: -len(".json")] + ".labels.txt"


def matrix(r, key):
    m = r[key]
    return np.load(m["file"]) if isinstance(m, dict) else np.array(m, dtype=float)


if plain["algorithm"] == "kmeans":
    tol = OBJECTIVE_FLOAT if chunked == "held" else 0.0 if p == 1 or chunked else RANKS_OBJECTIVE
    same("n_iter", "converged", "n_relocated", "best_init")
    # Each run's own labels: mpi_test.sh moves the file every run of a config writes beside its results.
    with open(labels_of(sys.argv[1])) as fa, open(labels_of(sys.argv[2])) as fb:
        if fa.read() != fb.read():
            problems.append("labels differ")
    for x, y in zip([a["inertia"]] + a["inertia_trace"] + a["init_inertia"],
                    [b["inertia"]] + b["inertia_trace"] + b["init_inertia"]):
        if not close(x, y, x, tol):
            problems.append(f"inertia {x!r} plain, {y!r} over {p} ranks")
    ca, cb = matrix(a, "centroids"), matrix(b, "centroids")
    if np.abs(ca - cb).max() > tol * max(np.abs(ca).max(), 1e-300):
        problems.append(f"centroids differ by {np.abs(ca - cb).max()!r}")
elif plain["algorithm"] == "smacof":
    n = plain["data"]["n_samples"] if "n_samples" in plain["data"] else len(matrix(a, "embedding"))
    tol = 0.0 if p == 1 else ranks_stress(plain["precision"], n)
    same("n_iter", "converged", "best_init")
    ea, eb = matrix(a, "embedding"), matrix(b, "embedding")
    tuning = ranks["kernel"]["tuning"]
    if p > 1 and tuning["packed"]:
        bound = ranks_packed(plain["precision"], n)
        off = np.linalg.norm(ea - eb) / np.linalg.norm(ea)
        print(f"{sys.argv[2]}: packed over {p} ranks, embedding within {off:.2g} relative (tolerance {bound:.2g})")
        if not off <= bound:
            problems.append(f"embeddings {off:.3g} apart")
        tol += 2 * bound
    elif not np.array_equal(ea, eb):
        problems.append("embeddings differ")
    worst = 0.0
    for x, y in zip([a["stress"], a["normalized_stress"]] + a["stress_trace"] + a["init_stress"],
                    [b["stress"], b["normalized_stress"]] + b["stress_trace"] + b["init_stress"]):
        worst = max(worst, abs(x - y) / abs(x)) if x else worst
        if not close(x, y, x, tol):
            problems.append(f"stress {x!r} plain, {y!r} over {p} ranks (tolerance {tol:.3g})")
    print(f"{sys.argv[2]}: stress within {worst:.2g} relative (tolerance {tol:.2g})")
elif plain["algorithm"] in ("distance_histogram", "pair_counts"):
    # Integer counts: exactly one process's, as everything derived from them.
    for key in ("counts", "edges", "radii", "pairs", "counted", "g_r"):
        if key in a and a[key] != b.get(key):
            problems.append(f"{key}: {a[key]} plain, {b.get(key)} over {p} ranks")
    if p > 1 and len(b["shares"]) != p:
        problems.append(f"{len(b['shares'])} device shares over {p} ranks")
    if p > 1 and abs(sum(s["pairs"] for s in b["shares"]) - a["pairs"]) > 0:
        problems.append("the ranks' shares do not add up to every pair")
elif plain["algorithm"] == "pairwise_distances":
    # The matrix: each pair computed by the same operations on whichever rank has its rectangle. Minima,
    # maxima, the k nearest and the pairs within the threshold: exactly one process's (ties to the
    # lower column); row sums: the same rectangles' sums added in another order (ranks_objective).
    for key in ("matrix", "min", "argmin", "max", "argmax", "distances", "indices", "pair_list", "pairs_within",
                "pairs"):
        if key in a and (key not in b or not np.array_equal(matrix(a, key), matrix(b, key))):
            problems.append(f"{key} differs over {p} ranks")
    if "sum" in a:
        tol = 0.0 if p == 1 else RANKS_OBJECTIVE
        for x, y in zip(matrix(a, "sum").ravel(), matrix(b, "sum").ravel()):
            if not close(x, y, x, tol):
                problems.append(f"row sum {x!r} plain, {y!r} over {p} ranks")
    if p > 1 and len(b["shares"]) != p:
        problems.append(f"{len(b['shares'])} device shares over {p} ranks")
elif plain["algorithm"] == "pagerank":
    precision = plain["precision"]
    tol = 0.0 if p == 1 else ranks_pagerank(precision)
    same("n_iter", "converged")
    # The graph as one process counts it, however the ranks held it (an R-MAT drawn in parts, one per rank).
    for key in ("n_nodes", "n_edges", "n_links", "self_loops", "duplicates", "edges_dropped", "zero_weight_links",
                "weighted_links", "dangling_nodes"):
        if plain["data"].get(key) != ranks["data"].get(key):
            problems.append(f"data.{key}: {plain['data'].get(key)} plain, {ranks['data'].get(key)} over {p} ranks")
    if ranks["data"].get("generator") == "rmat" and p > 1 and ranks["data"].get("drawn_in_parts") != p:
        problems.append(f"an R-MAT graph over {p} ranks not drawn in {p} parts: {ranks['data'].get('drawn_in_parts')}")
    ra, rb = node_ranks(a), node_ranks(b)
    if ra.keys() != rb.keys():
        problems.append(f"{len(ra)} nodes ranked plain, {len(rb)} over {p} ranks")
    l1 = sum(abs(ra[k] - rb.get(k, 0.0)) for k in ra)
    if l1 > tol:
        problems.append(f"ranks {l1:.3g} apart in L1 (tolerance {tol:.3g})")
    for x, y in zip(a["residual_trace"], b["residual_trace"]):
        if abs(x - y) > 3 * tol:
            problems.append(f"L1 change {x!r} plain, {y!r} over {p} ranks")
    message = f"{sys.argv[2]}: ranks within {l1:.2g} in L1 (tolerance {tol:.2g})"
    data = ranks["config"]["data"]
    if p > 1:
        problems += exchange_problems(b.get("exchange", {}), p, plain["data"]["n_nodes"],
                                      4 if precision == "float" else 8,
                                      ranks["kernel"]["tuning"]["reorder"] == "none" and "path" in data and data)
    if "path" in data:
        ref = reference_pagerank(data["path"], data, ranks["config"]["params"], b["n_iter"])
        off = sum(abs(ref[k] - rb.get(k, 0.0)) for k in ref)
        if ref.keys() != rb.keys() or off > ranks_l1(precision):
            problems.append(f"ranks {off:.3g} from the reference in L1 (tolerance {ranks_l1(precision):.3g})")
        message += f", {off:.2g} from the reference"
    print(message)
else:
    problems.append(f"no comparison for algorithm {plain['algorithm']}")

mpi = ranks.get("mpi")
if p == 1 and mpi is not None and not chunked:
    problems.append('"mpi" recorded by -np 1')
if p > 1 and (mpi is None or mpi["ranks"] != p or len(mpi["devices"]) != p):
    problems.append(f'"mpi": {mpi!r}')
timings = ranks["timings"].get("median_iteration", ranks["timings"]["total"])
if p > 1 and "comm_ms" not in timings:
    problems.append("no comm_ms in the timings")
for problem in problems:
    print(f"{sys.argv[2]}: {problem}")
sys.exit(1 if problems else 0)
