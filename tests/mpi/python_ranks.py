"""python_ranks.py DIR OUT.json [--one]: itercl's Python package over the ranks of mpi4py's COMM_WORLD (under
mpirun), or on one process without a communicator (--one). Each rank takes its rows of DIR's data (the
split `itercl run` makes over as many ranks: core::first_row) and fits K-Means, MDS from vectors,
PageRank from its part of the edges, the distance histogram, pair counts, g(r) and the matrix of
distances with comm=; rank 0 writes every rank's results, gathered in rank order, to OUT.json (the
matrices to OUT's .pairwise.npz) for python_test.sh to compare."""
import json
import os
import sys

import numpy as np

import itercl

data, out = sys.argv[1], sys.argv[2]
one = "--one" in sys.argv[3:]
if one:
    comm, rank, size = None, 0, 1
else:
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()


def first_row(n, r):
    return n // size * r + n % size * r // size  # core::first_row


def mine(array):
    return array[first_row(len(array), rank):first_row(len(array), rank + 1)]


def gathered(local):
    """Every rank's rows, concatenated in rank order (on rank 0), as lists for JSON."""
    parts = [local] if comm is None else comm.gather(local, root=0)
    return None if parts is None else np.concatenate(parts).tolist()


points = np.load(os.path.join(data, "points.npy"))
vectors = np.load(os.path.join(data, "vectors.npy"))
edges = np.loadtxt(os.path.join(data, "edges.txt"), dtype=np.int64, ndmin=2)
n_nodes = int(edges.max()) + 1
result = {"ranks": size}

km = itercl.KMeans(n_clusters=5, random_state=4, device="cpu", comm=comm).fit(mine(points))
result["kmeans"] = {"labels": gathered(km.labels_), "inertia": km.inertia_, "n_iter": km.n_iter_,
                    "centroids": km.cluster_centers_.tolist(), "local_rows": len(km.labels_)}

mds = itercl.MDS(n_components=2, random_state=3, max_iter=60, device="cpu", comm=comm)
embedding = mds.fit_transform(mine(vectors))
result["smacof"] = {"embedding": gathered(embedding), "stress": mds.stress_, "n_iter": mds.n_iter_}

part = mine(edges)  # every edge on exactly one rank
ranks = itercl.pagerank((part[:, 0], part[:, 1]), device="cpu", comm=comm)
result["pagerank"] = {"ranks": ranks.tolist(), "n_nodes": n_nodes}
# Weighted parts over ranks are refused on every rank, not read unweighted (the ranks exchange links without
# weights).
if comm is not None:
    try:
        itercl.pagerank((part[:, 0], part[:, 1], np.arange(len(part)) + 2.0), device="cpu", comm=comm)
        raise SystemExit("weighted parts over ranks ran")
    except ValueError as e:
        if "unweighted" not in str(e):
            raise

counts, bin_edges = itercl.distance_histogram(mine(points[:, :3]), bins=30, range=(0, 12), device="cpu", comm=comm)
within = itercl.pair_counts(mine(points[:, :3]), [0.5, 1, 2, 5], device="cpu", comm=comm)
r, g = itercl.radial_distribution(mine(points[:, :3]), bins=30, range=(0, 12), volume=1000.0, device="cpu", comm=comm)
result["histogram"] = {"counts": counts.tolist(), "edges": bin_edges.tolist(), "pair_counts": within.tolist(),
                       "g_r": g.tolist()}

# pairwise_distances: each rank's rows of D, all ranks' gathered in rank order into an .npz beside OUT.
pairs, pairs_y = np.load(os.path.join(data, "pairs.npy")), np.load(os.path.join(data, "pairs_y.npy"))
D = itercl.pairwise_distances(mine(pairs), device="cpu", comm=comm)
D_y = itercl.pairwise_distances(mine(pairs), pairs_y, metric="cityblock", precision="double", device="cpu", comm=comm)
parts = [(D, D_y)] if comm is None else comm.gather((D, D_y), root=0)
if rank == 0:
    np.savez(out[:-len(".json")] + ".pairwise.npz", D=np.concatenate([a for a, _ in parts]),
             D_y=np.concatenate([b for _, b in parts]), local_rows=[len(a) for a, _ in parts])

# Every rank's answers of what every rank gets must agree: gathered, compared on rank 0.
shared = (km.inertia_, km.n_iter_, mds.stress_, ranks.tolist(), counts.tolist())
everyone = [shared] if comm is None else comm.gather(shared, root=0)
if rank == 0:
    result["agree"] = all(s == everyone[0] for s in everyone)
    with open(out, "w") as f:
        json.dump(result, f)
