# Lab 03's screenshot tests, included by viewer/tests/CMakeLists.txt (with its
# viewer_screenshot_test and `data`): at least one per view that
# harness/03_streams/lab.json names.
#
# Lab 03: the timeline of its producer/consumer and its pipeline on the
# emulator (the graded code's spans, dependency arrows and races), a
# hand-made timeline with a race and event waits, and the H200's timelines.
viewer_screenshot_test(timeline_lab03_producer_consumer timeline
  ARGS 03 --version 1 --param schedule=7919)
viewer_screenshot_test(timeline_lab03_pipeline timeline ARGS 03 --version 2)
viewer_screenshot_test(timeline_lab03_race_from_result_file timeline
  ARGS 03 --results ${data}/streams_race_sample.json)
viewer_screenshot_test(timeline_lab03_h200 timeline
  ARGS 03 --results ${PROJECT_SOURCE_DIR}/docs/results/lab03-h200-2026-11-30.json)
# Its first chart, the three spins: no line from the pipeline's experiment.
viewer_screenshot_test(timing_lab03_h200 timing
  ARGS 03 --results ${PROJECT_SOURCE_DIR}/docs/results/lab03-h200-2026-11-30.json)
