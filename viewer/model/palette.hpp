// Colours of the indexing panel, kept out of the UI so tests can ask which
// colour a block gets and look for it in a screenshot.
#pragma once

#include <cstdint>

namespace cudalab::viewer {

struct Rgba {
  std::uint8_t r = 0, g = 0, b = 0, a = 255;
  friend bool operator==(const Rgba&, const Rgba&) = default;
};

// Number of distinct colours in the categorical palette; ids beyond it repeat.
inline constexpr int kCategoricalColours = 48;

// Light, clearly different colours for block or warp ids. Anomalies below are
// saturated or dark so they stand out against all of them.
Rgba categorical(std::uint64_t id);

// A blue-to-yellow ramp for t in [0, 1] (thread index within a block).
Rgba ramp(double t);

Rgba never_written();  // element no thread wrote: black
Rgba written_twice();  // element written 2+ times: saturated red
Rgba dimmed(Rgba c);   // a cell outside the selected block or warp

// Coalescing panel: a 32-byte sector the warp's request had to move.
inline constexpr Rgba kSectorTouched{250, 170, 40, 255};
// Timing panel: a kernel version's bandwidth bar.
inline constexpr Rgba kVersionBar{90, 160, 230, 255};
// Any view: the sentence saying what the student must do before it can show
// something (an exercise not done yet).
inline constexpr Rgba kUnfinishedText{250, 200, 90, 255};

}  // namespace cudalab::viewer
