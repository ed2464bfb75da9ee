"""The Python package's tests: itercl against scikit-learn, SciPy and networkx on the default device
($ITERCL_DEVICE, else "auto": PoCL's CPU device in CI). Sizes are small: on PoCL most of the time is the
first build of each kernel, which the kernel cache (PoCL's own, on PoCL) then serves."""

import numpy as np
import pytest

import itercl


@pytest.fixture(scope="session")
def fp64():
    """Whether the default device computes in double; tests in double skip without it."""
    spec = itercl._itercl.default_device_spec()
    return itercl._itercl.select_device(spec)[3]


@pytest.fixture
def rng():
    return np.random.default_rng(12)


def blobs(n=300, centers=4, features=3, std=0.6, seed=0):
    """Well separated Gaussian blobs, with their true labels."""
    g = np.random.default_rng(seed)
    means = g.uniform(-10, 10, size=(centers, features))
    labels = g.integers(0, centers, size=n)
    return means[labels] + g.normal(0, std, size=(n, features)), labels
