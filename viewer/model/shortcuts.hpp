// The keyboard shortcuts, listed once: the help panel prints this table and
// shortcuts.cpp implements it.
#pragma once

namespace cudalab::viewer {

struct Shortcut {
  const char* keys;
  const char* action;
};

inline constexpr Shortcut kShortcuts[] = {
    {"1 2 3 ...", "the tabs from the left (lab 01: indexing, coalescing, timing, help)"},
    {"F1 / H", "help panel"},
    {"R", "run the selected version again"},
    {"[ ]", "previous / next version"},
    {"C", "show / hide the run controls"},
    {"B W T", "indexing: colour by block, warp, thread"},
    {"F", "indexing: fit the tensor to the window"},
    {"+ - / wheel", "indexing: zoom (wheel zooms at the mouse)"},
    {"drag", "indexing: pan"},
    {"click / shift-click", "indexing: select the block / warp that wrote a cell"},
    {"Esc", "indexing: clear the selection"},
    {"left right", "coalescing: previous / next warp"},
    {"up down", "coalescing: previous / next block"},
    {"left right", "tile walk: previous / next step"},
    {"up down", "tile walk: previous / next program"},
    {"Ctrl+Q", "quit"},
};

}  // namespace cudalab::viewer
