"""K-Means as scikit-learn's estimator, fitted on an OpenCL device (docs/kmeans.md)."""

import json
import time
import warnings

import numpy as np

from . import _itercl
from ._base import (BaseEstimator, ClusterMixin, TransformerMixin, check_array, check_int, check_is_fitted,
                    call_timings, check_number, check_precision, comm_handle, device_spec, kernel_json, shared_seed)


class KMeans(ClusterMixin, TransformerMixin, BaseEstimator):
    """Lloyd's K-Means with scikit-learn's parameters and semantics, the assignment step on a device.

    Parameters
    ----------
    n_clusters : int, default=8
    init : {"k-means++", "random"}, array of shape (n_clusters, n_features) or callable, default="k-means++"
        "k-means++" is scikit-learn's greedy variant; "random" draws n_clusters distinct samples (by
        weight); a callable is called as ``init(X, n_clusters, random_state)`` and returns the centroids.
    n_init : "auto" or int, default="auto"
        Runs from different initialisations, the lowest inertia wins; "auto": 10 for "random", else 1.
    max_iter : int, default=300
    tol : float, default=1e-4
        Stop when the centroids move by at most tol times the mean per-feature variance of X (summed
        squared over the centroids); also when the labels repeat.
    random_state : None, int or numpy RandomState / Generator
    device : str, dict or None
        The CLI's device specs: "auto", "gpu", "cpu", "P:D" or part of a name; None: $ITERCL_DEVICE, else
        "auto". A dict from itercl.devices() names its device.
    precision : {"float", "double"}, default="float"
        Of the device's arithmetic; the centroid update runs on the host in double.
    kernel : dict or None
        The assignment kernel's variant and tuning, as a config's params.kernel (docs/kmeans.md).
    verbose : int or bool, default=0
        Above 0 (or True), each run's progress printed as scikit-learn prints it ("Initialization complete",
        "Iteration 0, inertia 1234.5.", "Converged at iteration 7: strict convergence."); over ranks, by
        rank 0 only.
    callback : callable or None
        Called after every iteration with a dict (run, runs, iteration, max_iterations, objective: the
        inertia, elapsed_s, and on a run's last step "stopping": why it stopped early); an exception it
        raises stops the fit and propagates. Ctrl-C stops it too.
    comm : mpi4py communicator or None
        Fit over its ranks (under mpirun): every rank calls fit with its own rows of the data, and the
        same parameters (docs/python.md, "Several ranks"). cluster_centers_, inertia_ and n_iter_ are
        the fit of all the rows, on every rank; labels_ holds this rank's rows' labels.

    Attributes
    ----------
    cluster_centers_, labels_, inertia_, n_iter_, n_features_in_ as scikit-learn's; and ``converged_``,
    ``n_relocated_`` (empty clusters moved), ``inertia_trace_`` (each iteration's inertia) and ``kernel_``
    (the kernel's variant and tuning as resolved for the device), ``timings_`` (the last fit's time to
    solution and its phases in milliseconds, as the CLI's results report them).
    """

    def __init__(self, n_clusters=8, *, init="k-means++", n_init="auto", max_iter=300, tol=1e-4,
                 random_state=None, device=None, precision="float", kernel=None, verbose=0, callback=None,
                 comm=None):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.device = device
        self.precision = precision
        self.kernel = kernel
        self.verbose = verbose
        self.callback = callback
        self.comm = comm

    def _check_X(self, X, fitted=True):
        X = check_array(X)
        if fitted and X.shape[1] != self.n_features_in_:
            raise ValueError(f"X: has {X.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input")
        return X

    @staticmethod
    def _check_weight(sample_weight, n_samples):
        if sample_weight is None:
            return None
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.ndim == 0:
            w = np.full(n_samples, float(w))
        if w.ndim != 1 or w.shape[0] != n_samples:
            raise ValueError(f"sample_weight: {w.size} weights for {n_samples} samples")
        return np.ascontiguousarray(w)

    def fit(self, X, y=None, sample_weight=None):
        """Compute the clustering of the rows of X (array of shape (n_samples, n_features))."""
        started = time.perf_counter()
        comm = comm_handle(self.comm)
        X = check_array(X, min_rows=0 if comm is not None else 1)  # over ranks a rank may hold no rows
        w = self._check_weight(sample_weight, X.shape[0])
        n_clusters = check_int("n_clusters", self.n_clusters, 1)
        max_iter = check_int("max_iter", self.max_iter, 1)
        tol = check_number("tol", self.tol, 0)
        state = shared_seed(self.random_state, self.comm)
        if isinstance(self.n_init, str):
            if self.n_init != "auto":
                raise ValueError(f"n_init: expected an integer >= 1 or 'auto', got {self.n_init!r}")
            n_init = 0
        else:
            n_init = check_int("n_init", self.n_init, 1)

        init, centroids = self.init, None
        if callable(init):
            if comm is not None:
                raise ValueError("init: a callable sees only this rank's rows; over ranks pass 'k-means++', "
                                 "'random' or an array of centroids (the same on every rank)")
            centroids = init(X, n_clusters, np.random.RandomState(state))
        elif not isinstance(init, str):
            centroids = init
        elif init not in ("k-means++", "random"):
            raise ValueError(f"init: expected 'k-means++', 'random', an array of centroids or a callable, got {init!r}")
        if centroids is not None:
            centroids = check_array(centroids, "init", dtype=np.float64)
            if centroids.shape != (n_clusters, X.shape[1]):
                raise ValueError(f"init: has shape {centroids.shape}, expected ({n_clusters}, {X.shape[1]}): "
                                 "one row per cluster, one column per feature")
            if n_init > 1:
                warnings.warn("Explicit initial center position passed: performing only one init in "
                              f"{type(self).__name__} instead of n_init={n_init}.", RuntimeWarning, stacklevel=2)
            init, n_init = "given", 1

        verbose = int(self.verbose) if isinstance(self.verbose, bool) else check_int("verbose", self.verbose, 0)
        if self.callback is not None and not callable(self.callback):
            raise ValueError(f"callback: expected a callable or None, got {self.callback!r}")
        prints = verbose > 0 and (self.comm is None or self.comm.Get_rank() == 0)
        r = _itercl.kmeans_fit(X, w, n_clusters, init, centroids, n_init, max_iter, tol, state,
                               device_spec(self.device), check_precision(self.precision), kernel_json(self.kernel),
                               _progress(self.callback, prints), comm)
        self.cluster_centers_ = r["cluster_centers"].astype(X.dtype, copy=False)
        self.labels_ = r["labels"]
        self.inertia_ = float(r["inertia"])
        self.n_iter_ = int(r["n_iter"])
        self.converged_ = bool(r["converged"])
        self.n_relocated_ = int(r["n_relocated"])
        self.inertia_trace_ = r["inertia_trace"]
        self.kernel_ = json.loads(r["kernel"])
        self.n_features_in_ = X.shape[1]
        self.timings_ = call_timings(started, r["phases"])
        return self

    def get_feature_names_out(self, input_features=None):
        """Names of transform's columns, one per cluster: "kmeans0", "kmeans1", ... as scikit-learn's."""
        check_is_fitted(self, "cluster_centers_")
        if input_features is not None and len(input_features) != self.n_features_in_:
            raise ValueError(f"input_features should have length equal to number of features "
                             f"({self.n_features_in_}), got {len(input_features)}")
        prefix = type(self).__name__.lower()
        return np.asarray([f"{prefix}{i}" for i in range(self.cluster_centers_.shape[0])], dtype=object)

    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit, then return labels_."""
        return self.fit(X, sample_weight=sample_weight).labels_

    def predict(self, X):
        """The index of each sample's nearest cluster centre, found on the device."""
        check_is_fitted(self, "cluster_centers_")
        X = self._check_X(X)
        return _itercl.kmeans_assign(X, np.ascontiguousarray(self.cluster_centers_, dtype=np.float64),
                                     device_spec(self.device), check_precision(self.precision),
                                     kernel_json(self.kernel))

    def transform(self, X):
        """Euclidean distances of each sample to every cluster centre, shape (n_samples, n_clusters)."""
        check_is_fitted(self, "cluster_centers_")
        X = self._check_X(X)
        return _distances(X, self.cluster_centers_).astype(X.dtype, copy=False)

    def fit_transform(self, X, y=None, sample_weight=None):
        return self.fit(X, sample_weight=sample_weight).transform(X)

    def score(self, X, y=None, sample_weight=None):
        """Minus the inertia of X against the fitted centres (higher is better, as scikit-learn's)."""
        check_is_fitted(self, "cluster_centers_")
        X = self._check_X(X)
        w = self._check_weight(sample_weight, X.shape[0])
        labels = self.predict(X)
        diff = X.astype(np.float64) - self.cluster_centers_.astype(np.float64)[labels]
        squared = np.einsum("ij,ij->i", diff, diff)
        return -float(squared.sum() if w is None else squared @ w)

    def _more_tags(self):
        return {"_xfail_checks": {"check_sample_weights_invariance":
                                  "zero sample_weight is not equivalent to removing samples"}}


def _progress(callback, prints):
    """The library's progress callback: scikit-learn's verbose lines when `prints`, then the caller's."""
    if not prints:
        return callback

    def progress(event):
        i = event["iteration"] - 1  # scikit-learn counts from 0
        if i == 0:
            print("Initialization complete")
        print(f"Iteration {i}, inertia {event['objective']}.")
        if "stopping" in event:
            print(f"Converged at iteration {i}: {event['stopping']}.")
        if callback is not None:
            callback(event)

    return progress


def _distances(X, C):
    X = X.astype(np.float64, copy=False)
    C = C.astype(np.float64, copy=False)
    d2 = (X * X).sum(1)[:, None] - 2 * X @ C.T + (C * C).sum(1)[None, :]
    return np.sqrt(np.maximum(d2, 0))

