// Internal: what the engine and the access hooks ask of the mbarrier model
// (mbarrier.cpp). A block that uses no mbarrier and no async copy never
// calls any of it: each call sits behind a test of
// BlockRun::async_copies_in_flight or of a thread waiting on an mbarrier.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "block_run.hpp"

namespace cudalab::emu::detail {

// Nothing else of the block can run: the async copies tied to barriers whose
// arrivals are all in land now, and the phases they complete release their
// waiters (the latest moment the GPU could land them, so a read that does
// not wait sees the bytes still pending).
void land_async_copies_when_idle(BlockRun& run);

// A stalled block with threads waiting on an mbarrier: reports which barrier,
// its arrivals and transaction bytes, and who waits. False if no thread waits
// on one (the stall is a __syncthreads or warp one).
bool report_stuck_mbarrier(BlockRun& run);

// A bulk tensor copy (tma_copies.cpp) whose box `bytes` were gathered when
// issued: they land at `destination` late, as a bulk copy's do, completing
// their size in transaction bytes on `barrier`'s current phase. The caller
// has checked and traced the accesses. `issuer`: who issued it when that is
// a peer block's thread (a multicast), for reports; empty: the current thread.
// Returns the copy's number in the block's async events (recording only).
std::uint32_t staged_copy_on_barrier(BlockRun& run, void* destination,
                                     std::shared_ptr<const std::vector<std::byte>> bytes,
                                     std::uint64_t* barrier, const std::source_location& site,
                                     std::string issuer = {}, std::size_t transaction_bytes = 0);

// An async copy of the block in flight (issued, not landed) that writes any
// of the `bytes` at shared address `address`: its site, or null. Asked only
// while BlockRun::async_copies_in_flight is not 0.
const std::source_location* async_copy_in_flight_over(BlockRun& run, std::uintptr_t address,
                                                      std::size_t bytes);

// At the end of a recorded block: hands its async events
// (BlockRun::async_events) and bulk tensor copies to the launch, their sites
// named, and empties them for the worker's next block.
void record_async_trace(LaunchState& launch, BlockRun& run);

// An access by a thread to shared bytes that an async copy has not completed
// yet: an intra_block_race report naming the copy and its barrier's phase.
[[gnu::cold, gnu::noinline]] void check_async_copy_pending(BlockRun& run, std::uintptr_t address,
                                                           std::size_t bytes, unsigned flags,
                                                           SiteRef site);

}  // namespace cudalab::emu::detail
