// Everything itercl offers, in one include.
#pragma once

#include "itercl/datagen.hpp"
#include "itercl/device.hpp"
#include "itercl/error.hpp"
#include "itercl/experiment.hpp"
#include "itercl/graph.hpp"
#include "itercl/io.hpp"
#include "itercl/kmeans.hpp"
#include "itercl/kmeans_assignment.hpp"
#include "itercl/matrix.hpp"
#include "itercl/pagerank.hpp"
#include "itercl/timing.hpp"
