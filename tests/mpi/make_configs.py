"""Writes the K-Means configs of mpi_test.sh into OUT/configs, each with its outputs in OUT."""
import itertools
import json
import math
import os
import sys

import numpy as np

here, out = os.path.abspath(sys.argv[1]), sys.argv[2]
os.makedirs(os.path.join(out, "configs"), exist_ok=True)

# 7 points in 2 clusters, one far centroid given: an empty cluster to relocate in the first iteration;
# weights, one of them zero (never relocated). -np 3 splits them 2, 2, 3.
small = [[0, 0], [0.5, 0.2], [0.1, 0.9], [5, 5], [5.5, 5.1], [4.8, 5.3], [9, 0.5]]
with open(os.path.join(out, "small.txt"), "w") as f:
    f.write("".join(f"{x} {y}\n" for x, y in small))
with open(os.path.join(out, "tiny.txt"), "w") as f:
    f.write("0 0\n10 10\n")  # 2 points: -np 3 leaves rank 0 without rows

blobs = {"generator": "blobs", "n_samples": 3001, "n_features": 3, "centers": 5, "random_state": 1}
# .npy points: each rank reads only its rows (float32 here: widened as read); weights scattered by rank 0.
points = np.random.default_rng(9).normal(size=(1001, 4)).astype(np.float32) * [1, 2, 3, 4]
np.save(os.path.join(out, "points.npy"), points)
np.save(os.path.join(out, "points_weights.npy"), np.random.default_rng(10).uniform(0, 2, size=1001))
np.save(os.path.join(out, "small.npy"), np.array(small, dtype=np.float32))
np.save(os.path.join(out, "tiny.npy"), np.array([[0.0, 0.0], [10.0, 10.0]]))
bad_points = points.copy()
bad_points[990, 2] = np.nan  # in the last rank's rows
np.save(os.path.join(out, "bad_points.npy"), bad_points)


def mt19937_64(seed):
    """std::mt19937_64's outputs (the C++ standard's definition), for the generated points in double."""
    mask, n, m = (1 << 64) - 1, 312, 156
    mt = [seed & mask]
    for i in range(1, n):
        mt.append((6364136223846793005 * (mt[-1] ^ (mt[-1] >> 62)) + i) & mask)
    while True:
        for i in range(n):
            x = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % n] & 0x7FFFFFFF)
            mt[i] = mt[(i + m) % n] ^ (x >> 1) ^ (0xB5026F5AA96619E9 if x & 1 else 0)
        for y in mt:
            y ^= (y >> 29) & 0x5555555555555555
            y ^= (y << 17) & 0x71D67FFFEDA60000
            y ^= (y << 37) & 0xFFF7EEE000000000
            yield (y ^ (y >> 43)) & mask


def generated_blobs(n_samples, n_features, centers, random_state):
    """itercl's make_blobs of up to 65,536 rows (one stream), in double: the points a float run draws in
    float, held in double for the run to compare with."""
    draws = mt19937_64(random_state)
    uniform = lambda: (next(draws) >> 11) * 2.0**-53
    box = [-10 + 20 * uniform() for _ in range(centers * n_features)]
    rows = []
    for i in range(n_samples):
        row = []
        for j in range(n_features):
            u, v = 1.0 - uniform(), uniform()
            row.append(box[(i % centers) * n_features + j] + math.sqrt(-2.0 * math.log(u)) * math.cos(2.0 * math.pi * v))
        rows.append(row)
    return np.array(rows)


# The standard's check of mt19937_64: the 10,000th output from the default seed.
assert next(itertools.islice(mt19937_64(5489), 9999, None)) == 9981545732273789042
# The double-held copies of float-held points: a float32 .npy as float64, the generated blobs in double.
np.save(os.path.join(out, "points_f64.npy"), points.astype(np.float64))
np.save(os.path.join(out, "blobs_f64.npy"), generated_blobs(3001, 3, 5, 1))
configs = {
    "blobs_kmeanspp": {"data": blobs, "params": {"n_clusters": 6, "init": "k-means++", "random_state": 3}},
    "blobs_random_double": {"precision": "double", "data": dict(blobs, n_samples=2000, centers=4),
                            "params": {"n_clusters": 8, "init": "random", "random_state": 7}},
    # random_state 0: both runs reach one clustering, numbered otherwise, with inertias equal but for
    # rounding, which differs with the ranks' split; the earlier run stays, as scikit-learn keeps it
    # (kmeans_ranks.cpp: same_clustering). Also runs 0 and 4 of 5 from random_state 7, the best.
    "text_s1": {"data": {"path": os.path.join(here, "..", "..", "datasets", "uef", "s1.data.gz")},
                "params": {"n_clusters": 15, "n_init": 2, "random_state": 0}},
    "text_s1_runs": {"data": {"path": os.path.join(here, "..", "..", "datasets", "uef", "s1.data.gz")},
                     "params": {"n_clusters": 15, "n_init": 5, "random_state": 7}},
    "small_relocate_weighted": {
        "precision": "double", "data": {"path": os.path.join(out, "small.txt")},
        "params": {"n_clusters": 3, "init": [[0, 0], [5, 5], [100, 100]],
                   "sample_weight": [1, 2, 1, 1, 0.5, 1, 0], "random_state": 0}},
    "small_relocate_kmeanspp": {"data": {"path": os.path.join(out, "small.txt")},
                                "params": {"n_clusters": 4, "random_state": 11}},
    "tiny_empty_rank": {"precision": "double", "data": {"path": os.path.join(out, "tiny.txt")},
                        "params": {"n_clusters": 2, "init": "random", "random_state": 5}},
    "npy_kmeanspp_weighted": {"data": {"path": os.path.join(out, "points.npy")},
                              "params": {"n_clusters": 7, "n_init": 2, "random_state": 4,
                                         "sample_weight": os.path.join(out, "points_weights.npy")}},
    "npy_random": {"precision": "double", "data": {"path": os.path.join(out, "points.npy")},
                   "params": {"n_clusters": 5, "init": "random", "random_state": 6}},
    # The relocation over ranks from float rows (a float32 file is held as float).
    "npy_small_relocate_weighted": {
        "data": {"path": os.path.join(out, "small.npy")},
        "params": {"n_clusters": 3, "init": [[0, 0], [5, 5], [100, 100]],
                   "sample_weight": [1, 2, 1, 1, 0.5, 1, 0], "random_state": 0}},
    "npy_tiny_empty_rank": {"data": {"path": os.path.join(out, "tiny.npy")},
                            "params": {"n_clusters": 2, "random_state": 5}},
}
# The same runs with the update on the device (each rank's per-cluster sums reduced by its device): the
# CPU's default is the host's update (tuning/kmeans.json).
for name in ("blobs_kmeanspp", "small_relocate_weighted", "tiny_empty_rank"):
    c = json.loads(json.dumps(configs[name]))
    c["params"]["kernel"] = {"update": "device"}
    configs[name + "_device"] = c
for name, c in configs.items():
    config = {"algorithm": "kmeans", "device": "cpu", "precision": c.get("precision", "float"),
              "data": c["data"], "params": c["params"],
              "output": {"path": os.path.join(out, name + ".json"), "labels": os.path.join(out, name + ".labels.txt")}}
    with open(os.path.join(out, "configs", name + ".json"), "w") as f:
        json.dump(config, f, indent=1)

# The runs mpi_test.sh puts in chunks on the devices, with labels of their own (outside the *.json every P runs).
# A chunk is whole work-groups: these configs (and so their resident runs) pin the work-groups that
# mpi_test.sh's memory caps are sized for (64 work-items of 16 register values), whatever the CPU's tuning.
for name, how in (("blobs_kmeanspp", "streamed"), ("blobs_kmeanspp_device", "streamed"),
                  ("npy_kmeanspp_weighted", "kept")):
    path = os.path.join(out, "configs", name + ".json")
    base = json.load(open(path))
    base["params"].setdefault("kernel", {}).update(variant="expanded", work_group_size=64, register_values=16)
    with open(path, "w") as f:
        json.dump(base, f, indent=1)
    chunked = json.load(open(path))
    chunked["output"] = {"path": os.path.join(out, f"{name}.{how}.json"),
                         "labels": os.path.join(out, f"{name}.{how}.labels.txt")}
    with open(os.path.join(out, "configs", f"{name}.{how}.json.txt"), "w") as f:
        json.dump(chunked, f)

# The same runs on the points held in double (float64 .npy files, outside the *.json every P runs): the
# float32 file's values, and the generated blobs as make_blobs draws them in double.
for name, copy in (("npy_kmeanspp_weighted", "points_f64.npy"), ("blobs_kmeanspp", "blobs_f64.npy")):
    held = json.load(open(os.path.join(out, "configs", name + ".json")))
    held["data"] = {"path": os.path.join(out, copy)}
    held["output"] = {"path": os.path.join(out, name + ".f64.json"), "labels": os.path.join(out, name + ".f64.labels.txt")}
    with open(os.path.join(out, "configs", name + ".f64.json.txt"), "w") as f:
        json.dump(held, f)

# One device spec per rank, as a JSON list: for -np 2 only (outside the *.json every P runs).
listed = dict(json.load(open(os.path.join(out, "configs", "blobs_kmeanspp.json"))), device=["cpu", "0:0"])
listed["output"] = {"path": os.path.join(out, "listed.json"), "labels": os.path.join(out, "listed.labels.txt")}
with open(os.path.join(out, "configs", "device_list.json.txt"), "w") as f:
    json.dump(listed, f)

bad = {"algorithm": "kmeans", "device": "cpu", "data": blobs, "params": {"n_clusters": 0}}
with open(os.path.join(out, "configs", "bad_params.json.txt"), "w") as f:
    json.dump(bad, f)
with open(os.path.join(out, "configs", "kmeans_bad_row.json.txt"), "w") as f:
    json.dump({"algorithm": "kmeans", "device": "cpu", "data": {"path": os.path.join(out, "bad_points.npy")},
               "params": {"n_clusters": 3}}, f)

# SMACOF: vectors (rank 0 reads them, every rank builds its rows of delta) and .npy dissimilarities (each
# rank reads its rows and the same columns). n = 301 splits 100, 100, 101 over 3 ranks; 2 points leave
# rank 0 of 3 without rows.
rng = np.random.default_rng(5)
points = rng.normal(size=(157, 4))
d = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(-1))
noisy = d + np.triu(rng.uniform(0, 1e-3, size=d.shape), 1)  # asymmetric: data.symmetrize averages it
np.save(os.path.join(out, "noisy.npy"), noisy)
np.save(os.path.join(out, "two.npy"), np.array([[0.0, 2.0], [2.0, 0.0]]))
np.save(os.path.join(out, "three.npy"), d[:3, :3])
vectors = {"generator": "blobs", "n_samples": 301, "n_features": 5, "centers": 4, "random_state": 2}
smacof = {
    "smacof_vectors": {"data": dict(vectors, kind="vectors"), "params": {"random_state": 3}},
    "smacof_vectors_cityblock_fused_double": {
        "precision": "double", "data": dict(vectors, kind="vectors", metric="cityblock", n_samples=200),
        "params": {"n_components": 3, "max_iter": 40, "n_init": 2, "random_state": 4,
                   "kernel": {"variant": "fused", "slices": 3, "work_group_size": 16}}},
    "smacof_vectors_classical_double": {
        "precision": "double", "data": dict(vectors, kind="vectors", n_samples=150),
        "params": {"init": "classical", "max_iter": 30}},
    "smacof_npy_symmetrize": {
        "data": {"kind": "dissimilarities", "path": os.path.join(out, "noisy.npy"), "symmetrize": True},
        "params": {"eps": 1e-4, "random_state": 6, "kernel": {"variant": "fused_rows", "work_group_size": 8}}},
    # Cut into several buffers when mpi_test.sh caps an allocation (slices that fit the cap). With 16 slices
    # every rank also holds whole slices of its own columns, run ahead of the exchange of X: still bit for bit.
    "smacof_split_vectors": {"data": dict(vectors, kind="vectors"),
                             "params": {"random_state": 7, "max_iter": 40, "kernel": {"variant": "fused", "slices": 16}}},
    "smacof_split_npy_double": {
        "precision": "double",
        "data": {"kind": "dissimilarities", "path": os.path.join(out, "noisy.npy"), "symmetrize": True},
        "params": {"random_state": 8, "max_iter": 40, "kernel": {"variant": "fused_rows", "slices": 16}}},
    "smacof_npy_empty_rank": {
        "precision": "double", "data": {"kind": "dissimilarities", "path": os.path.join(out, "two.npy")},
        "params": {"init": [[0, 0], [1, 1]], "max_iter": 5}},
    # Packed storage over ranks: each rank builds and runs a range of the slices. Slices left to the rule
    # (one process and P ranks resolve their own), 5 slices (uneven ranges: 3 and 2, 2, 2 and 1), and 2
    # slices of 20 columns, which leave a rank of 3 without any.
    "smacof_packed_vectors": {"data": dict(vectors, kind="vectors"),
                              "params": {"random_state": 9, "max_iter": 40, "kernel": {"packed": True}}},
    "smacof_packed_vectors_double": {
        "precision": "double", "data": dict(vectors, kind="vectors", n_samples=300),
        "params": {"n_components": 3, "random_state": 10, "max_iter": 30,
                   "kernel": {"packed": True, "slices": 5, "work_group_size": 16}}},
    # Each pair once (the GPUs' pass over packed storage; CPUs take it when asked), in 3-D: each rank's
    # slices' window sums added with its rows'.
    "smacof_packed_symmetric_double": {
        "precision": "double", "data": dict(vectors, kind="vectors", n_samples=300),
        "params": {"n_components": 3, "random_state": 12, "max_iter": 30,
                   "kernel": {"packed": True, "symmetric": True, "slices": 5, "work_group_size": 16}}},
    "smacof_packed_empty_rank_double": {
        "precision": "double", "data": dict(vectors, kind="vectors", metric="cityblock", n_samples=41),
        "params": {"random_state": 11, "max_iter": 20, "kernel": {"packed": True, "slices": 2}}},
    # smacof_split_vectors in packed storage (its plain run is what the ranks' automatic storage is compared
    # with when full storage does not fit them).
    "smacof_split_packed": {"data": dict(vectors, kind="vectors"),
                            "params": {"random_state": 7, "max_iter": 40,
                                       "kernel": {"variant": "fused", "slices": 16, "packed": True}}},
}
# The embeddings inline in the results (N x n_components within the inline limit), so that every run's
# results hold its own.
for name, c in smacof.items():
    config = {"algorithm": "smacof", "device": "cpu", "precision": c.get("precision", "float"),
              "data": c["data"], "params": c["params"], "output": {"path": os.path.join(out, name + ".json")}}
    with open(os.path.join(out, "configs", name + ".json"), "w") as f:
        json.dump(config, f, indent=1)
# smacof_split_vectors in full storage, pinned: the block of -np 2 beyond a small device is refused.
full = json.load(open(os.path.join(out, "configs", "smacof_split_vectors.json")))
full["params"]["kernel"]["packed"] = False
with open(os.path.join(out, "configs", "smacof_split_full.json.txt"), "w") as f:
    json.dump(full, f)

# SMACOF's refusals over several ranks (for -np 2 only): weights, a classical start from dissimilarities,
# packed storage of a file.
three = {"kind": "dissimilarities", "path": os.path.join(out, "three.npy")}
for name, params in {"smacof_weights": {"weights": [[0, 1, 1], [1, 0, 1], [1, 1, 0]]},
                     "smacof_classical_npy": {"init": "classical"},
                     "smacof_packed_npy": {"kernel": {"packed": True}}}.items():
    with open(os.path.join(out, "configs", name + ".json.txt"), "w") as f:
        json.dump({"algorithm": "smacof", "device": "cpu", "data": three, "params": params}, f)

# A negative dissimilarity in the last row (symmetrize: no other rank compares it): only the last rank
# reads it, and its error ends every rank.
bad = d.copy()
bad[-1, 0] = -1.0
np.save(os.path.join(out, "bad_row.npy"), bad)
with open(os.path.join(out, "configs", "smacof_bad_row.json.txt"), "w") as f:
    json.dump({"algorithm": "smacof", "device": "cpu",
               "data": {"kind": "dissimilarities", "path": os.path.join(out, "bad_row.npy"), "symmetrize": True},
               "params": {}}, f)

# The distance histogram and pair counts: rank 0 reads the points, every rank counts its part of the
# pair space's rectangles (block 64: 1201 points give 190 of them), the counts are added exactly.
points3 = {"generator": "blobs", "n_samples": 1201, "n_features": 3, "centers": 3, "random_state": 8}
histograms = {
    "histogram_periodic": {"algorithm": "distance_histogram", "data": points3,
                           "params": {"bins": 40, "range": [0, 8], "box": [9, 9, 9], "block": 64}},
    "histogram_edges_double": {"algorithm": "distance_histogram", "precision": "double", "data": points3,
                               "params": {"edges": [0, 0.5, 1, 2, 4, 30], "block": 128}},
    "pair_counts": {"algorithm": "pair_counts", "data": dict(points3, n_samples=500),
                    "params": {"radii": [0.5, 1, 2, 5]}},
}
for name, c in histograms.items():
    config = {"algorithm": c["algorithm"], "device": "cpu", "precision": c.get("precision", "float"),
              "data": c["data"], "params": c["params"], "output": os.path.join(out, name + ".json")}
    with open(os.path.join(out, "configs", name + ".json"), "w") as f:
        json.dump(config, f, indent=1)

# pairwise_distances' reductions: every rank reduces its part of the rectangles, rank 0 merges them.
# Ties are frequent on integer coordinates (the lower column must win, as on one rank). row_sum gives
# the block explicitly: the same rectangles as the plain run, so only the parts' order of addition differs.
ints = rng.integers(0, 6, size=(203, 2)).astype(float)
np.save(os.path.join(out, "ints.npy"), ints)
np.save(os.path.join(out, "ints_y.npy"), rng.integers(0, 6, size=(77, 2)).astype(float))
pairwise = {
    "pairwise_knn": {"form": "knn", "k": 5, "block_rows": 64},
    "pairwise_row_min_y": {"form": "row_min", "Y": {"path": os.path.join(out, "ints_y.npy")}, "metric": "cityblock",
                           "block_rows": 64, "block_cols": 32},
    "pairwise_row_max": {"form": "row_max", "block_rows": 64},
    "pairwise_row_sum_double": {"form": "row_sum", "block_rows": 64},
    "pairwise_threshold": {"form": "threshold", "threshold": 1.5, "block_rows": 64},
    # The matrix itself: one .npy written by every rank at its rectangles' places, mirrored ones too.
    "pairwise_dense": {"form": "dense", "block_rows": 64},
    "pairwise_condensed_double": {"form": "condensed", "block_rows": 48},
    "pairwise_dense_y": {"form": "dense", "Y": {"path": os.path.join(out, "ints_y.npy")}, "block_rows": 64,
                         "block_cols": 32},
}
for name, params in pairwise.items():
    config = {"algorithm": "pairwise_distances", "device": "cpu",
              "precision": "double" if name.endswith("double") else "float",
              "data": {"path": os.path.join(out, "ints.npy")}, "params": params,
              "output": os.path.join(out, name + ".json")}
    with open(os.path.join(out, "configs", name + ".json"), "w") as f:
        json.dump(config, f, indent=1)

# A rank's block of the dissimilarities larger than the device: refused before anything is allocated.
with open(os.path.join(out, "configs", "smacof_huge_block.json.txt"), "w") as f:
    json.dump({"algorithm": "smacof", "device": "cpu",
               "data": {"kind": "vectors", "generator": "blobs", "n_samples": 400000, "n_features": 2},
               "params": {"max_iter": 1}}, f)

# PageRank: rank 0 reads the graph and sends each rank the in-links of its rows (blocks balanced by
# links). An edge list of 503 nodes (ids from 10; a node in seven dangles, a hub takes a third of the
# links, self-loops, no duplicates: networkx's graph is the same) splits unevenly over 2 and 3 ranks;
# compare.py also runs the reference iteration on it. Each format that runs on a row block, the degree
# order (applied on rank 0 before the split), personalization, dangling and nstart vectors in both
# ways they are given. R-MAT graphs are drawn in parts, one on each rank, and their edges exchanged:
# self-loops and repeats kept or dropped (the repeats found where the edges meet by destination), in
# both node orders, and 2 edges over 3 ranks (rank 0 draws none).
edges = set()
for u in range(503):
    if u % 7:
        for _ in range(rng.integers(1, 6)):
            edges.add((u, 3 if rng.random() < 0.3 else int(rng.integers(0, 503))))
with open(os.path.join(out, "graph.txt"), "w") as f:
    f.write("".join(f"{u + 10}\t{v + 10}\n" for u, v in sorted(edges)))
nodes = sorted({u for u, v in edges} | {v for u, v in edges})
with open(os.path.join(out, "personalization.txt"), "w") as f:
    f.write("".join(f"{u + 10} {rng.uniform(0, 1) if u % 3 else 0}\n" for u in nodes))
# A star into node 1 and a path: link_balanced_rows gives -np 3 a rank without rows.
with open(os.path.join(out, "star.txt"), "w") as f:
    f.write("0 1\n2 1\n3 1\n4 1\n5 1\n1 6\n")
# Weighted links (networkx's semantics): the same kind of graph with a third column, parallel links of
# different weights, self-loops, and weights of 0 (no link; node 900's only links weigh 0, so it dangles,
# and 901 and 902 are nodes that nothing reaches).
with open(os.path.join(out, "weighted.txt"), "w") as f:
    for u in range(300):
        if u % 7:
            for _ in range(rng.integers(1, 6)):
                v = 3 if rng.random() < 0.3 else int(rng.integers(0, 300))
                f.write(f"{u + 10} {v + 10} {rng.choice([0, 0.5, 1, 2.5, 10])}\n")
                if rng.random() < 0.2:  # a parallel link, weighed again
                    f.write(f"{u + 10} {v + 10} {rng.choice([0, 1, 4])}\n")
    f.write("26 26 3\n26 26 1\n900 901 0\n900 902 0\n")
with open(os.path.join(out, "weighted_star.txt"), "w") as f:
    f.write("0 1 2\n2 1 0.5\n3 1 1\n4 1 0\n5 1 7\n1 6 3\n")
# Two islands: nodes 0 and 1 link to themselves and to 2 and 3. Spread over 2 ranks (0 and 1 have the
# largest out-degrees, dealt one to each rank, then 2 and 3), rank 0 holds rows 0 and 2 and rank 1 rows 1
# and 3, so no rank reads a remote node or sends one; over 3 the cut falls across the islands.
with open(os.path.join(out, "islands.txt"), "w") as f:
    f.write("0 0\n0 2\n1 1\n1 3\n")
weighted = {"path": os.path.join(out, "weighted.txt")}
graph = {"path": os.path.join(out, "graph.txt")}
pagerank = {
    "pagerank_weighted_csr_adaptive": {"data": weighted, "params": {"format": "csr_adaptive", "tol": 1e-9}},
    "pagerank_weighted_last_bsr_degree_double": {
        "precision": "double", "data": dict(weighted, duplicates=False),
        "params": {"format": "bsr", "tol": 1e-12, "personalization": {"11": 1, "40": 3, "200": 2},
                   "kernel": {"reorder": "degree", "bsr_width": 8}}},
    "pagerank_weighted_hybrid_no_loops": {"data": dict(weighted, self_loops=False),
                                          "params": {"format": "hybrid", "tol": 1e-9, "kernel": {"hybrid_k": 4}}},
    "pagerank_weighted_star_empty_rank": {"precision": "double",
                                          "data": {"path": os.path.join(out, "weighted_star.txt")},
                                          "params": {"format": "csr_vector", "tol": 1e-12}},
    "pagerank_csr_scalar_personalized": {
        "data": graph, "params": {"format": "csr_scalar", "tol": 1e-9,
                                  "personalization": os.path.join(out, "personalization.txt"),
                                  "dangling": {"13": 1, "20": 2}}},
    "pagerank_csr_adaptive_degree_double": {
        "precision": "double", "data": graph,
        "params": {"format": "csr_adaptive", "tol": 1e-12, "nstart": {"11": 5, "12": 1, "300": 2},
                   "kernel": {"reorder": "degree", "work_group_size": 16}}},
    "pagerank_bsr_degree": {"data": graph, "params": {"format": "bsr", "kernel": {"reorder": "degree", "bsr_width": 8}}},
    "pagerank_hybrid_unconverged": {"data": graph, "params": {"format": "hybrid", "max_iter": 15, "tol": 0,
                                                              "kernel": {"hybrid_k": 4}}},
    "pagerank_csr_vector_double": {"precision": "double", "data": graph,
                                   "params": {"format": "csr_vector", "alpha": 0.5}},
    "pagerank_islands": {"data": {"path": os.path.join(out, "islands.txt")},
                         "params": {"format": "csr_scalar", "tol": 1e-9, "kernel": {"reorder": "none"}}},
    "pagerank_star_empty_rank": {"precision": "double", "data": {"path": os.path.join(out, "star.txt")},
                                 "params": {"format": "csr_adaptive", "tol": 1e-12}},
    "pagerank_rmat": {"data": {"generator": "rmat", "scale": 10, "edge_factor": 8, "random_state": 2},
                      "params": {"tol": 1e-8}},
    "pagerank_rmat_simple_degree_double": {
        "precision": "double",
        "data": {"generator": "rmat", "scale": 9, "edge_factor": 8, "random_state": 5, "self_loops": False,
                 "duplicates": False},
        "params": {"format": "csr_adaptive", "tol": 1e-12, "personalization": {"0": 1, "7": 3, "300": 2},
                   "kernel": {"reorder": "degree", "work_group_size": 16}}},
    "pagerank_rmat_no_loops_hybrid_degree": {
        "data": {"generator": "rmat", "scale": 9, "edge_factor": 4, "random_state": 6, "self_loops": False},
        "params": {"format": "hybrid", "tol": 1e-9, "kernel": {"reorder": "degree"}}},
    "pagerank_rmat_no_repeats_bsr": {
        "data": {"generator": "rmat", "scale": 8, "edge_factor": 16, "random_state": 7, "duplicates": False},
        "params": {"format": "bsr", "tol": 1e-9, "kernel": {"bsr_width": 8}}},
    "pagerank_rmat_two_edges": {"precision": "double",
                                "data": {"generator": "rmat", "scale": 1, "edge_factor": 1, "random_state": 1},
                                "params": {"format": "csr_vector", "tol": 1e-12}},
}
for name, c in pagerank.items():
    config = {"algorithm": "pagerank", "device": "cpu", "precision": c.get("precision", "float"),
              "data": c["data"], "params": c["params"], "output": {"path": os.path.join(out, name + ".json")}}
    with open(os.path.join(out, "configs", name + ".json"), "w") as f:
        json.dump(config, f, indent=1)
# Refused over several ranks (-np 2): ell (every rank would pad all n rows), and a bad personalization
# that only rank 0, which reads it, meets.
for name, params in {"pagerank_ell": {"format": "ell"},
                     "pagerank_bad_node": {"personalization": {"9999": 1}}}.items():
    with open(os.path.join(out, "configs", name + ".json.txt"), "w") as f:
        json.dump({"algorithm": "pagerank", "device": "cpu", "data": graph, "params": params}, f)
