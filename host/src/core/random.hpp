// Random numbers that are the same on every platform (internal).
#pragma once

#include <random>

namespace itercl {

// std::mt19937_64's sequence is fixed by the standard; std:: distributions are not, so we draw through
// our own transforms below.
using Rng = std::mt19937_64;

// A uniform double in [0, 1) from 53 random bits.
inline double uniform01(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace itercl
