// lab04_bench: `./lab bench 04 [--ranks N]`. On N GPUs (default: every
// visible one), one rank per GPU over NCCL, in place, message sizes S from
// 1 KiB to 1 GiB (nccl-tests' "size": the whole buffer for all_gather and
// reduce_scatter):
//   * NCCL's all_reduce, all_gather, reduce_scatter and broadcast (figures
//     busbw_<collective>, version nccl, GB/s);
//   * the graded ring all-reduce over NcclComm's send/recv (figure
//     busbw_all_reduce, version ring_nccl_p2p) and over SimComm with a GPU
//     per rank, whose messages are peer copies by the copy engines (version
//     ring_copy_engines), each as a fraction of NCCL's all-reduce busbw at
//     the same size, measured in the same run (anchor
//     nccl_all_reduce_busbw_<S>).
// Each time is the median over --repeats runs of the slowest rank, every
// run started together after a barrier; busbw = algbw x the collective's
// factor, with the student's exercise 3 arithmetic. Lines are printed as
// nccl-tests prints them, #wrong included. Exercise 6: torch.distributed's
// all_reduce and broadcast from bench_pytorch.py (version torch_distributed,
// the same sizes; all_reduce against the same anchor), when PyTorch ran on
// as many GPUs as the run's ranks.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend.hpp"
#include "cudalab/harness/bench.hpp"

namespace {

using cudalab::comm::Collective;
using cudalab::harness::BenchRun;
namespace harness = lab04::harness;

const std::vector<std::uint64_t> kSizes = {1ull << 10, 1ull << 15, 1ull << 20, 1ull << 24,
                                           1ull << 26, 1ull << 28, 1ull << 30};

std::string anchor_name(std::uint64_t bytes) {
  return "nccl_all_reduce_busbw_" + std::to_string(bytes);
}

// A measured collective: its busbw (the student's exercise 3 arithmetic on
// s bytes in ms) printed as nccl-tests prints a line (`label`) and added as
// figure busbw_<collective> of `version` at `size`; with several ranks
// NCCL's all-reduce is the anchor of every all-reduce of its size.
void add_busbw(BenchRun& run, harness::Backend& backend, Collective which, int ranks,
               std::uint64_t size, double s, std::size_t count, double ms, std::uint64_t wrong,
               const std::string& label, const std::string& version) {
  const double algbw = backend.call(harness::entry::algbw_gbps, s, ms / 1e3);
  const double busbw = algbw * backend.call(harness::entry::busbw_factor, which, ranks);
  std::printf("  %12.0f %12zu %18s %10.1f %12.2f %12.2f %8llu\n", s, count, label.c_str(), ms * 1e3,
              algbw, busbw, static_cast<unsigned long long>(wrong));
  const bool against_nccl = which == Collective::all_reduce && ranks > 1;
  if (against_nccl && version == "nccl") {  // the anchor, added before the figures against it
    run.result().add_anchor(
        {anchor_name(size), busbw, "GB/s",
         "ncclAllReduce busbw, " + std::to_string(ranks) + " ranks, in place, same run",
         static_cast<std::uint64_t>(s), ms});
  }
  run.add_figure(std::string("busbw_") + cudalab::comm::to_string(which), version,
                 {ranks, static_cast<std::int64_t>(size)}, static_cast<std::uint64_t>(s), ms, busbw,
                 "GB/s", against_nccl ? anchor_name(size) : "");
}

// Exercise 6's figures from bench_pytorch.py, as busbw with the student's
// arithmetic, next to NCCL's.
void add_pytorch(BenchRun& run, harness::Backend& backend, int ranks) {
  const std::optional<nlohmann::json> json = run.pytorch_results("torch.distributed figures");
  if (!json) return;
  if (const int world = json->at("world_size").get<int>(); world != ranks) {
    run.add_note("no torch.distributed figures: PyTorch ran on " + std::to_string(world) +
                 " GPUs, this run on " + std::to_string(ranks));
    return;
  }
  for (const nlohmann::json& f : json->at("figures")) {
    const std::string collective = f.at("collective").get<std::string>();
    const auto bytes = f.at("bytes").get<std::uint64_t>();
    add_busbw(run, backend,
              collective == "broadcast" ? Collective::broadcast : Collective::all_reduce, ranks,
              bytes, static_cast<double>(bytes), bytes / 4, f.at("time_ms").get<double>(),
              f.at("wrong").get<std::uint64_t>(), "torch " + collective, "torch_distributed");
  }
}

void bench(BenchRun& run) {
  std::string why_not;
  const auto backend = harness::make_gpu_backend(&why_not);
  if (!backend) throw std::runtime_error("no usable GPU: " + why_not);
  const int gpus = backend->nccl_devices();
  const int ranks = run.ranks() > 0 ? run.ranks() : gpus;
  if (ranks > gpus) {
    throw std::invalid_argument("--ranks " + std::to_string(ranks) + ": this machine has " +
                                std::to_string(gpus) + " GPUs, NCCL needs one per rank");
  }
  if (ranks == 1) {
    run.add_note(
        "one rank: every collective is a local copy and busbw is 0 or meaningless; "
        "run on 2 or more GPUs");
  }
  std::printf("# lab04_bench: %d ranks, one per GPU, in place, float32, sum\n", ranks);
  std::printf("# %12s %12s %18s %10s %12s %12s %8s\n", "size(B)", "count", "collective", "time(us)",
              "algbw(GB/s)", "busbw(GB/s)", "#wrong");
  const Collective collectives[] = {Collective::all_reduce, Collective::all_gather,
                                    Collective::reduce_scatter, Collective::broadcast};
  for (const std::uint64_t bytes : kSizes) {
    for (int version = 0; version < 6; ++version) {
      const bool ring = version >= 4;
      const harness::CommKind kind =
          version == 5 ? harness::CommKind::simulated : harness::CommKind::nccl;
      const char* ring_version = version == 5 ? "ring_copy_engines" : "ring_nccl_p2p";
      const Collective which = ring ? Collective::all_reduce : collectives[version];
      // `bytes` is the larger buffer's size (nccl-tests' convention).
      const std::size_t blocks = std::max(cudalab::comm::send_elements(which, 1, ranks),
                                          cudalab::comm::recv_elements(which, 1, ranks));
      const std::size_t count = bytes / sizeof(float) / blocks;
      if (count == 0) continue;
      const cudalab::harness::TimedCollective timed =
          backend->time_collective(which, ring ? &harness::entry::ring_all_reduce : nullptr, kind,
                                   ranks, count, run.repeats());
      const double s =
          backend->call(harness::entry::message_bytes, which, count, sizeof(float), ranks);
      const std::string label = ring ? ring_version : cudalab::comm::to_string(which);
      add_busbw(run, *backend, which, ranks, bytes, s, count, timed.ms, timed.wrong, label,
                ring ? ring_version : "nccl");
      if (timed.wrong > 0) {
        run.add_note(std::string("busbw_") + cudalab::comm::to_string(which) +
                     (ring ? std::string(" (") + ring_version + ")" : "") + " at " +
                     std::to_string(bytes) + " bytes: " + std::to_string(timed.wrong) +
                     " wrong elements");
      }
    }
  }
  add_pytorch(run, *backend, ranks);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::harness::bench_main(argc, argv, "lab04_bench", "04_nccl", bench);
}
