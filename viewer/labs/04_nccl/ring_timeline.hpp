// Lab 04's messages as the viewer's timeline: one row per rank, one box per
// message a rank sent, placed at the sender's step and labelled with the
// chunk it carried and the rank it went to. A ring's reduce-scatter steps
// (0 .. n-2) and all-gather steps (n-1 .. 2n-3) are two kinds, so two
// colours; with arrows on, each send points back to the message that brought
// its rank the data it forwards. No ImGui: unit-tested.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/04_nccl/backend.hpp"
#include "model/timeline_model.hpp"

namespace cudalab::viewer::lab04 {

using ::lab04::harness::Message;

// The chunk holding element `offset` of a buffer of `count` elements split
// among `ranks` as the ring splits it (chunk c: [c*count/n, (c+1)*count/n));
// nullopt for -1 (the data came from outside the recv buffer).
std::optional<std::size_t> chunk_of(std::int64_t offset, std::size_t count, int ranks);

struct MessageLayout {
  int ranks = 1;
  std::size_t count = 0;  // elements per rank (NCCL's count)
  bool in_place = false;  // no separate send buffer: an outside offset is a scratch buffer
  bool ring = true;       // phases as the ring's, and arrows from the message forwarded
};

// Each box spans this much of its step, so that arrows show in the gaps.
inline constexpr double kBoxOfStep = 0.72;
inline constexpr const char* kReduceScatterKind = "reduce-scatter";
inline constexpr const char* kAllGatherKind = "all-gather";
inline constexpr const char* kMessageKind = "message";

// Rows "rank 0" .. "rank n-1" in steps (unit "step"): rank r's message at
// step s is the span [s, s + kBoxOfStep), labelled "c2 > r1" (chunk 2 to
// rank 1; "scratch" or "send buf" for data from outside the recv buffer).
Timeline message_timeline(const std::vector<Message>& messages, const MessageLayout& layout,
                          const std::string& title);

}  // namespace cudalab::viewer::lab04
