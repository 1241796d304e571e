# Lab 02's screenshot tests, included by viewer/tests/CMakeLists.txt (with its
# viewer_screenshot_test and `data`): at least one per view that
# harness/02_precision/lab.json names.
#
# Lab 02: the bit layout and the fragments (cudalab::numerics, no run), the
# error plot from its code on the emulator and from a result file, and its
# TFLOP/s bars from a result file.
set(lab02_results "${data}/lab02_bench_sample.json")
viewer_screenshot_test(bits_tf32_tie bits ARGS 02 --param value_bits=0x3f801000)
viewer_screenshot_test(bits_fp16_subnormal bits ARGS 02 --param value_bits=0x358637bd)
viewer_screenshot_test(fragments_m16n8k16 fragments ARGS 02 --param mma_k=16)
viewer_screenshot_test(fragments_m16n8k8_tf32_lane_5 fragments ARGS 02 --param mma_k=8 --lane 5)
viewer_screenshot_test(errors_lab02 errors
  ARGS 02 --version 1 --param m=8 --param k_min=256 --param k_max=4096)
viewer_screenshot_test(errors_lab02_from_result_file errors ARGS 02 --results ${lab02_results})
viewer_screenshot_test(timing_lab02 timing ARGS 02 --results ${lab02_results})
