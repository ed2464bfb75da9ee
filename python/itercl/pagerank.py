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
      both ways; a multigraph's parallel edges each count.
    - a SciPy sparse matrix or a 2-D NumPy array, the adjacency matrix with row = source (as
      networkx.to_scipy_sparse_array gives): returns a NumPy array by node index. An entry k (a positive
      integer) is k parallel links.
    - a pair (src, dst) of integer arrays, edge e linking src[e] -> dst[e], nodes 0 .. n_nodes - 1
      (n_nodes: default max id + 1): returns a NumPy array.

    personalization, dangling: where a jump lands and where the rank of nodes without out-links goes,
    a dict keyed by node (missing nodes 0) or, for the array forms, an array by node; normalised.
    nstart: the starting ranks, in the same forms (normalised, as networkx does); None: uniform.
    tol: stop when the L1 change falls below n_nodes * tol; tol=0 runs max_iter iterations. Not
    converging raises PowerIterationFailedConvergence (networkx's) unless tol is 0.
    format: the sparse format (csr_scalar, csr_vector, csr_adaptive, ell, hybrid, bsr; auto: the fastest measured
    for the device); kernel: its tuning, as a config's params.kernel. precision: of the device's
    vectors ("float", the CLI's default, or "double").

    Links are unweighted, as the CLI reads them. weight: as networkx's, the edge attribute holding a
    networkx graph's weights; an edge whose weight is not 1 is an error rather than silently ignored.
    weight=None ignores the attributes (every link weighs 1, as in networkx).

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
    if handle is not None and not (isinstance(G, tuple) and len(G) == 2):
        raise ValueError("G: over ranks (comm) each rank passes its part of the edges as a pair (src, dst)")
    nodes, n, src, dst = _edges(G, n_nodes, weight)
    if handle is not None and n_nodes is None:
        from mpi4py import MPI  # comm is mpi4py's

        n = comm.allreduce(n, op=MPI.MAX)
    p = _node_vector("personalization", personalization, nodes, n)
    d = _node_vector("dangling", dangling, nodes, n)
    x0 = _node_vector("nstart", nstart, nodes, n)
    if n == 0:
        empty = {} if nodes is not None else np.zeros(0)
        return (empty, call_timings(started, {})) if timings else empty
    r = _itercl.pagerank(n, src, dst, alpha, p, d, max_iter, tol, device_spec(device), check_precision(precision),
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
        self._nodes, self._n, src, dst = _edges(G, n_nodes, weight)
        self._max_iter, self._tol = max_iter, tol
        d = _node_vector("dangling", dangling, self._nodes, self._n)
        self._graph = _itercl.PageRankGraph(self._n, src, dst, alpha, d, max_iter, tol, device_spec(device),
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


def _edges(G, n_nodes, weight):
    """(nodes or None, n, src, dst) of the graph, whatever form it came in."""
    if hasattr(G, "adj") and hasattr(G, "is_directed"):  # a networkx graph
        nodes = list(G)
        index = {node: i for i, node in enumerate(nodes)}
        src, dst = [], []
        for u, v, data in G.edges(data=True):
            w = 1 if weight is None else data.get(weight, 1)
            if w != 1:
                raise ValueError(f"G: edge ({u!r}, {v!r}) has {weight} {w!r}; links are unweighted "
                                 "(weight=None ignores the attribute)")
            src.append(index[u])
            dst.append(index[v])
            if not G.is_directed() and u != v:
                src.append(index[v])
                dst.append(index[u])
        return nodes, len(nodes), np.asarray(src, dtype=np.int32), np.asarray(dst, dtype=np.int32)

    if isinstance(G, tuple) and len(G) == 2:
        src = np.asarray(G[0])
        dst = np.asarray(G[1])
        for name, a in (("src", src), ("dst", dst)):
            if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
                raise ValueError(f"G: {name} must be a 1-D array of integer node ids")
            if a.size and a.min() < 0:
                raise ValueError(f"G: {name} holds a negative node id, {a.min()}")
        if src.shape != dst.shape:
            raise ValueError(f"G: {src.size} sources but {dst.size} destinations")
        largest = int(max(src.max(), dst.max())) + 1 if src.size else 0
        n = largest if n_nodes is None else check_int("n_nodes", n_nodes, 0)
        if n < largest:
            raise ValueError(f"n_nodes: {n}, but an edge names node {largest - 1}")
        if n >= 2**31:
            raise ValueError(f"n_nodes: {n} is too many (the kernels index with 32-bit ints)")
        # int32 arrays pass as they are: the module reads them in place
        return None, n, src.astype(np.int32, copy=False), dst.astype(np.int32, copy=False)

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
    values = np.asarray(values, dtype=np.float64)
    keep = values != 0
    rows, cols, values = rows[keep], cols[keep], values[keep]
    if np.any(values < 0) or np.any(values != np.round(values)):
        raise ValueError("G: adjacency entries must be counts of links (positive integers); links are unweighted")
    repeats = values.astype(np.int64)
    return None, A.shape[0], np.repeat(rows, repeats).astype(np.int32), np.repeat(cols, repeats).astype(np.int32)


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
