import numpy as np
import pytest
from scipy.spatial.distance import cdist, pdist, squareform
from sklearn.metrics import pairwise_distances_argmin_min as sk_argmin_min

import itercl

METRICS = [("euclidean", {}), ("sqeuclidean", {}), ("cityblock", {}), ("minkowski", {"p": 3}),
           ("minkowski", {"p": 0.5}), ("chebyshev", {}), ("cosine", {})]


@pytest.fixture(scope="module")
def XY():
    g = np.random.default_rng(5)
    return g.normal(size=(37, 5)), g.normal(size=(29, 5))


def reference(X, Y, metric, kw):
    if metric == "dot":
        return X @ (X if Y is None else Y).T
    if Y is None:
        return squareform(pdist(X, metric, **kw))
    return cdist(X, Y, metric, **kw)


@pytest.mark.parametrize("metric, kw", METRICS + [("dot", {})])
@pytest.mark.parametrize("two_inputs", [False, True])
def test_every_metric_matches_scipy_in_float(XY, metric, kw, two_inputs):
    X, Y = XY
    Y = Y if two_inputs else None
    D = itercl.pairwise_distances(X, Y, metric=metric, **kw)
    assert D.dtype == np.float32
    ref = reference(X, Y, metric, kw)
    np.testing.assert_allclose(D, ref, rtol=2e-5, atol=2e-5 * np.abs(ref).max())
    if Y is None and metric != "dot":
        assert np.all(np.diag(D) == 0) and np.array_equal(D, D.T)


# Each metric is a kernel build, several seconds on PoCL the first time: double for one metric only.
@pytest.mark.parametrize("metric, kw", [("euclidean", {})])
def test_double_precision_matches_scipy_closely(XY, metric, kw, fp64):
    if not fp64:
        pytest.skip("the device has no fp64")
    X, Y = XY
    D = itercl.pairwise_distances(X, Y, metric=metric, precision="double", **kw)
    assert D.dtype == np.float64
    np.testing.assert_allclose(D, cdist(X, Y, metric, **kw), rtol=1e-12, atol=1e-12)


def test_aliases_blocks_and_float32_input(XY):
    X, Y = XY
    D = itercl.pairwise_distances(X, Y, metric="manhattan")
    np.testing.assert_array_equal(itercl.pairwise_distances(X, Y, metric="l1"), D)
    np.testing.assert_array_equal(itercl.pairwise_distances(X, Y, metric="cityblock", block_rows=8, block_cols=8),
                                  D)
    np.testing.assert_allclose(itercl.pairwise_distances(X.astype(np.float32), Y.astype(np.float32),
                                                         metric="cityblock"),
                               cdist(X.astype(np.float32), Y.astype(np.float32), "cityblock"), rtol=2e-5)
    np.testing.assert_array_equal(itercl.pairwise_distances(X, metric="l2"), itercl.pairwise_distances(X))


def test_row_reductions_match_brute_force(XY):
    X, Y = XY
    D = cdist(X, Y)
    values, indices = itercl.row_min(X, Y)
    np.testing.assert_array_equal(indices, D.argmin(1))
    np.testing.assert_allclose(values, D.min(1), rtol=2e-5)
    values, indices = itercl.row_max(X, Y)
    np.testing.assert_array_equal(indices, D.argmax(1))
    np.testing.assert_allclose(values, D.max(1), rtol=2e-5)
    np.testing.assert_allclose(itercl.row_sum(X, Y), D.sum(1), rtol=2e-5)
    # one input: a row's pair with itself is left out, as pdist does
    S = squareform(pdist(X))
    np.fill_diagonal(S, np.inf)
    values, indices = itercl.row_min(X)
    np.testing.assert_array_equal(indices, S.argmin(1))
    np.testing.assert_allclose(values, S.min(1), rtol=2e-5)


def test_knn_matches_sorted_distances(XY):
    X, Y = XY
    D = cdist(X, Y, "cityblock")
    distances, indices = itercl.knn(X, Y, k=4, metric="cityblock")
    assert distances.shape == indices.shape == (len(X), 4)
    np.testing.assert_array_equal(indices, np.argsort(D, axis=1, kind="stable")[:, :4])
    np.testing.assert_allclose(distances, np.sort(D, axis=1)[:, :4], rtol=2e-5)
    S = squareform(pdist(X))
    np.fill_diagonal(S, np.inf)
    distances, indices = itercl.knn(X, k=3)
    np.testing.assert_array_equal(indices, np.argsort(S, axis=1, kind="stable")[:, :3])


def test_threshold_pairs_match_brute_force(XY):
    X, Y = XY
    S = squareform(pdist(X))
    t = np.quantile(pdist(X), 0.1)
    pairs, d = itercl.threshold_pairs(X, threshold=t)
    i, j = np.nonzero(np.triu(S <= t, 1))
    np.testing.assert_array_equal(pairs, np.stack([i, j], 1))
    np.testing.assert_allclose(d, S[i, j], rtol=2e-5)
    D = cdist(X, Y)
    pairs, d = itercl.threshold_pairs(X, Y, threshold=np.quantile(D, 0.05))
    i, j = np.nonzero(D <= np.quantile(D, 0.05))
    np.testing.assert_array_equal(pairs, np.stack([i, j], 1))
    pairs, d = itercl.threshold_pairs(X, threshold=-1.0)
    assert pairs.shape == (0, 2) and d.shape == (0,)


def test_argmin_min_as_scikit_learn(XY):
    X, Y = XY
    indices, values = itercl.pairwise_distances_argmin_min(X, Y)
    ref_indices, ref_values = sk_argmin_min(X, Y)
    np.testing.assert_array_equal(indices, ref_indices)
    np.testing.assert_allclose(values, ref_values, rtol=2e-5)
    np.testing.assert_array_equal(itercl.pairwise_distances_argmin(X, Y, axis=0), cdist(X, Y).argmin(0))


def test_bad_input_names_the_field(XY):
    X, Y = XY
    with pytest.raises(ValueError, match="metric"):
        itercl.pairwise_distances(X, metric="hamming")
    with pytest.raises(ValueError, match="p"):
        itercl.pairwise_distances(X, metric="minkowski", p=-1)
    with pytest.raises(ValueError, match="Y: has 4 features"):
        itercl.pairwise_distances(X, Y[:, :4])
    with pytest.raises(ValueError, match="k"):
        itercl.knn(X, Y, k=100)
    with pytest.raises(ValueError, match="kernel.variant"):
        itercl.pairwise_distances(X, kernel={"variant": "bogus"})
    with pytest.raises(ValueError, match="cosine|zero"):
        itercl.pairwise_distances(np.vstack([X, np.zeros(5)]), metric="cosine")
    with pytest.raises(TypeError):
        itercl.pairwise_distances(X, metric="euclidean", w=np.ones(5))
    with pytest.raises(ValueError, match="precision"):
        itercl.pairwise_distances(X, precision="single")
