// Random numbers that are the same on every platform (internal).
#pragma once

#include <cstdint>
#include <random>

namespace itercl {

// std::mt19937_64's sequence is fixed by the standard; std:: distributions are not, so we draw through
// our own transforms below.
using Rng = std::mt19937_64;

// A uniform double in [0, 1) from 53 random bits.
inline double uniform01(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Draw i of the stream keyed by `key`, uniform in [0, 1): SplitMix64's output function at key + i times its
// increment (Steele, Lea and Flood 2014), so that any draw is computed on its own: threads and MPI ranks
// draw theirs in parallel, with no sequence to skip through.
inline double uniform01_at(std::uint64_t key, std::uint64_t i) {
  std::uint64_t z = key + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

}  // namespace itercl
