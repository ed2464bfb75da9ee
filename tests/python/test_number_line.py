"""The edges of the number line (issue 34): magnitudes the device's precision cannot resolve are refused
in every family, integer data stays exact where the docs say so, K-Means far from 0 within its stated
bound, and no pairs give numpy's zeros."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist, pdist
from sklearn.cluster import KMeans as SkKMeans
from sklearn.datasets import load_digits

import itercl
from conftest import blobs

TINY = 1e-30  # squared, far below float's least normal


@pytest.fixture(scope="module")
def tiny():
    return np.random.default_rng(3).normal(size=(40, 3)) * TINY


@pytest.mark.parametrize(
    "call",
    [
        lambda X: itercl.pairwise_distances(X, precision="float"),
        lambda X: itercl.pairwise_distances(X, metric="cosine", precision="float"),
        lambda X: itercl.row_min(X, precision="float"),
        lambda X: itercl.knn(X, k=2, precision="float"),
        lambda X: itercl.distance_histogram(X, bins=4, range=(0, 4 * TINY), precision="float"),
        lambda X: itercl.pair_counts(X, [TINY], precision="float"),
        lambda X: itercl.KMeans(3, n_init=1, random_state=0, precision="float").fit(X),
        lambda X: itercl.MDS(max_iter=5, random_state=0, precision="float").fit(X),
    ],
    ids=["matrix", "cosine", "row_min", "knn", "histogram", "pair_counts", "kmeans", "mds"],
)
def test_magnitudes_float_cannot_resolve_are_refused_in_every_family(tiny, call):
    # Before: all distances 0, parallel rows at cosine distance 1, every pair in the first bin, one cluster.
    with pytest.raises(ValueError, match="power of two"):
        call(tiny)


def test_small_magnitudes_float_resolves_still_match_scipy():
    # 1e-12 lies above float's least resolved spread (3.1e-16): the distances keep float's accuracy.
    X = np.random.default_rng(4).normal(size=(30, 3)) * 1e-12
    np.testing.assert_allclose(itercl.pairwise_distances(X, precision="float"), cdist(X, X), rtol=1e-5, atol=1e-17)
    np.testing.assert_allclose(
        itercl.pairwise_distances(X, metric="cosine", precision="float"), cdist(X, X, "cosine"), atol=1e-5
    )


def test_integer_distances_are_exact_in_double_and_ties_go_to_the_lower_index(fp64):
    if not fp64:
        pytest.skip("the device has no fp64")
    # The mean 10/3 is not representable: centred on it, the neighbours at 61 came out 61 and 61.00000000000006.
    X = np.array([[-61.0], [0.0], [61.0], [941.0], [942.0], [944.0]])
    np.testing.assert_array_equal(itercl.pairwise_distances(X, precision="double"), cdist(X, X))
    values, indices = itercl.row_min(X, precision="double")
    assert indices[1] == 0 and values[1] == 61.0
    values, indices = itercl.row_max(X[:3], precision="double")
    assert indices[1] == 0 and values[1] == 61.0
    Y = np.array([[631.0], [341.0], [-995.0]])  # 290 apart, once 290.00000000000006
    np.testing.assert_array_equal(itercl.pairwise_distances(Y, precision="double"), cdist(Y, Y))
    # K-Means' first assignment: point 1 equally near centroids 0 and 2 goes to 0.
    km = itercl.KMeans(2, init=X[[0, 2]], n_init=1, max_iter=1, precision="double").fit(X[:3])
    assert km.labels_[1] == 0


def test_integer_points_are_exact_in_float():
    # Integer coordinates within float's 2^24: every distance is float's rounding of the exact one, and a
    # pair at exactly 5 lands in the bin from 5 (it fell below, centred on the mean).
    X = np.array([[118, 91, 115], [94, 115, 117], [118, 94, 111], [94, 104, 98], [93, 113, 112], [99, 94, 111]], float)
    np.testing.assert_array_equal(itercl.pairwise_distances(X, precision="float"), cdist(X, X).astype(np.float32))
    edges = [0, 5, 10, 15, 20, 60]
    counts, _ = itercl.distance_histogram(X, bins=edges, precision="float")
    np.testing.assert_array_equal(counts, np.histogram(pdist(X), edges)[0])
    rng = np.random.default_rng(5)
    for _ in range(20):
        P = rng.integers(0, 40, size=(12, 3)).astype(float) + rng.integers(0, 5000)
        np.testing.assert_array_equal(itercl.pairwise_distances(P, precision="float"), cdist(P, P).astype(np.float32))
        c, _ = itercl.distance_histogram(P, bins=np.arange(0, 80, 5.0), precision="float")
        np.testing.assert_array_equal(c, np.histogram(pdist(P), np.arange(0, 80, 5.0))[0])


def test_digits_kmeans_in_double_finds_scikit_learns_optimum(fp64):
    if not fp64:
        pytest.skip("the device has no fp64")
    X = load_digits().data  # integer pixels 0..16
    init = X[:10]
    ours = itercl.KMeans(10, init=init, n_init=1, precision="double").fit(X)
    ref = SkKMeans(10, init=init, n_init=1, algorithm="lloyd").fit(X)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    assert ours.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(ours.inertia_, ref.inertia_, rtol=1e-12)


def lloyd_by_differences(X, C):
    """Lloyd's iteration to stable labels, distances as sums of squared differences (no expansion), ties to
    the lower index: the reference for integer data, where scikit-learn's ||x||^2 - 2 x.c + ||c||^2 can
    break a near tie the other way."""
    previous = None
    while True:
        labels = ((X[:, None, :] - C[None]) ** 2).sum(-1).argmin(axis=1)
        if previous is not None and np.array_equal(labels, previous):
            return labels, C
        previous = labels
        C = np.array([X[labels == k].mean(axis=0) if (labels == k).any() else C[k] for k in range(len(C))])


def test_digits_kmeans_in_double_follows_the_direct_iteration(fp64):
    # From scikit-learn's own k-means++ draw (random_state=3) scikit-learn's expanded distances end 7.4e-6
    # higher, one iteration longer: itercl follows the iteration computed from differences.
    if not fp64:
        pytest.skip("the device has no fp64")
    from sklearn.cluster import kmeans_plusplus

    X = load_digits().data
    init, _ = kmeans_plusplus(X, 10, random_state=3)
    labels, centres = lloyd_by_differences(X, init)
    ours = itercl.KMeans(10, init=init, n_init=1, tol=0, precision="double").fit(X)
    np.testing.assert_array_equal(ours.labels_, labels)
    np.testing.assert_allclose(ours.cluster_centers_, centres, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("offset", [1e11, 1e12, 1e13])
def test_kmeans_far_from_zero_within_the_stated_bound(offset, fp64):
    if not fp64:
        pytest.skip("the device has no fp64")
    X, _ = blobs(n=400, centers=4, features=3)
    X = X + offset
    init = X[[0, 100, 200, 300]]
    ours = itercl.KMeans(4, init=init, n_init=1, precision="double").fit(X)
    ref = SkKMeans(4, init=init, n_init=1, algorithm="lloyd").fit(X)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    # docs/kmeans.md: 1e-9 relative, plus what rounding the returned centres to double moves the inertia
    # of the points about them: the total weight times sum_d (ulp(max |c_d|) / 2)^2.
    half_ulp = np.spacing(np.abs(ours.cluster_centers_).max(axis=0)) / 2
    bound = 1e-9 * ref.inertia_ + len(X) * np.sum(half_ulp**2)
    assert abs(ours.inertia_ - ref.inertia_) <= bound


@pytest.mark.parametrize("rows", [0, 1])
def test_no_pairs_give_numpys_zeros(rows):
    X = np.zeros((rows, 2))
    for kwargs in ({}, {"range": (0, 1)}, {"bins": [0, 1, 3]}):
        counts, edges = itercl.distance_histogram(X, **kwargs)
        ref_counts, ref_edges = np.histogram(pdist(X), **kwargs)
        np.testing.assert_array_equal(counts, ref_counts)
        np.testing.assert_array_equal(edges, ref_edges)
    np.testing.assert_array_equal(itercl.pair_counts(X, [0.5, 1.0]), [0, 0])
