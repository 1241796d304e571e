// The model of the hardware's mbarrier and of the async copies completing on
// it (cudalab/emu/mbarrier.hpp), per block.
//
// A barrier's phase completes when its pending arrivals reach 0 and its
// transaction count (bytes announced with expect_tx less bytes completed)
// is 0. Async copies complete late: issued, their destination bytes are
// pending; they land when their barrier's phase can complete and nothing
// else of the block can run (or when a thread's arrival needs the phase
// over first), which is the latest the GPU may land them. A thread waiting
// on a phase that has not completed parks; the phase's completion wakes it.
// Every completion orders the block's accesses before it with those after
// (as a __syncthreads does for the race check), which never reports a race
// the GPU does not have but does not see one between threads that do not
// take part in the barrier.
#include "cudalab/emu/mbarrier.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "block_run.hpp"
#include "mbarrier_model.hpp"

namespace cudalab::emu::detail {
namespace {

constexpr unsigned kMaxArrivals = (1u << 20) - 1;  // PTX's mbarrier count limit

struct Mbarrier {
  std::uintptr_t address = 0;
  std::source_location init_site;
  bool valid = true;
  unsigned count = 0;           // arrivals that complete a phase
  unsigned pending = 0;         // arrivals still missing in the current phase
  std::int64_t tx = 0;          // transaction bytes announced less completed, this phase
  std::uint64_t announced = 0;  // this phase's expect_tx bytes (for reports)
  std::uint64_t completed = 0;  // this phase's completed transaction bytes
  std::uint64_t phase = 0;      // phases completed so far
  std::vector<unsigned> waiters;
};

// A copy in flight: tied to a barrier's current phase, or (barrier -1) to a
// stage of one thread's pipeline.
struct InFlightCopy {
  std::uintptr_t destination = 0;
  const void* source = nullptr;
  std::size_t bytes = 0;
  int barrier = -1;
  bool counts_tx = false;
  unsigned thread = 0;
  std::uint64_t stage = 0;
  std::uint32_t number = 0;  // in the block's issue order (the recorded events name it)
  std::source_location site;
  // A bulk tensor copy's box, gathered when issued: `source` points into it.
  std::shared_ptr<const std::vector<std::byte>> staged;
  std::string issuer;  // a peer block's thread that multicast it; empty: `thread`
  // The transaction bytes it completes: `bytes`, but a box whose rows are
  // padded to the swizzle span carries its padding unchanged and counts only
  // its elements.
  std::size_t tx_bytes = 0;
};

struct PipelineStages {
  std::uint64_t committed = 0;  // the open stage's number
};

// The block's barriers and copies; a fresh block (another serial) starts empty.
struct BlockAsyncState {
  const BlockRun* run = nullptr;
  std::uint64_t serial = 0;
  std::vector<Mbarrier> barriers;
  std::vector<InFlightCopy> copies;
  std::unordered_map<unsigned, PipelineStages> pipelines;
  std::uint32_t copies_issued = 0;
};

thread_local BlockAsyncState block_state;

BlockAsyncState& state_of(BlockRun& run) {
  if (block_state.run != &run || block_state.serial != run.serial) {
    block_state.run = &run;
    block_state.serial = run.serial;
    block_state.barriers.clear();
    block_state.copies.clear();
    block_state.pipelines.clear();
    block_state.copies_issued = 0;
  }
  return block_state;
}

BlockRun& current_run() {
  BlockRun* run = current_thread->run;
  if (!run) throw std::logic_error("an mbarrier or async copy used outside a kernel");
  return *run;
}

// True while copies land because nothing of the block can run: what that
// brings about is no thread's doing, whichever fiber happens to be parking.
thread_local bool landing_while_idle = false;

// Appends an event to the block's async trace; called only while recording.
[[gnu::cold]] void trace(BlockRun& run, AsyncEventKind kind, int barrier, std::uint64_t phase,
                         std::uint64_t bytes, const std::source_location* site,
                         std::uint32_t copy = 0, std::uintptr_t destination = 0) {
  AsyncEvent e;
  e.block = static_cast<std::uint32_t>(run.info.block_linear);
  e.order = static_cast<std::uint32_t>(run.async_events.size());
  e.kind = kind;
  e.thread = landing_while_idle ? kNoThread : static_cast<std::uint16_t>(current_thread->linear);
  e.barrier = barrier;
  e.phase = phase;
  e.bytes = bytes;
  e.copy = copy;
  e.shared_offset = destination ? static_cast<std::uint32_t>(destination - run.shared_low) : 0;
  run.async_events.push_back(e);
  run.async_sites.push_back(site ? SiteRef(*site) : SiteRef());
}

std::string describe(const BlockRun& run, const Mbarrier& b) {
  std::ostringstream s;
  s << "the mbarrier at " << hex(b.address) << " (shared offset " << b.address - run.shared_low
    << ", initialised at " << format_site(b.init_site) << " with count " << b.count << ")";
  return s.str();
}

[[noreturn]] void fail(BlockRun& run, const std::string& what, const std::source_location& site) {
  run.report(ReportKind::mbarrier, current_thread->linear, what, &site, cudaErrorLaunchFailure);
  run.abort_block();
}

bool in_shared(const BlockRun& run, const void* p, std::size_t bytes) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return a - run.shared_low < run.shared_bytes && a - run.shared_low + bytes <= run.shared_bytes;
}

// The live barrier at `word`; an operation on anything else stops the block.
int barrier_index(BlockRun& run, BlockAsyncState& s, const std::uint64_t* word,
                  const char* operation, const std::source_location& site) {
  const auto a = reinterpret_cast<std::uintptr_t>(word);
  for (std::size_t i = 0; i < s.barriers.size(); ++i) {
    if (s.barriers[i].address != a) continue;
    if (s.barriers[i].valid) return static_cast<int>(i);
    fail(run,
         std::string(operation) + " on " + describe(run, s.barriers[i]) +
             " after mbarrier.inval: initialise it again before using it",
         site);
  }
  fail(run,
       std::string(operation) + " on " + hex(a) +
           ", where no mbarrier was initialised in this block (mbarrier.init, or init() of a "
           "cuda::barrier, must come first, and a __syncthreads() between it and other "
           "threads' use)",
       site);
}

bool has_copies(const BlockAsyncState& s, int barrier) {
  return std::any_of(s.copies.begin(), s.copies.end(),
                     [&](const InFlightCopy& c) { return c.barrier == barrier; });
}

void land(BlockRun& run, const InFlightCopy& c) {
  if (run.recording) [[unlikely]] {
    // The phase it completes on, or its cuda::pipeline stage.
    const std::uint64_t phase =
        c.barrier < 0 ? c.stage : state_of(run).barriers[std::size_t(c.barrier)].phase;
    trace(run, AsyncEventKind::copy_land, c.barrier, phase, c.bytes, nullptr, c.number,
          c.destination);
  }
  std::memcpy(reinterpret_cast<void*>(c.destination), c.source, c.bytes);
  std::memset(run.shared_written + (c.destination - run.shared_low), 1, c.bytes);
}

// Lands the copies that `keep` selects, in issue order; returns their transaction bytes.
template <class Keep>
std::uint64_t land_where(BlockRun& run, BlockAsyncState& s, Keep keep) {
  std::uint64_t tx_bytes = 0;
  auto out = s.copies.begin();
  for (auto it = s.copies.begin(); it != s.copies.end(); ++it) {
    if (keep(*it)) {
      land(run, *it);
      if (it->counts_tx) tx_bytes += it->tx_bytes;
      --run.async_copies_in_flight;
    } else {
      *out++ = std::move(*it);
    }
  }
  s.copies.erase(out, s.copies.end());
  return tx_bytes;
}

void complete_phase(BlockRun& run, Mbarrier& b) {
  if (run.recording) [[unlikely]] {
    const BlockAsyncState& s = state_of(run);
    trace(run, AsyncEventKind::phase_complete, static_cast<int>(&b - s.barriers.data()), b.phase, 0,
          nullptr);
  }
  ++b.phase;
  b.pending = b.count;
  b.tx = 0;
  b.announced = b.completed = 0;
  run.shadow.next_interval();
  for (unsigned t : b.waiters) run.make_ready(t);
  b.waiters.clear();
}

// Called when every arrival of barrier `i`'s phase is in: its copies land,
// and the phase completes if its transaction bytes are all there.
void finish_phase(BlockRun& run, BlockAsyncState& s, int i) {
  const std::uint64_t landed =
      land_where(run, s, [&](const InFlightCopy& c) { return c.barrier == i; });
  Mbarrier& b = s.barriers[static_cast<std::size_t>(i)];
  b.tx -= static_cast<std::int64_t>(landed);
  b.completed += landed;
  if (b.tx < 0) {
    std::ostringstream what;
    what << "async copies completed " << b.completed << " transaction bytes on " << describe(run, b)
         << " in phase " << b.phase << ", but expect_tx announced only " << b.announced
         << ": on a GPU the phase can complete before the last " << b.completed - b.announced
         << " bytes land";
    run.report(ReportKind::mbarrier, current_thread->linear, what.str(), &b.init_site,
               cudaErrorLaunchFailure);
    b.tx = 0;
  }
  if (b.tx == 0) complete_phase(run, b);
}

// Parks the calling thread until barrier `i` completes the phase it is in.
void park_on(BlockRun& run, BlockAsyncState& s, int i, const std::source_location& site) {
  const unsigned me = current_thread->linear;
  s.barriers[static_cast<std::size_t>(i)].waiters.push_back(me);
  run.extra[me].waiting = Waiting::mbarrier;
  run.extra[me].wait_site = site;
  const std::uint64_t phase = s.barriers[static_cast<std::size_t>(i)].phase;
  if (run.recording) [[unlikely]]
    trace(run, AsyncEventKind::wait_begin, i, phase, 0, &site);
  const bool checking = checking_an_access;
  checking_an_access = false;  // the threads that run meanwhile are checked
  run.park();
  checking_an_access = checking;
  if (run.recording) [[unlikely]]
    trace(run, AsyncEventKind::wait_end, i, phase, 0, &site);
}

void check_destination(BlockRun& run, const void* destination, std::size_t bytes,
                       const std::source_location& site) {
  if (in_shared(run, destination, bytes)) return;
  std::ostringstream what;
  what << "async copy of " << bytes << " bytes to "
       << hex(reinterpret_cast<std::uintptr_t>(destination))
       << ", which is not inside the block's shared memory";
  fail(run, what.str(), site);
}

// A bulk copy needs 16-byte alignment; a cuda::memcpy_async whose size is a
// cuda::aligned_size_t<N> promised N (the GPU copies in N-byte pieces).
void check_alignment(BlockRun& run, const void* destination, const void* source, std::size_t bytes,
                     std::size_t alignment, bool bulk, const std::source_location& site) {
  const auto to = reinterpret_cast<std::uintptr_t>(destination);
  const auto from = reinterpret_cast<std::uintptr_t>(source);
  if (((bytes | to | from) & (alignment - 1)) == 0) return;
  std::ostringstream what;
  what << (bulk ? "cp.async.bulk" : "cuda::memcpy_async") << " of " << bytes << " bytes from "
       << hex(from) << " to " << hex(to);
  if (bulk) {
    what << ": the size must be a multiple of 16 and both addresses 16-byte aligned";
  } else {
    what << " with a size of cuda::aligned_size_t<" << alignment
         << ">: the size and both addresses must be multiples of " << alignment;
  }
  fail(run, what.str(), site);
}

// The copy's accesses as the issuing thread's at `pc`: its reads of global
// memory are bounds- and initialisation-checked, its writes race-checked
// against the block's unordered accesses, in aligned pieces of at most 16 bytes.
void observe_copy(const void* destination, const void* source, std::size_t bytes, const void* pc) {
  const bool checking = checking_an_access;
  checking_an_access = false;  // these accesses are the kernel's
  for (unsigned flags : {kRead, kWrite}) {
    auto p = reinterpret_cast<std::uintptr_t>(flags == kRead ? source : destination);
    const std::uintptr_t end = p + bytes;
    while (p < end) {
      std::size_t piece = 16;
      while (piece > 1 && ((p & (piece - 1)) || p + piece > end)) piece /= 2;
      observe_access(reinterpret_cast<const void*>(p), piece, flags, pc);
      p += piece;
    }
  }
  checking_an_access = checking;
}

}  // namespace

std::uint32_t staged_copy_on_barrier(BlockRun& run, void* destination,
                                     std::shared_ptr<const std::vector<std::byte>> bytes,
                                     std::uint64_t* barrier, const std::source_location& site,
                                     std::string issuer, std::size_t transaction_bytes) {
  BlockAsyncState& s = state_of(run);
  const int i = barrier_index(run, s, barrier, "cp.async.bulk.tensor", site);
  const void* source = bytes->data();
  const std::size_t size = bytes->size();
  const auto to = reinterpret_cast<std::uintptr_t>(destination);
  const std::uint32_t number = s.copies_issued++;
  s.copies.push_back({to, source, size, i, true, current_thread->linear, 0, number, site,
                      std::move(bytes), std::move(issuer),
                      transaction_bytes ? transaction_bytes : size});
  ++run.async_copies_in_flight;
  if (run.recording) [[unlikely]] {
    trace(run, AsyncEventKind::copy_issue, i, s.barriers[std::size_t(i)].phase, size, &site, number,
          to);
  }
  return number;
}

const std::source_location* async_copy_in_flight_over(BlockRun& run, std::uintptr_t address,
                                                      std::size_t bytes) {
  for (const InFlightCopy& c : state_of(run).copies) {
    if (address < c.destination + c.bytes && c.destination < address + bytes) return &c.site;
  }
  return nullptr;
}

void record_async_trace(LaunchState& launch, BlockRun& run) {
  if (run.async_events.empty() && run.tma_copies.empty()) return;
  std::lock_guard lock(launch.mutex);
  for (std::size_t e = 0; e < run.async_events.size(); ++e) {
    AsyncEvent event = run.async_events[e];
    if (run.async_sites[e]) event.site = launch.site_id(run.async_sites[e]);
    launch.async_events.push_back(event);
  }
  for (TmaCopyRecord& copy : run.tma_copies) launch.tma_copies.push_back(std::move(copy));
  // Emptied here, not when a block starts: a launch without a Recording
  // never touches them.
  run.async_events.clear();
  run.async_sites.clear();
  run.tma_copies.clear();
}

void land_async_copies_when_idle(BlockRun& run) {
  const CheckingAnAccess scope;
  landing_while_idle = true;
  struct Reset {
    ~Reset() { landing_while_idle = false; }
  } reset;
  BlockAsyncState& s = state_of(run);
  for (std::size_t i = 0; i < s.barriers.size(); ++i) {
    const int index = static_cast<int>(i);
    if (s.barriers[i].pending == 0 && has_copies(s, index)) finish_phase(run, s, index);
  }
}

bool report_stuck_mbarrier(BlockRun& run) {
  const CheckingAnAccess scope;
  BlockAsyncState& s = state_of(run);
  std::ostringstream what;
  const Mbarrier* first = nullptr;
  // Every barrier with waiters: a missing arrival on one often leaves the
  // threads that would arrive waiting on another.
  for (const Mbarrier& b : s.barriers) {
    if (b.waiters.empty()) continue;
    if (first) what << "; ";
    if (!first) first = &b;
    what << b.waiters.size() << " thread(s) " << thread_list(run, b.waiters) << " wait on "
         << describe(run, b) << " for phase " << b.phase
         << " to complete, which it never can: " << b.count - b.pending << " of its " << b.count
         << " arrivals came";
    if (b.pending != 0) what << " (" << b.pending << " missing)";
    if (b.tx > 0) {
      what << ", and expect_tx announced " << b.announced << " transaction bytes of which "
           << b.completed << " completed (" << b.tx << " never come)";
    }
  }
  if (!first) return false;
  std::vector<unsigned> gone, elsewhere;
  for (unsigned t = 0; t < run.thread_count; ++t) {
    if (run.extra[t].waiting == Waiting::exited) gone.push_back(t);
    if (run.extra[t].waiting == Waiting::barrier || run.extra[t].waiting == Waiting::warp) {
      elsewhere.push_back(t);
    }
  }
  if (!gone.empty()) {
    what << "; " << gone.size() << " thread(s) " << thread_list(run, gone) << " exited";
  }
  if (!elsewhere.empty()) {
    what << "; " << elsewhere.size() << " thread(s) " << thread_list(run, elsewhere)
         << " wait at a __syncthreads() or warp collective";
  }
  what << ". On a GPU the kernel would hang here.";
  const unsigned waiter = first->waiters.front();
  run.report(ReportKind::mbarrier, waiter, what.str(), &run.extra[waiter].wait_site,
             cudaErrorLaunchFailure);
  return true;
}

void check_async_copy_pending(BlockRun& run, std::uintptr_t address, std::size_t bytes,
                              unsigned flags, SiteRef site) {
  const BlockAsyncState& s = state_of(run);
  for (const InFlightCopy& c : s.copies) {
    if (address + bytes <= c.destination || c.destination + c.bytes <= address) continue;
    std::ostringstream what;
    what << ((flags & kWrite) ? "Write" : "Read") << " of " << bytes
         << " bytes of shared memory at " << hex(address)
         << ": bytes an async copy has not completed (the copy of " << c.bytes << " bytes to "
         << hex(c.destination) << " issued at " << format_site(c.site) << " by "
         << (c.issuer.empty() ? thread_id_of(run.info, c.thread).to_string() : c.issuer) << ", ";
    if (c.barrier >= 0) {
      const Mbarrier& b = s.barriers[static_cast<std::size_t>(c.barrier)];
      what << "which completes with phase " << b.phase << " of " << describe(run, b)
           << "); wait for that phase (try_wait.parity, barrier.wait) before touching them";
    } else {
      what << "which completes with stage " << c.stage
           << " of that thread's cuda::pipeline); wait for the stage (consumer_wait) before "
              "touching them, and __syncthreads() after it for other threads";
    }
    Report r;
    r.kind = ReportKind::intra_block_race;
    r.kernel = run.launch->name;
    r.where = thread_id_of(run.info, current_thread->linear);
    r.address = address;
    r.access_bytes = bytes;
    r.is_write = (flags & kWrite) != 0;
    r.message = what.str();
    run.launch->report(std::move(r), cudaSuccess, site);
    return;
  }
}

}  // namespace cudalab::emu::detail

namespace cudalab::emu {

using detail::BlockAsyncState;
using detail::BlockRun;
using detail::CheckingAnAccess;
using detail::current_run;
using detail::current_thread;
using detail::state_of;

void mbarrier_init(std::uint64_t* barrier, unsigned count, const std::source_location& site) {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = current_run();
  BlockAsyncState& s = state_of(run);
  const auto a = reinterpret_cast<std::uintptr_t>(barrier);
  if (!detail::in_shared(run, barrier, sizeof *barrier) || (a & 7)) {
    detail::fail(run,
                 "mbarrier.init at " + detail::hex(a) +
                     ": an mbarrier is an 8-byte aligned 64-bit word of the block's shared memory",
                 site);
  }
  if (count == 0 || count > detail::kMaxArrivals) {
    detail::fail(run,
                 "mbarrier.init with count " + std::to_string(count) +
                     ": the count of arrivals is 1 to 2^20 - 1",
                 site);
  }
  detail::Mbarrier fresh;
  fresh.address = a;
  fresh.init_site = site;
  fresh.count = fresh.pending = count;
  for (detail::Mbarrier& b : s.barriers) {
    if (b.address != a) continue;
    if (b.valid && (!b.waiters.empty() || b.pending != b.count || b.tx != 0)) {
      detail::fail(run,
                   "mbarrier.init again on " + detail::describe(run, b) + " while its phase " +
                       std::to_string(b.phase) +
                       " is under way (arrivals or waiting threads): only one thread "
                       "initialises a barrier, once",
                   site);
    }
    b = fresh;
    if (run.recording) [[unlikely]]
      detail::trace(run, AsyncEventKind::barrier_init, static_cast<int>(&b - s.barriers.data()), 0,
                    count, &site);
    return;
  }
  s.barriers.push_back(fresh);
  if (run.recording) [[unlikely]]
    detail::trace(run, AsyncEventKind::barrier_init, static_cast<int>(s.barriers.size() - 1), 0,
                  count, &site);
}

void mbarrier_inval(std::uint64_t* barrier, const std::source_location& site) {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = current_run();
  BlockAsyncState& s = state_of(run);
  const int i = detail::barrier_index(run, s, barrier, "mbarrier.inval", site);
  detail::Mbarrier& b = s.barriers[static_cast<std::size_t>(i)];
  if (!b.waiters.empty()) {
    detail::fail(run, "mbarrier.inval on " + detail::describe(run, b) + " while threads wait on it",
                 site);
  }
  if (detail::has_copies(s, i)) {
    // Their completion would signal a word that is plain memory again.
    detail::fail(run,
                 "mbarrier.inval on " + detail::describe(run, b) +
                     " while async copies still complete on it: wait for its phase first",
                 site);
  }
  b.valid = false;
}

void mbarrier_expect_tx(std::uint64_t* barrier, std::uint32_t bytes,
                        const std::source_location& site) {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = current_run();
  BlockAsyncState& s = state_of(run);
  detail::Mbarrier& b = s.barriers[static_cast<std::size_t>(
      detail::barrier_index(run, s, barrier, "mbarrier.expect_tx", site))];
  b.tx += bytes;
  b.announced += bytes;
  if (run.recording) [[unlikely]]
    detail::trace(run, AsyncEventKind::expect_tx, static_cast<int>(&b - s.barriers.data()), b.phase,
                  bytes, &site);
}

void mbarrier_complete_tx(std::uint64_t* barrier, std::uint32_t bytes,
                          const std::source_location& site) {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = current_run();
  BlockAsyncState& s = state_of(run);
  const int i = detail::barrier_index(run, s, barrier, "mbarrier.complete_tx", site);
  detail::Mbarrier& b = s.barriers[static_cast<std::size_t>(i)];
  if (run.recording) [[unlikely]]
    detail::trace(run, AsyncEventKind::complete_tx, i, b.phase, bytes, &site);
  b.tx -= bytes;
  b.completed += bytes;
  if (b.pending == 0 && b.tx == 0 && !detail::has_copies(s, i)) detail::complete_phase(run, b);
}

std::uint64_t mbarrier_arrive(std::uint64_t* barrier, std::ptrdiff_t arrivals,
                              std::uint32_t expect_tx_bytes, bool drop,
                              const std::source_location& site) {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = current_run();
  BlockAsyncState& s = state_of(run);
  const int i = detail::barrier_index(run, s, barrier, "mbarrier.arrive", site);
  if (arrivals < 1) {
    detail::fail(run,
                 "arrive(" + std::to_string(arrivals) + ") on " +
                     detail::describe(run, s.barriers[static_cast<std::size_t>(i)]) +
                     ": a thread arrives 1 or more times",
                 site);
  }
  if (s.barriers[static_cast<std::size_t>(i)].pending == 0) {
    // Every arrival of the phase is in and it waits for copies: they land first.
    detail::finish_phase(run, s, i);
  }
  detail::Mbarrier& b = s.barriers[static_cast<std::size_t>(i)];
  if (b.pending == 0) {
    std::ostringstream what;
    what << "mbarrier.arrive on " << detail::describe(run, b) << " in phase " << b.phase
         << ", whose " << b.count << " arrivals are all in while " << b.tx
         << " transaction bytes are still to come: more arrivals than the count";
    detail::fail(run, what.str(), site);
  }
  if (b.pending < static_cast<std::uint64_t>(arrivals)) {
    std::ostringstream what;
    what << "arrive(" << arrivals << ") on " << detail::describe(run, b) << " in phase " << b.phase
         << ", of whose " << b.count << " arrivals " << b.pending
         << " are missing: more arrivals than the count";
    detail::fail(run, what.str(), site);
  }
  if (run.recording) [[unlikely]]
    detail::trace(run, AsyncEventKind::arrive, i, b.phase, expect_tx_bytes, &site);
  b.tx += expect_tx_bytes;
  b.announced += expect_tx_bytes;
  const std::uint64_t token = b.phase;
  b.pending -= static_cast<unsigned>(arrivals);
  if (drop) --b.count;
  if (b.pending == 0 && b.tx == 0 && !detail::has_copies(s, i)) detail::complete_phase(run, b);
  return token;
}

bool mbarrier_wait_token(std::uint64_t* barrier, std::uint64_t token,
                         const std::source_location& site) {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = current_run();
  BlockAsyncState& s = state_of(run);
  const int i = detail::barrier_index(run, s, barrier, "mbarrier wait", site);
  if (s.barriers[static_cast<std::size_t>(i)].phase > token) return true;
  detail::park_on(run, s, i, site);
  return true;
}

bool mbarrier_wait_parity(std::uint64_t* barrier, unsigned parity,
                          const std::source_location& site) {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = current_run();
  BlockAsyncState& s = state_of(run);
  const int i = detail::barrier_index(run, s, barrier, "mbarrier wait", site);
  // The phase of parity `parity` has completed once the current one's parity differs.
  if ((s.barriers[static_cast<std::size_t>(i)].phase & 1u) != (parity & 1u)) return true;
  detail::park_on(run, s, i, site);
  return true;
}

void async_copy_on_barrier(void* destination, const void* source, std::size_t bytes,
                           std::uint64_t* barrier, bool counts_tx, std::size_t alignment,
                           const void* pc, const std::source_location& site) {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = current_run();
  BlockAsyncState& s = state_of(run);
  const int i = detail::barrier_index(run, s, barrier, "async copy", site);
  detail::check_destination(run, destination, bytes, site);
  detail::check_alignment(run, destination, source, bytes, counts_tx ? 16 : alignment, counts_tx,
                          site);
  detail::observe_copy(destination, source, bytes, pc);
  const auto to = reinterpret_cast<std::uintptr_t>(destination);
  const std::uint32_t number = s.copies_issued++;
  s.copies.push_back({to,
                      source,
                      bytes,
                      i,
                      counts_tx,
                      current_thread->linear,
                      0,
                      number,
                      site,
                      nullptr,
                      {},
                      bytes});
  ++run.async_copies_in_flight;
  if (run.recording) [[unlikely]] {
    detail::trace(run, AsyncEventKind::copy_issue, i, s.barriers[std::size_t(i)].phase, bytes,
                  &site, number, to);
  }
}

void pipeline_copy(void* destination, const void* source, std::size_t bytes, std::size_t alignment,
                   const void* pc, const std::source_location& site) {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = current_run();
  BlockAsyncState& s = state_of(run);
  detail::check_destination(run, destination, bytes, site);
  detail::check_alignment(run, destination, source, bytes, alignment, false, site);
  detail::observe_copy(destination, source, bytes, pc);
  const unsigned me = current_thread->linear;
  const auto to = reinterpret_cast<std::uintptr_t>(destination);
  const std::uint64_t stage = s.pipelines[me].committed;
  const std::uint32_t number = s.copies_issued++;
  s.copies.push_back({to, source, bytes, -1, false, me, stage, number, site, nullptr, {}});
  ++run.async_copies_in_flight;
  if (run.recording) [[unlikely]]
    detail::trace(run, AsyncEventKind::copy_issue, -1, stage, bytes, &site, number, to);
}

void pipeline_commit() {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = current_run();
  ++state_of(run).pipelines[current_thread->linear].committed;
}

void pipeline_wait_prior(unsigned keep) {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = current_run();
  BlockAsyncState& s = state_of(run);
  const unsigned me = current_thread->linear;
  const std::uint64_t committed = s.pipelines[me].committed;
  const std::uint64_t done_below = committed > keep ? committed - keep : 0;
  detail::land_where(run, s, [&](const detail::InFlightCopy& c) {
    return c.barrier < 0 && c.thread == me && c.stage < done_below;
  });
}

}  // namespace cudalab::emu
