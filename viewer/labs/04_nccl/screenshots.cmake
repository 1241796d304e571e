# Lab 04's screenshot tests, included by viewer/tests/CMakeLists.txt (with its
# viewer_screenshot_test and `data`): at least one per view that
# harness/04_nccl/lab.json names.
#
# Lab 04: the ring's timeline and each rank's bytes, its code on simulated
# ranks on the emulator (4 ranks, 1001 floats: unequal chunks), and busbw
# against the message size from the 2 x H200 result file.
viewer_screenshot_test(timeline_lab04_ring timeline ARGS 04 --version 0)
viewer_screenshot_test(timeline_lab04_ring_8_ranks timeline
  ARGS 04 --version 0 --param ranks=8 --param count=4099)
viewer_screenshot_test(traffic_lab04_ring traffic ARGS 04 --version 0)
viewer_screenshot_test(traffic_lab04_by_hand traffic ARGS 04 --version 2 --param ranks=3)
viewer_screenshot_test(errors_lab04_busbw errors
  ARGS 04 --results ${PROJECT_SOURCE_DIR}/docs/results/lab04-2xh200-2026-11-30.json)
viewer_screenshot_test(timing_lab04 timing
  ARGS 04 --results ${PROJECT_SOURCE_DIR}/docs/results/lab04-2xh200-2026-11-30.json)
