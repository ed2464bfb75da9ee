"""Property tests of the Python API (Hypothesis) against SciPy, NumPy and scikit-learn: random shapes
(empty and single rows included), magnitudes from 1e-35 to 1e35, integer-valued data, Fortran-ordered
and strided arrays, both precisions. A fixed seed and a fixed budget (derandomize, max_examples) make
every CI run try the same examples, in well under a minute on two cores."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist, pdist
from sklearn.cluster import KMeans as SkKMeans

import itercl

CASES = settings(max_examples=30, derandomize=True, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
METRICS = ["euclidean", "sqeuclidean", "cityblock", "chebyshev", "cosine"]
FLOAT_MAX = float(np.finfo(np.float32).max)


@st.composite
def arrays(draw, min_rows=0, max_rows=9, integers=None):
    """(X, scale): rows x (1..3) values times 10^e, e in [-35, 35] (scale 1 for integer data), laid out
    C-ordered, Fortran-ordered, or as a strided view of a larger array."""
    rows = draw(st.integers(min_rows, max_rows))
    cols = draw(st.integers(1, 3))
    integers = draw(st.booleans()) if integers is None else integers
    seed = draw(st.integers(0, 2**32 - 1))
    g = np.random.default_rng(seed)
    if integers:
        X, scale = g.integers(-40, 41, size=(rows, cols)).astype(np.float64), 1.0
    else:
        scale = 10.0 ** draw(st.integers(-35, 35))
        X = g.normal(size=(rows, cols)) * scale
    layout = draw(st.sampled_from(["C", "F", "strided"]))
    if layout == "F":
        X = np.asfortranarray(X)
    elif layout == "strided":
        wide = np.zeros((2 * rows, 2 * cols))
        wide[::2, ::2] = X
        X = wide[::2, ::2]
    return X, scale


def spread(X):
    return float(np.abs(X - X.mean(axis=0)).max()) if X.size else 0.0


def refused_rightly(error, X, precision, metric="euclidean"):
    """An error is right only for magnitudes the precision cannot hold: tiny (below sqrt(least normal / eps),
    with a margin) or squares beyond its largest value."""
    message = str(error)
    if precision == "float":
        least, most = 1e-15, np.sqrt(FLOAT_MAX) / 8
    else:
        least, most = 1e-145, 1e150
    size = np.abs(X).max(axis=1).min() if metric == "cosine" and X.size else spread(X)
    if "power of two" in message:
        return 0 < size < least
    if "overflow" in message:
        return np.abs(X).max() > most
    return False


@CASES
@given(data=arrays(), metric=st.sampled_from(METRICS), precision=st.sampled_from(["float", "double"]))
def test_pairwise_distances_as_scipy(data, metric, precision, fp64):
    X, _ = data
    if precision == "double" and not fp64:
        return
    if len(X) == 0:
        with pytest.raises(ValueError):
            itercl.pairwise_distances(X, metric=metric, precision=precision)
        return
    if metric == "cosine" and (np.abs(X).sum(axis=1) == 0).any():
        with pytest.raises(ValueError, match="all zeros"):
            itercl.pairwise_distances(X, metric=metric, precision=precision)
        return
    try:
        D = itercl.pairwise_distances(X, metric=metric, precision=precision)
    except ValueError as e:
        assert refused_rightly(e, X, precision, metric), e
        return
    ref = cdist(X, X, metric)
    assert D.dtype == (np.float32 if precision == "float" else np.float64)
    eps = np.finfo(np.float32 if precision == "float" else np.float64).eps
    if metric == "cosine":
        np.testing.assert_allclose(D, ref, atol=64 * eps, rtol=0)
        return
    scale = ref.max() if ref.size else 0
    np.testing.assert_allclose(D, ref, rtol=16 * X.shape[1] * eps, atol=16 * X.shape[1] * eps * scale)


@CASES
@given(data=arrays(integers=True), precision=st.sampled_from(["float", "double"]))
def test_integer_points_give_scipys_distances_exactly(data, precision, fp64):
    X, _ = data
    if precision == "double" and not fp64 or len(X) < 2:
        return
    D = itercl.pairwise_distances(X, precision=precision)
    dtype = np.float32 if precision == "float" else np.float64
    np.testing.assert_array_equal(D, cdist(X, X).astype(dtype))


@CASES
@given(data=arrays(max_rows=12, integers=True), precision=st.sampled_from(["float", "double"]),
       bins=st.sampled_from([[0, 3, 5, 10, 40, 200], [0, 1, 2, 50, 150]]))
def test_histograms_of_integer_points_are_numpys(data, precision, bins, fp64):
    X, _ = data
    if precision == "double" and not fp64:
        return
    counts, edges = itercl.distance_histogram(X, bins=bins, precision=precision)
    ref = np.histogram(pdist(X), bins=bins)[0]
    np.testing.assert_array_equal(counts, ref)
    np.testing.assert_array_equal(edges, bins)
    radii = [1.0, 5.0, 13.0]
    np.testing.assert_array_equal(itercl.pair_counts(X, radii, precision=precision),
                                  [(pdist(X) <= r).sum() for r in radii])


@CASES
@given(data=arrays(min_rows=1), precision=st.sampled_from(["float", "double"]))
def test_histograms_of_any_magnitude_count_every_pair(data, precision, fp64):
    X, _ = data
    if precision == "double" and not fp64:
        return
    pairs = len(X) * (len(X) - 1) // 2
    try:
        counts, edges = itercl.distance_histogram(X, bins=4, precision=precision)
    except ValueError as e:
        assert refused_rightly(e, X, precision), e
        return
    assert counts.sum() == pairs
    ref_counts, ref_edges = np.histogram(pdist(X), bins=4)
    np.testing.assert_allclose(edges, ref_edges, rtol=1e-6 if precision == "float" else 1e-12)
    assert np.abs(counts - ref_counts).sum() <= 2 * max(1, pairs // 10) if precision == "float" else True


@CASES
@given(data=arrays(min_rows=4, max_rows=24, integers=True), k=st.integers(1, 3))
def test_kmeans_in_double_from_the_same_init_is_scikit_learns(data, k, fp64):
    X, _ = data
    if not fp64 or len(np.unique(X, axis=0)) < k:
        return
    init = np.unique(X, axis=0)[:k]
    ours = itercl.KMeans(k, init=init, n_init=1, precision="double").fit(X)
    ref = SkKMeans(k, init=init, n_init=1, algorithm="lloyd").fit(np.ascontiguousarray(X))
    # Integer data: exact ties break to the lower index in both; otherwise the same Lloyd iteration.
    np.testing.assert_allclose(ours.inertia_, ref.inertia_, rtol=1e-9, atol=1e-9)
