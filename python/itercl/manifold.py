"""Metric multidimensional scaling by SMACOF on the device (docs/smacof.md): scikit-learn 1.7's MDS and
smacof, with its stress and stopping rule, plus weights."""

import json
import time

import numpy as np

from . import _itercl
from ._base import (BaseEstimator, call_timings, check_array, check_int, check_number, check_precision, check_string,
                    comm_handle, device_spec, kernel_json, seed, shared_seed)

_INITS = ("random", "classical", "classical_mds")


def _fit(data, vectors, metric, weights, n_components, max_iter, eps, init, n_init, random_state, device,
         precision, kernel, callback=None, comm=None):
    n_components = check_int("n_components", n_components, 1)
    max_iter = check_int("max_iter", max_iter, 1)
    eps = check_number("eps", eps, 0)
    n_init = check_int("n_init", n_init, 1)
    handle = comm_handle(comm)
    n = data.shape[0] if comm is None else comm.allreduce(data.shape[0])  # over ranks, all ranks' points
    embedding = None
    if init is None:
        init = "random"
    if isinstance(init, str):
        check_string("init", init, _INITS)
        init = "classical" if init == "classical_mds" else init
    else:
        embedding = check_array(init, "init", dtype=np.float64)
        if embedding.shape != (n, n_components):
            raise ValueError(f"init: has shape {embedding.shape}, expected ({n}, {n_components}): one row per "
                             "point, one column per component")
        init, n_init = "given", 1
    if weights is not None:
        weights = check_array(weights, "weights", dtype=np.float64)
        if weights.shape != (n, n):
            raise ValueError(f"weights: has shape {weights.shape}, expected ({n}, {n}): one per pair")
    return _itercl.smacof_fit(data, vectors, metric, weights, n_components, max_iter, eps, init, embedding, n_init,
                              shared_seed(random_state, comm), device_spec(device), check_precision(precision),
                              kernel_json(kernel), callback, handle)


def _check_metric(metric):
    if metric is not True and metric != 1:
        raise ValueError(f"metric: only metric MDS is implemented (metric=True), got {metric!r}")


def _check_normalized(normalized_stress):
    if normalized_stress not in ("auto", True, False):
        raise ValueError(f"normalized_stress: expected 'auto', True or False, got {normalized_stress!r}")
    return normalized_stress is True  # "auto" is False for metric MDS, as scikit-learn's


def smacof(dissimilarities, *, metric=True, n_components=2, init=None, n_init=1, n_jobs=None, max_iter=300,
           verbose=0, eps=1e-6, random_state=None, return_n_iter=False, normalized_stress="auto", weights=None,
           device=None, precision="float", kernel=None, callback=None):
    """scikit-learn's smacof on the device: the embedding of N points from their N x N dissimilarities.

    Returns (X, stress) or, with return_n_iter, (X, stress, n_iter). dissimilarities: symmetric (up to
    scikit-learn's tolerance, then averaged), finite, non-negative, zero diagonal. init: an (N,
    n_components) start (n_init is then 1), or "random" (uniform in [0, 1), None's meaning) or
    "classical" (Torgerson's scaling). stress: raw, 1/2 sum_{i != j} w_ij (d_ij - delta_ij)^2, or
    Stress-1 with normalized_stress=True. Stopping rule, scikit-learn 1.7's: from the second
    iteration, (stress_old - stress) / (1/2 sum w_ij d_ij^2) < eps; eps=0 runs max_iter iterations.
    weights: N x N, symmetric, non-negative (0 marks a missing dissimilarity), connecting all points.
    n_jobs and verbose are accepted for scikit-learn's sake and ignored. Only metric=True is implemented.
    callback: called after every iteration with a dict (run, runs, iteration, objective: the raw
    stress, ...); an exception it raises stops the fit and propagates; Ctrl-C stops it too.
    """
    _check_metric(metric)
    normalized = _check_normalized(normalized_stress)
    D = check_array(dissimilarities, "dissimilarities", min_rows=2)
    if D.shape[0] != D.shape[1]:
        raise ValueError(f"dissimilarities: expected a square matrix, got shape {D.shape}")
    r = _fit(D, False, "euclidean", weights, n_components, max_iter, eps, init, n_init, random_state, device,
             precision, kernel, callback)
    stress = r["normalized_stress"] if normalized else r["stress"]
    if return_n_iter:
        return r["embedding"], stress, r["n_iter"]
    return r["embedding"], stress


class MDS(BaseEstimator):
    """Metric multidimensional scaling (SMACOF) with scikit-learn 1.7's parameters, on a device.

    Parameters
    ----------
    n_components : int, default=2
    metric : True
        Only metric MDS is implemented.
    n_init : int, default=1
        Runs from different random starts; the lowest final stress wins.
    max_iter : int, default=300
    eps : float, default=1e-6
        scikit-learn 1.7's rule: stop when (stress_old - stress) / (1/2 sum w_ij d_ij^2) < eps.
    random_state : None, int or numpy RandomState / Generator
    dissimilarity : {"euclidean", "precomputed"}, default="euclidean"
        "euclidean" computes the dissimilarities from the rows of X on the device (also "sqeuclidean",
        "cityblock"); "precomputed" takes X as the N x N dissimilarities.
    normalized_stress : {"auto", True, False}, default="auto"
        stress_ as Stress-1 (True) or raw ("auto" and False, as scikit-learn's for metric MDS).
    init : {"random", "classical"}, default="random"
        The start unless fit is given one: uniform in [0, 1) or Torgerson's classical scaling.
    device, precision, kernel
        The device spec, its arithmetic ("float" or "double") and the kernel's variant and tuning
        (a config's params.kernel, docs/smacof.md).
    n_jobs, verbose
        Accepted for scikit-learn's sake and ignored.
    comm : mpi4py communicator or None
        Fit over its ranks (under mpirun), from vectors: every rank calls fit with its own rows of X and
        the same parameters; each builds its block of rows of the dissimilarities on its device
        (docs/python.md, "Several ranks"). stress_ and n_iter_ are the fit of all the points, on every
        rank; embedding_ holds this rank's rows. Weights are refused, as is a classical start from a
        metric other than euclidean.

    Attributes
    ----------
    embedding_, stress_, n_iter_, n_features_in_, dissimilarity_matrix_ as scikit-learn's (the last is
    computed when first read, for dissimilarity="euclidean", on one process); converged_, stress_trace_,
    kernel_.
    """

    def __init__(self, n_components=2, *, metric=True, n_init=1, max_iter=300, verbose=0, eps=1e-6, n_jobs=None,
                 random_state=None, dissimilarity="euclidean", normalized_stress="auto", init="random",
                 device=None, precision="float", kernel=None, comm=None):
        self.n_components = n_components
        self.metric = metric
        self.n_init = n_init
        self.max_iter = max_iter
        self.verbose = verbose
        self.eps = eps
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.dissimilarity = dissimilarity
        self.normalized_stress = normalized_stress
        self.init = init
        self.device = device
        self.precision = precision
        self.kernel = kernel
        self.comm = comm

    def fit(self, X, y=None, init=None, weights=None):
        """Embed X: vectors (n_samples, n_features), or dissimilarities (n_samples, n_samples) if precomputed.

        init: an (n_samples, n_components) start, overriding the init parameter. weights: n_samples x
        n_samples pair weights (0: a missing dissimilarity).
        """
        self.fit_transform(X, init=init, weights=weights)
        return self

    def fit_transform(self, X, y=None, init=None, weights=None):
        """Fit, then return embedding_."""
        started = time.perf_counter()
        _check_metric(self.metric)
        normalized = _check_normalized(self.normalized_stress)
        dissimilarity = check_string("dissimilarity", self.dissimilarity,
                                     ("euclidean", "sqeuclidean", "cityblock", "precomputed"))
        ranks = self.comm is not None
        if ranks and dissimilarity == "precomputed":
            raise ValueError("dissimilarity: over ranks (comm) each rank passes its rows of the vectors: "
                             "'euclidean', 'sqeuclidean' or 'cityblock', not 'precomputed'")
        if ranks and weights is not None:
            raise ValueError("weights: weighted SMACOF needs all the weights in one place; over ranks (comm) it is "
                             "refused (fit on one process)")
        X = check_array(X, min_rows=0 if ranks else 2)  # over ranks a rank may hold no rows
        if dissimilarity == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(f"X: dissimilarity='precomputed' needs a square matrix, got shape {X.shape}")
        vectors = dissimilarity != "precomputed"
        r = _fit(X, vectors, dissimilarity if vectors else "euclidean", weights, self.n_components, self.max_iter,
                 self.eps, self.init if init is None else init, self.n_init, self.random_state, self.device,
                 self.precision, self.kernel, comm=self.comm)
        self.embedding_ = r["embedding"]
        self.stress_ = float(r["normalized_stress"] if normalized else r["stress"])
        self.n_iter_ = int(r["n_iter"])
        self.converged_ = bool(r["converged"])
        self.stress_trace_ = r["stress_trace"]
        self.kernel_ = json.loads(r["kernel"])
        self.n_features_in_ = X.shape[1]
        self._X = X if vectors and not ranks else None
        self._dissimilarities = None if vectors else X
        self.timings_ = call_timings(started, r["phases"])
        return self.embedding_

    @property
    def dissimilarity_matrix_(self):
        if getattr(self, "_dissimilarities", None) is None:
            if getattr(self, "_X", None) is None:
                raise AttributeError("dissimilarity_matrix_: fit first (on one process: over ranks no rank "
                                     "holds the whole matrix)")
            from .pairwise import pairwise_distances

            self._dissimilarities = pairwise_distances(self._X, metric=self.dissimilarity, device=self.device,
                                                       precision=self.precision)
        return self._dissimilarities

    def _more_tags(self):
        return {"pairwise": self.dissimilarity == "precomputed"}


class SmacofDissimilarities:
    """Dissimilarities kept on the device for many SMACOF runs: several starts of your own, the n_init
    random (or classical) starts, or one Guttman transform at a time in a loop of your own.

    X: the N x N dissimilarities (dissimilarity="precomputed", the default, as smacof() takes them), or
    N vectors whose dissimilarities ("euclidean", "sqeuclidean", "cityblock") are computed on the
    device, the vectors read in place. The other parameters are smacof()'s; init ("random" or
    "classical"), n_init and random_state are the starts of smacof() called without one.
    """

    def __init__(self, X, *, dissimilarity="precomputed", n_components=2, max_iter=300, eps=1e-6, init="random",
                 n_init=1, random_state=None, weights=None, device=None, precision="float", kernel=None):
        dissimilarity = check_string("dissimilarity", dissimilarity,
                                     ("euclidean", "sqeuclidean", "cityblock", "precomputed"))
        vectors = dissimilarity != "precomputed"
        name = "X" if vectors else "dissimilarities"
        X = check_array(X, name, min_rows=2)
        if not vectors and X.shape[0] != X.shape[1]:
            raise ValueError(f"dissimilarities: expected a square matrix, got shape {X.shape}")
        self._n, self._components = X.shape[0], check_int("n_components", n_components, 1)
        check_string("init", init, _INITS)
        if weights is not None:
            weights = check_array(weights, "weights", dtype=np.float64)
            if weights.shape != (self._n, self._n):
                raise ValueError(f"weights: has shape {weights.shape}, expected ({self._n}, {self._n}): one per pair")
        self._resident = _itercl.SmacofDissimilarities(
            X, vectors, dissimilarity if vectors else "euclidean", weights, self._components,
            check_int("max_iter", max_iter, 1), check_number("eps", eps, 0),
            "classical" if init == "classical_mds" else init, check_int("n_init", n_init, 1), seed(random_state),
            device_spec(device), check_precision(precision), kernel_json(kernel))

    @property
    def n_points(self):
        return self._n

    def smacof(self, init=None, *, return_n_iter=False, normalized_stress="auto", callback=None):
        """As itercl.smacof on these dissimilarities: (X, stress) or (X, stress, n_iter). init: an
        (N, n_components) start, or None for the constructor's starts (n_init of them, the lowest final
        stress wins). Only the start crosses to the device."""
        normalized = _check_normalized(normalized_stress)
        r = self._resident.fit(None if init is None else self._start(init), callback)
        stress = r["normalized_stress"] if normalized else r["stress"]
        return (r["embedding"], stress, r["n_iter"]) if return_n_iter else (r["embedding"], stress)

    def start(self, init):
        """Sets X_0, an (N, n_components) array, for step(); returns self."""
        self._resident.start(self._start(init))
        return self

    def step(self):
        """One Guttman transform of the current embedding: returns (stress, squared_distances), its raw
        stress and 1/2 sum w_ij d_ij^2 (scikit-learn 1.7's rule, (stress_old - stress) /
        squared_distances < eps, is yours to apply)."""
        return self._resident.step()

    def embedding(self):
        """The last step's embedding, (N, n_components)."""
        return self._resident.embedding()

    def _start(self, init):
        x0 = check_array(init, "init", dtype=np.float64)
        if x0.shape != (self._n, self._components):
            raise ValueError(f"init: has shape {x0.shape}, expected ({self._n}, {self._components}): one row per "
                             "point, one column per component")
        return x0
