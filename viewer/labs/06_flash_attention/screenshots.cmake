# Lab 06's screenshot tests, included by viewer/tests/CMakeLists.txt (with its
# viewer_screenshot_test and `data`): at least one per view that
# harness/06_flash_attention/lab.json names.
#
# Lab 06: the causal fused forward's walk over key tiles (skipped tiles
# grey, the row's m and l per tile under the grids), the bytes naive vs fused
# attention moved, its code on the emulator, and TFLOP/s bars from a result
# file.
viewer_screenshot_test(tiles_lab06_causal tiles ARGS 06 --version 1 --step 1 --program 2)
viewer_screenshot_test(traffic_lab06 traffic ARGS 06 --version 0)
viewer_screenshot_test(timing_lab06 timing ARGS 06 --results
  ${PROJECT_SOURCE_DIR}/docs/results/lab06-h200-2026-11-30.json)
