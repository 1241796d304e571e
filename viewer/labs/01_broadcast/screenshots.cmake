# Lab 01's screenshot tests, included by viewer/tests/CMakeLists.txt (with its
# viewer_screenshot_test and `data`): at least one per view that
# harness/01_broadcast/lab.json names.
#
# Element grid and warp-request sectors: lab 01's code on the emulator.
viewer_screenshot_test(indexing_fixed indexing ARGS --version 1 --shape 40x50 --block 128)
viewer_screenshot_test(indexing_lecture indexing ARGS --version 0 --shape 40x50 --block 128)
viewer_screenshot_test(indexing_coalesced indexing
  ARGS --version 3 --param rows=37 --param cols=53 --block 64)
viewer_screenshot_test(coalescing coalescing ARGS --version 0 --shape 64x100 --block 256)
# A file with a copy of each size: the chart draws its own size's.
viewer_screenshot_test(timing_lab01_sizes timing
  ARGS 01 --results ${PROJECT_SOURCE_DIR}/docs/results/lab01-h200-2026-11-30b.json)
