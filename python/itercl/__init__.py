"""itercl: OpenCL kernels for iterative statistics, with scikit-learn's, SciPy's and networkx's interfaces.

K-Means and SMACOF MDS as scikit-learn estimators (KMeans, MDS, smacof), PageRank as networkx's
function (pagerank), all-pairs distances and their reductions (pairwise_distances, knn, row_min, ...),
distance histograms, pair counts and g(r). Each runs on an OpenCL device: ``device=`` takes the CLI's
specs ("auto", "gpu", "cpu", "P:D", part of a name), and itercl.devices() lists them. docs/python.md.
"""

from . import _itercl
from .kmeans import KMeans
from .manifold import MDS, SmacofDissimilarities, smacof
from .pagerank import PageRankGraph, PowerIterationFailedConvergence, pagerank
from .pairwise import (distance_histogram, knn, pair_counts, pairwise_distances, pairwise_distances_argmin,
                       pairwise_distances_argmin_min, radial_distribution, row_max, row_min, row_sum, threshold_pairs)

__version__ = _itercl.__version__

BuildError = _itercl.BuildError


def devices():
    """Every OpenCL device, as `itercl devices` lists them: a list of dicts (id "P:D", type, name, ...)."""
    return _itercl.devices()


__all__ = ["KMeans", "MDS", "smacof", "SmacofDissimilarities", "pagerank", "PageRankGraph", "PowerIterationFailedConvergence", "pairwise_distances",
           "pairwise_distances_argmin_min", "pairwise_distances_argmin", "knn", "row_min", "row_max", "row_sum",
           "threshold_pairs", "distance_histogram", "pair_counts", "radial_distribution", "devices", "BuildError",
           "__version__"]
