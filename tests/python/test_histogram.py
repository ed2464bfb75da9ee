import math

import numpy as np
import pytest
from scipy.spatial.distance import pdist

import itercl


@pytest.fixture(scope="module")
def points():
    return np.random.default_rng(7).uniform(0, 2, size=(150, 3))


def minimum_image(X, box):
    d = X[:, None, :] - X[None, :, :]
    d -= box * np.round(d / box)
    D = np.sqrt((d * d).sum(-1))
    return D[np.triu_indices(len(X), 1)]


def test_uniform_bins_match_numpy_histogram(points, fp64):
    precision = "double" if fp64 else "float"
    counts, edges = itercl.distance_histogram(points, bins=16, range=(0.0, 3.0), precision=precision)
    ref_counts, ref_edges = np.histogram(pdist(points), bins=16, range=(0.0, 3.0))
    assert counts.dtype == np.int64
    np.testing.assert_array_equal(edges, ref_edges)
    if fp64:
        np.testing.assert_array_equal(counts, ref_counts)
    else:
        assert np.abs(counts - ref_counts).sum() <= 4 and counts.sum() == ref_counts.sum()


def test_float_counts_within_rounding_of_an_edge(points):
    counts, _ = itercl.distance_histogram(points, bins=16, range=(0.0, 3.0))
    ref, _ = np.histogram(pdist(points), bins=16, range=(0.0, 3.0))
    assert counts.sum() == ref.sum() and np.abs(counts - ref).max() <= 2


def test_explicit_edges_and_out_of_range_pairs(points, fp64):
    precision = "double" if fp64 else "float"
    edges = [0.1, 0.5, 0.7, 1.5, 2.0]
    counts, got_edges = itercl.distance_histogram(points, bins=edges, precision=precision)
    ref, _ = np.histogram(pdist(points), bins=edges)
    np.testing.assert_array_equal(got_edges, edges)
    np.testing.assert_array_equal(counts, ref)


def test_default_range_is_the_data_range_as_numpy(points, fp64):
    if not fp64:
        pytest.skip("compared exactly in double")
    counts, edges = itercl.distance_histogram(points, bins=7, precision="double")
    ref, ref_edges = np.histogram(pdist(points), bins=7)
    np.testing.assert_allclose(edges, ref_edges, rtol=1e-12)
    np.testing.assert_array_equal(counts, ref)


def test_edge_cases_as_numpy(fp64):
    precision = "double" if fp64 else "float"
    same = np.ones((5, 3))  # every distance 0: numpy widens the range to (-0.5, 0.5)
    counts, edges = itercl.distance_histogram(same, bins=4, precision=precision)
    ref, ref_edges = np.histogram(pdist(same), bins=4)
    np.testing.assert_array_equal(counts, ref)
    np.testing.assert_array_equal(edges, ref_edges)
    counts, edges = itercl.distance_histogram(np.zeros((1, 3)), bins=3, precision=precision)  # no pairs
    np.testing.assert_array_equal(counts, [0, 0, 0])
    np.testing.assert_array_equal(edges, np.histogram([], bins=3)[1])


def test_periodic_box_uses_the_minimum_image(points, fp64):
    precision = "double" if fp64 else "float"
    box = np.array([2.0, 2.0, 2.0])
    counts, _ = itercl.distance_histogram(points, bins=10, range=(0, 1.0), box=box, precision=precision)
    ref, _ = np.histogram(minimum_image(points, box), bins=10, range=(0, 1.0))
    assert np.abs(counts - ref).sum() <= (0 if fp64 else 4)


def test_pair_counts_match_brute_force(points):
    radii = [0.1, 0.25, 0.5, 1.0]
    d = pdist(points)
    np.testing.assert_array_equal(itercl.pair_counts(points, radii, precision="double"),
                                  [(d <= r).sum() for r in radii])
    assert itercl.pair_counts(points, 0.3, precision="double") == (d <= 0.3).sum()
    box = [2.0, 2.0, 2.0]
    dm = minimum_image(points, np.array(box))
    np.testing.assert_array_equal(itercl.pair_counts(points, radii, box=2.0, precision="double"),
                                  [(dm <= r).sum() for r in radii])


def test_radial_distribution_of_an_ideal_gas(points):
    box = [2.0, 2.0, 2.0]
    r, g = itercl.radial_distribution(points, bins=8, range=(0, 1.0), box=box, precision="double")
    counts, edges = np.histogram(minimum_image(points, np.array(box)), bins=8, range=(0, 1.0))
    shells = 4 / 3 * math.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    n = len(points)
    np.testing.assert_allclose(r, (edges[1:] + edges[:-1]) / 2)
    np.testing.assert_allclose(g, counts / (n * (n - 1) / 2 * shells / 8.0), rtol=1e-12)
    assert abs(g[2:].mean() - 1) < 0.2  # uniform points: g near 1


def test_bad_input_names_the_field(points):
    with pytest.raises(ValueError, match="bins"):
        itercl.distance_histogram(points, bins=0, range=(0, 1))
    with pytest.raises(ValueError, match="bins"):
        itercl.distance_histogram(points, bins=[0.5, 0.2, 1.0])
    with pytest.raises(ValueError, match="range"):
        itercl.distance_histogram(points, bins=4, range=(1.0, 0.0))
    with pytest.raises(ValueError, match="range"):
        itercl.distance_histogram(points, bins=4, box=[2.0, 2.0, 2.0])
    with pytest.raises(ValueError, match="box"):
        itercl.distance_histogram(points, bins=4, range=(0, 1), box=[1.0, 2.0])
    with pytest.raises(ValueError, match="radii"):
        itercl.pair_counts(points, [0.5, 0.1])
    with pytest.raises(ValueError, match="volume"):
        itercl.radial_distribution(points, bins=4, range=(0, 1))
