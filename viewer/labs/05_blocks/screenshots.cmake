# Lab 05's screenshot tests, included by viewer/tests/CMakeLists.txt (with its
# viewer_screenshot_test and `data`): at least one per view that
# harness/05_blocks/lab.json names.
#
# Lab 05: the tile walk of its matmul (grouped order, the reuse shading over
# the first wave, edge tiles hatched) and the fused activation's warp
# requests against the unfused ones, its code on the emulator; the view it
# opens on (`./lab view 05`); its bars from the H200's result file.
viewer_screenshot_test(tiles_lab05_grouped tiles ARGS 05 --version 1 --step 2 --program 5)
viewer_screenshot_test(coalescing_lab05_fused coalescing ARGS 05 --version 2)
viewer_screenshot_test(tiles_lab05_opening tiles ARGS 05)
viewer_screenshot_test(timing_lab05 timing ARGS 05 --results
  ${PROJECT_SOURCE_DIR}/docs/results/lab05-h200-2026-11-30.json)
