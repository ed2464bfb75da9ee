"""All-pairs distances and their reductions on the device (docs/pairwise.md), as scikit-learn's and
SciPy's functions: pairwise_distances, pairwise_distances_argmin_min, knn, row_min / row_max / row_sum
and threshold_pairs; distance histograms, pair counts and g(r)."""

import math

import numpy as np

from . import _itercl
from ._base import (INT64_MAX, check_array, check_int, check_number, check_precision, comm_handle, device_specs,
                    kernel_json)

# scikit-learn's aliases for SciPy's names.
_METRICS = {"euclidean": "euclidean", "l2": "euclidean", "sqeuclidean": "sqeuclidean", "cityblock": "cityblock",
            "l1": "cityblock", "manhattan": "cityblock", "minkowski": "minkowski", "chebyshev": "chebyshev",
            "cosine": "cosine", "dot": "dot"}


def _metric(metric, kwds):
    if callable(metric) or metric not in _METRICS:
        raise ValueError(f"metric: expected one of {', '.join(sorted(_METRICS))}, got {metric!r}")
    kwds = dict(kwds)
    kwds.pop("n_jobs", None)  # scikit-learn's; the device's threads are the library's
    p = kwds.pop("p", 2)
    if kwds:
        raise TypeError(f"unexpected keyword argument(s) for metric {metric!r}: {', '.join(sorted(kwds))}")
    name = _METRICS[metric]
    if name != "minkowski" and p != 2:
        raise ValueError(f"p: only minkowski takes p, got p={p!r} with metric {metric!r}")
    return name, check_number("p", p)


def _inputs(X, Y, min_rows=1):
    X = check_array(X, "X", min_rows=min_rows)
    if Y is None:
        return X, None
    Y = check_array(Y, "Y", dtype=X.dtype if X.dtype == np.float32 else np.float64)
    if Y.shape[1] != X.shape[1]:
        raise ValueError(f"Y: has {Y.shape[1]} features, X has {X.shape[1]}; they must match")
    return X, Y


def _common(metric, kwds, device, precision, kernel, block_rows, block_cols):
    name, p = _metric(metric, kwds)
    return dict(metric=name, p=p, devices=device_specs(device), precision=check_precision(precision),
                kernel=kernel_json(kernel), block_rows=check_int("block_rows", block_rows, 0, INT64_MAX),
                block_cols=check_int("block_cols", block_cols, 0, INT64_MAX))


def pairwise_distances(X, Y=None, metric="euclidean", *, device=None, precision="float", kernel=None,
                       block_rows=0, block_cols=0, comm=None, **kwds):
    """D[i, j] = metric(X[i], Y[j]) (Y None: X with itself), as scikit-learn's pairwise_distances.

    Metrics: SciPy's euclidean, sqeuclidean, cityblock, minkowski (``p=``, any p > 0), chebyshev, cosine,
    scikit-learn's aliases l1, l2, manhattan, and dot (the inner product). The result has the device's
    precision: float32 for precision="float", float64 for "double". With one input only the pairs i < j
    are computed (and mirrored); the diagonal is exactly 0. ``device`` may list several devices, which
    share the pair space; block_rows / block_cols set the rectangle computed at a time (0: by memory).

    comm: an mpi4py communicator to compute over its ranks (under mpirun): every rank passes its own rows
    of X (all ranks' rows in rank order are X; a rank may pass none, as an array of shape (0, d)), the same
    Y (or None) and the same parameters. The ranks share the pair space as ``itercl run`` over as many
    ranks does, and each rank gets its own rows of D: an array of shape (its rows of X, Y's rows or all
    ranks' rows of X), equal to those rows of the one-process result, value for value; with Y None,
    columns follow all ranks' rows in rank order (docs/python.md, "Several ranks").
    """
    X, Y = _inputs(X, Y, min_rows=0 if comm is not None else 1)
    args = _common(metric, kwds, device, precision, kernel, block_rows, block_cols)
    return _itercl.pairwise_matrix(X, Y, **args, comm=comm_handle(comm))


def _reduce(X, Y, form, k, threshold, metric, kwds, device, precision, kernel, block_rows, block_cols):
    X, Y = _inputs(X, Y)
    args = _common(metric, kwds, device, precision, kernel, block_rows, block_cols)
    r = _itercl.pairwise_reduce(X, Y, form=form, k=k, threshold=threshold, **args)
    width = r["width"]
    values = r["values"].reshape(X.shape[0], width) if width else r["values"]
    indices = r["indices"].reshape(X.shape[0], width) if width and r["indices"].size else r["indices"]
    return values, indices, r


def row_min(X, Y=None, metric="euclidean", *, device=None, precision="float", kernel=None, block_rows=0,
            block_cols=0, **kwds):
    """Per row of D (see pairwise_distances), its smallest value and that value's column: (values, indices).

    Computed on the device rectangle by rectangle; D never reaches the host. With one input the pair of a
    row with itself is left out, as pdist does. Ties go to the lower column.
    """
    values, indices, _ = _reduce(X, Y, "row_min", 1, 0.0, metric, kwds, device, precision, kernel, block_rows,
                                 block_cols)
    return values[:, 0], indices[:, 0]


def row_max(X, Y=None, metric="euclidean", *, device=None, precision="float", kernel=None, block_rows=0,
            block_cols=0, **kwds):
    """Per row of D, its largest value and that value's column: (values, indices). As row_min."""
    values, indices, _ = _reduce(X, Y, "row_max", 1, 0.0, metric, kwds, device, precision, kernel, block_rows,
                                 block_cols)
    return values[:, 0], indices[:, 0]


def row_sum(X, Y=None, metric="euclidean", *, device=None, precision="float", kernel=None, block_rows=0,
            block_cols=0, **kwds):
    """Per row of D, the sum of its values (one input: without the row's own pair)."""
    values, _, _ = _reduce(X, Y, "row_sum", 1, 0.0, metric, kwds, device, precision, kernel, block_rows,
                           block_cols)
    return values[:, 0]


def knn(X, Y=None, k=1, metric="euclidean", *, device=None, precision="float", kernel=None, block_rows=0,
        block_cols=0, **kwds):
    """The k nearest rows of Y to each row of X: (distances, indices), each (n_samples_X, k), ascending.

    As scikit-learn's NearestNeighbors.kneighbors: with Y None a sample is not its own neighbour. k is 1 to
    64 and at most the candidates per row. Ties go to the lower index.
    """
    k = check_int("k", k, 1)
    values, indices, _ = _reduce(X, Y, "knn", k, 0.0, metric, kwds, device, precision, kernel, block_rows,
                                 block_cols)
    return values, indices


def threshold_pairs(X, Y=None, *, threshold, metric="euclidean", device=None, precision="float", kernel=None,
                    block_rows=0, block_cols=0, **kwds):
    """Every pair with D[i, j] <= threshold: (pairs, distances), pairs an (m, 2) array of (i, j) sorted.

    With one input each pair is listed once, i < j (as scipy's cKDTree.query_pairs).
    """
    threshold = check_number("threshold", threshold)
    _, _, r = _reduce(X, Y, "threshold", 1, threshold, metric, kwds, device, precision, kernel, block_rows,
                      block_cols)
    pairs = np.stack([r["i"], r["j"]], axis=1) if r["i"].size else np.empty((0, 2), dtype=np.int64)
    return pairs, r["d"]


def pairwise_distances_argmin_min(X, Y, *, axis=1, metric="euclidean", metric_kwargs=None, device=None,
                                  precision="float", kernel=None):
    """scikit-learn's pairwise_distances_argmin_min: for each row of X the nearest row of Y, (argmin, min)."""
    if axis not in (0, 1):
        raise ValueError(f"axis: expected 0 or 1, got {axis!r}")
    if Y is None:
        raise ValueError("Y: required (row_min finds the nearest other row of one input)")
    if axis == 0:
        X, Y = Y, X
    values, indices = row_min(X, Y, metric, device=device, precision=precision, kernel=kernel,
                              **(metric_kwargs or {}))
    return indices, values


def pairwise_distances_argmin(X, Y, *, axis=1, metric="euclidean", metric_kwargs=None, device=None,
                              precision="float", kernel=None):
    """scikit-learn's pairwise_distances_argmin: for each row of X the index of the nearest row of Y."""
    return pairwise_distances_argmin_min(X, Y, axis=axis, metric=metric, metric_kwargs=metric_kwargs,
                                         device=device, precision=precision, kernel=kernel)[0]


def _box(box, dim):
    if box is None or box is False:
        return []
    sides = np.asarray(box, dtype=np.float64).ravel()
    if sides.size == 1 and dim > 1:
        sides = np.full(dim, float(sides[0]))
    if sides.size != dim:
        raise ValueError(f"box: {sides.size} side lengths for points of {dim} coordinates")
    return [float(s) for s in sides]


def _points(X):
    X = np.asarray(X) if not hasattr(X, "toarray") else X
    if getattr(X, "ndim", 2) == 1:
        X = np.asarray(X).reshape(-1, 1)
    return check_array(X, "X", min_rows=0)


def distance_histogram(X, bins=10, range=None, box=None, *, device=None, precision="float", kernel=None, block=0,
                       comm=None):
    """The histogram of the distances of all pairs i < j of the rows of X: (counts, edges), as numpy.histogram.

    bins: a number of equal bins over ``range`` (the last bin closed), or the increasing bin edges.
    range: (low, high); None takes the smallest and largest pair distance (found on the device first)
    as numpy does, and needs no box. box: a periodic box's side lengths (one per coordinate, or one for
    all): distances by the minimum image. Counts are exact (int64).

    comm: an mpi4py communicator to count over its ranks (under mpirun): every rank passes its own rows of
    the points and the same parameters (range or edges given); the ranks share the pair space, and every
    rank gets the counts of all pairs (docs/python.md, "Several ranks"). The same for pair_counts and
    radial_distribution.
    """
    X = _points(X)
    sides = _box(box, X.shape[1])
    if np.ndim(bins) == 1:
        edges = np.asarray(bins, dtype=np.float64)
        if edges.size < 2 or np.any(np.diff(edges) < 0):
            raise ValueError("bins: must increase monotonically, when an array")
        return _histogram(X, "edges", 0, 0.0, 0.0, edges, sides, device, precision, kernel, block, comm)
    if isinstance(bins, str):
        raise ValueError(f"bins: expected a number of bins or an array of edges, got {bins!r}")
    bins = check_int("bins", bins, 1)
    if range is None and comm is not None:
        raise ValueError("range: required over ranks (comm), or give the bin edges")
    if range is None:
        lo, hi = _distance_range(X, sides, device, precision)
    else:
        lo, hi = (check_number("range", v) for v in range)
        if lo > hi:
            raise ValueError(f"range: max must be larger than min, got ({lo}, {hi})")
    if lo == hi:  # numpy widens an empty range
        lo, hi = lo - 0.5, hi + 0.5
    return _histogram(X, "uniform", bins, lo, hi, [], sides, device, precision, kernel, block, comm)


def _distance_range(X, sides, device, precision):
    if X.shape[0] < 2:
        return 0.0, 1.0  # numpy's range for no data
    if sides:
        raise ValueError("range: required with a periodic box (e.g. range=(0, min(box) / 2))")
    lo, _ = row_min(X, device=device, precision=precision)
    hi, _ = row_max(X, device=device, precision=precision)
    return float(lo.min()), float(hi.max())


def _no_pairs_alike(X):
    """X, or for no rows one row of zeros: both have no pairs, so numpy's zero counts come the one way."""
    return X if X.shape[0] > 0 else np.zeros((1, X.shape[1]))


def _histogram(X, kind, bins, lo, hi, edges, sides, device, precision, kernel, block, comm):
    X = _no_pairs_alike(X)
    return _itercl.pair_histogram(X, kind, bins, lo, hi, [float(e) for e in edges], sides, device_specs(device),
                                  check_precision(precision), kernel_json(kernel),
                                  check_int("block", block, 0, INT64_MAX), comm_handle(comm))


def pair_counts(X, radii, box=None, *, device=None, precision="float", kernel=None, block=0, comm=None):
    """counts[k] = the pairs i < j of rows of X with distance <= radii[k] (radii increasing), int64.

    scipy's cKDTree(X).count_neighbors(cKDTree(X), radii) counts ordered pairs and each point with itself:
    it equals 2 * counts + len(X). box: a periodic box, as distance_histogram.
    """
    X = _points(X)
    scalar = np.ndim(radii) == 0
    r = np.atleast_1d(np.asarray(radii, dtype=np.float64))
    counts, _ = _itercl.pair_histogram(_no_pairs_alike(X), "radii", 0, 0.0, 0.0, [float(v) for v in r], _box(box, X.shape[1]),
                                       device_specs(device), check_precision(precision), kernel_json(kernel),
                                       check_int("block", block, 0, INT64_MAX), comm_handle(comm))
    return counts[0] if scalar else counts


def radial_distribution(X, bins=10, range=None, box=None, volume=None, *, device=None, precision="float",
                        kernel=None, block=0, comm=None):
    """The radial distribution function g(r) of the points X: (r, g), r the bins' centres.

    g = each bin's pair count over an ideal gas's at the same density: n (n - 1) / 2 times the shell's
    volume over V. V is the box's volume, or ``volume`` without a box. In a box, g is valid up to half its
    shortest side (the minimum image sees each pair only that far). bins and range as distance_histogram.
    """
    X = _points(X)
    sides = _box(box, X.shape[1])
    if volume is None:
        if not sides:
            raise ValueError("volume: required without a box (the volume the points fill)")
        volume = math.prod(sides)
    volume = check_number("volume", volume)
    if not volume > 0:
        raise ValueError(f"volume: expected a number > 0, got {volume}")
    counts, edges = distance_histogram(X, bins, range, box, device=device, precision=precision, kernel=kernel,
                                       block=block, comm=comm)
    n = X.shape[0] if comm is None else comm.allreduce(X.shape[0])  # over ranks, all ranks' points
    g = _itercl.radial_distribution([int(c) for c in counts], [float(e) for e in edges], n, volume, X.shape[1])
    return (edges[:-1] + edges[1:]) / 2, g
