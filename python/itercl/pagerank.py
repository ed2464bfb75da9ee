"""PageRank as networkx's function, by power iteration on the device (docs/pagerank.md)."""

import numbers
import time

import numpy as np

from . import _itercl
from ._base import (call_timings, check_int, check_number, check_precision, check_string, comm_handle, device_spec,
                    kernel_json)

try:
    from networkx import PowerIterationFailedConvergence as _NetworkxConvergence
except ImportError:  # networkx is optional
    _NetworkxConvergence = RuntimeError


class PowerIterationFailedConvergence(_NetworkxConvergence):
    """PageRank did not converge within max_iter (networkx's exception, when networkx is installed).

    ``ranks`` holds the last iterate, in the form a converged call returns.
    """

    def __init__(self, num_iterations, ranks=None):
        self.ranks = ranks
        if _NetworkxConvergence is RuntimeError:
            super().__init__(f"power iteration failed to converge within {num_iterations} iterations")
        else:
            super().__init__(num_iterations)


_FORMATS = ("auto", *_itercl.pagerank_formats())  # the library's list: no copy here to drift


def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1e-06, nstart=None, dangling=None,
             format="auto", *, weight="weight", n_nodes=None, device=None, precision="float", kernel=None,
             callback=None, timings=False, comm=None):
    """The PageRank of the nodes of G, with networkx's parameters, semantics and stopping rule.

    G is one of
    - a networkx graph: returns a dict {node: rank}, as networkx.pagerank. An undirected graph links
      both ways; a multigraph's parallel edges each count, their weights adding up.
    - a SciPy sparse matrix or a 2-D NumPy array, the adjacency matrix with row = source (as
      networkx.to_scipy_sparse_array gives): returns a NumPy array by node index. An entry is its link's
      weight (0: no link).
    - a pair (src, dst) of integer arrays, edge e linking src[e] -> dst[e], nodes 0 .. n_nodes - 1
      (n_nodes: default max id + 1), or a triple (src, dst, weight) with a weight per edge: returns a
      NumPy array.

    personalization, dangling: where a jump lands and where the rank of nodes without out-links goes,
    a dict keyed by node (missing nodes 0) or, for the array forms, an array by node; normalised.
    nstart: the starting ranks, in the same forms (normalised, as networkx does); None: uniform.
    tol: stop when the L1 change falls below n_nodes * tol; tol=0 runs max_iter iterations. Not
    converging raises PowerIterationFailedConvergence (networkx's) unless tol is 0.
    format: the sparse format (csr_scalar, csr_vector, csr_adaptive, ell, hybrid, bsr; auto: the fastest measured
    for the device); kernel: its tuning, as a config's params.kernel. precision: of the device's
    vectors ("float", the CLI's default, or "double").

    weight: as networkx's, the edge attribute holding a networkx graph's weights (an edge without it
    weighs 1); weight=None ignores the attributes, and the matrix's values or the triple's weights, so
    that every link weighs 1. A link's share of its source's rank is its weight over the source's total
    out-weight; a weight of 0 is no link (a node whose out-weight is 0 is dangling); weights must be
    finite and >= 0. Links that all weigh the same run as unweighted ones, without a value array.

    callback: called after every iteration with a dict (iteration, max_iterations, objective: the L1
    change, elapsed_s); an exception it raises stops the run and propagates. Ctrl-C stops it too
    (KeyboardInterrupt). PageRankGraph keeps the graph on the device for many runs.

    timings: if True, returns (ranks, timings), timings the call's time to solution and its phases in
    milliseconds ({"time_to_solution_ms": ..., "phases_ms": {"graph_build": ..., ...}}), as the CLI's
    results report them.

    comm: an mpi4py communicator to run over its ranks (under mpirun): every rank passes its own part of
    the edges as (src, dst), every edge on one rank, and the same parameters (rank 0's personalization,
    dangling and nstart count); n_nodes defaults to the largest id on any rank + 1. The edges go to the
    rank owning their destination's rows, and every rank gets all the ranks (docs/python.md, "Several ranks").
    """
    started = time.perf_counter()
    alpha, max_iter, tol, kernel = _check(alpha, max_iter, tol, format, kernel)
    handle = comm_handle(comm)
    if handle is not None and not (isinstance(G, tuple) and len(G) in (2, 3)):
        raise ValueError("G: over ranks (comm) each rank passes its part of the edges as (src, dst) or "
                         "(src, dst, weight)")
    nodes, n, src, dst, w = _edges(G, n_nodes, weight)
    if handle is not None and n_nodes is None:
        from mpi4py import MPI  # comm is mpi4py's

        n = comm.allreduce(n, op=MPI.MAX)
    p = _node_vector("personalization", personalization, nodes, n)
    d = _node_vector("dangling", dangling, nodes, n)
    x0 = _node_vector("nstart", nstart, nodes, n)
    if n == 0:
        empty = {} if nodes is not None else np.zeros(0)
        return (empty, call_timings(started, {})) if timings else empty
    r = _itercl.pagerank(n, src, dst, w, alpha, p, d, max_iter, tol, device_spec(device), check_precision(precision),
                         kernel_json(kernel), x0, callback, handle)
    ranks = _shaped(r, nodes, max_iter, tol)
    return (ranks, call_timings(started, r["phases"])) if timings else ranks


class PageRankGraph:
    """A graph kept on the device for many PageRank runs: personalized PageRank for many personalization
    vectors, restarts from other starts, or one step at a time in a loop of your own.

    G, alpha, max_iter, tol, dangling, format and the keywords are pagerank()'s; the graph's format is
    built and uploaded here, once. Each pagerank() call then sends only its two vectors.
    """

    def __init__(self, G, alpha=0.85, max_iter=100, tol=1e-06, dangling=None, format="auto", *, weight="weight",
                 n_nodes=None, device=None, precision="float", kernel=None):
        alpha, max_iter, tol, kernel = _check(alpha, max_iter, tol, format, kernel)
        self._nodes, self._n, src, dst, w = _edges(G, n_nodes, weight)
        self._max_iter, self._tol = max_iter, tol
        d = _node_vector("dangling", dangling, self._nodes, self._n)
        self._graph = _itercl.PageRankGraph(self._n, src, dst, w, alpha, d, max_iter, tol, device_spec(device),
                                            check_precision(precision), kernel_json(kernel))

    @property
    def n_nodes(self):
        return self._n

    def pagerank(self, personalization=None, nstart=None, *, callback=None):
        """The ranks for this personalization and start, as itercl.pagerank returns them."""
        p = _node_vector("personalization", personalization, self._nodes, self._n)
        x0 = _node_vector("nstart", nstart, self._nodes, self._n)
        if self._n == 0:
            return {} if self._nodes is not None else np.zeros(0)
        return _shaped(self._graph.run(p, x0, callback), self._nodes, self._max_iter, self._tol)

    def start(self, personalization=None, nstart=None):
        """Sets the start and the personalization for step(); returns self."""
        p = _node_vector("personalization", personalization, self._nodes, self._n)
        self._graph.start(p, _node_vector("nstart", nstart, self._nodes, self._n))
        return self

    def step(self):
        """One power iteration from the current ranks; returns its L1 change ||x_new - x||_1 (the
        stopping rule, L1 change < n_nodes * tol, is yours to apply)."""
        return self._graph.step()

    def ranks(self):
        """The current ranks, as pagerank() returns them."""
        ranks = self._graph.ranks()
        return dict(zip(self._nodes, ranks.tolist())) if self._nodes is not None else ranks


def _check(alpha, max_iter, tol, format, kernel):
    alpha = check_number("alpha", alpha)
    max_iter = check_int("max_iter", max_iter, 1)
    tol = check_number("tol", tol, 0)
    fmt = check_string("format", format, _FORMATS)
    kernel = dict(kernel or {})
    if fmt != "auto":
        kernel["format"] = fmt
    return alpha, max_iter, tol, kernel


def _shaped(r, nodes, max_iter, tol):
    """The ranks as networkx returns them (a dict for a networkx graph), or its exception."""
    ranks = r["ranks"]
    result = dict(zip(nodes, ranks.tolist())) if nodes is not None else ranks
    if not r["converged"] and tol > 0:
        raise PowerIterationFailedConvergence(max_iter, result)
    return result


def _weights(values, what):
    """The weights as a float64 array, checked as the library checks them, or None when every one is 1."""
    try:
        w = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"G: {what} must be numbers") from None
    bad = ~np.isfinite(w) | (w < 0)
    if np.any(bad):
        raise ValueError(f"G: {what} must be finite and >= 0, found {w[np.argmax(bad)]!r}")
    return None if np.all(w == 1) else np.ascontiguousarray(w)


def _edges(G, n_nodes, weight):
    """(nodes or None, n, src, dst, weights or None) of the graph, whatever form it came in."""
    if hasattr(G, "adj") and hasattr(G, "is_directed"):  # a networkx graph
        nodes = list(G)
        index = {node: i for i, node in enumerate(nodes)}
        src, dst, w = [], [], []
        for u, v, data in G.edges(data=True):
            # networkx's to_scipy_sparse_array: a missing attribute weighs 1, and parallel edges add up.
            x = 1 if weight is None else data.get(weight, 1)
            if not isinstance(x, numbers.Real):
                raise ValueError(f"G: edge ({u!r}, {v!r}) has {weight} {x!r}, expected a number")
            src.append(index[u])
            dst.append(index[v])
            w.append(x)
            if not G.is_directed() and u != v:
                src.append(index[v])
                dst.append(index[u])
                w.append(x)
        return (nodes, len(nodes), np.asarray(src, dtype=np.int32), np.asarray(dst, dtype=np.int32),
                _weights(w, f"the edges' {weight!r} attributes"))

    if isinstance(G, tuple) and len(G) in (2, 3):
        src = np.asarray(G[0])
        dst = np.asarray(G[1])
        for name, a in (("src", src), ("dst", dst)):
            if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
                raise ValueError(f"G: {name} must be a 1-D array of integer node ids")
            if a.size and a.min() < 0:
                raise ValueError(f"G: {name} holds a negative node id, {a.min()}")
        if src.shape != dst.shape:
            raise ValueError(f"G: {src.size} sources but {dst.size} destinations")
        w = None
        if len(G) == 3 and weight is not None:
            w = np.asarray(G[2])
            if w.shape != src.shape:
                raise ValueError(f"G: {w.size} weights for {src.size} edges")
            w = _weights(w, "weights")
        largest = int(max(src.max(), dst.max())) + 1 if src.size else 0
        n = largest if n_nodes is None else check_int("n_nodes", n_nodes, 0)
        if n < largest:
            raise ValueError(f"n_nodes: {n}, but an edge names node {largest - 1}")
        if n >= 2**31:
            raise ValueError(f"n_nodes: {n} is too many (the kernels index with 32-bit ints)")
        # int32 arrays pass as they are: the module reads them in place
        return None, n, src.astype(np.int32, copy=False), dst.astype(np.int32, copy=False), w
    if isinstance(G, tuple):
        raise TypeError(f"G: a tuple must be (src, dst) or (src, dst, weight), got {len(G)} items")

    if hasattr(G, "tocoo"):  # SciPy sparse
        A = G.tocoo()
        rows, cols, values = A.row, A.col, A.data
    else:
        A = np.asarray(G)
        if A.ndim != 2:
            raise TypeError("G: expected a networkx graph, a SciPy sparse or NumPy adjacency matrix, or (src, dst)")
        rows, cols = np.nonzero(A)
        values = A[rows, cols]
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"G: the adjacency matrix must be square, got shape {A.shape}")
    # A sparse matrix's stored zeros are no links, as for networkx; its repeated entries add up.
    w = _weights(values, "the adjacency matrix's entries")
    if weight is None:
        keep = np.asarray(values) != 0
        rows, cols, w = rows[keep], cols[keep], None
    return None, A.shape[0], rows.astype(np.int32), cols.astype(np.int32), w


def _node_vector(name, value, nodes, n):
    if value is None:
        return None
    if isinstance(value, dict):
        if nodes is None:
            index = {i: i for i in range(n)}
        else:
            index = {node: i for i, node in enumerate(nodes)}
        v = np.zeros(n)
        for node, x in value.items():
            if node not in index:
                raise ValueError(f"{name}: {node!r} is not a node of G")
            if not isinstance(x, numbers.Real):
                raise ValueError(f"{name}: the value of {node!r} is {x!r}, expected a number")
            v[index[node]] = x
        return v
    v = np.asarray(value, dtype=np.float64)
    if v.ndim != 1 or v.size != n:
        raise ValueError(f"{name}: expected {n} values, one per node, got shape {v.shape}")
    return np.ascontiguousarray(v)
