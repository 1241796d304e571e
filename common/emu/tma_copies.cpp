// The bulk tensor copies of the emulator's TMA (cudalab/emu/tma.hpp): a load
// gathers the box from global memory when issued (out-of-bounds elements
// filled), places it in shared memory as the swizzle mode says
// (cudalab/tma_swizzle.hpp) and lands it late on its mbarrier, as
// cp.async.bulk does (mbarrier.cpp); a store scatters the box back, skipping
// out-of-bounds elements except those past the end of a row that share its
// last 16 bytes (an H100 writes those too). Both are checked and traced as
// the issuing thread's accesses: a load reads only the global bytes inside
// the tensor, a row of the box at a time. What an H100 does was measured on
// 2026-12-07 (tests/emu/test_tma.cpp): a load whose dimension-0 coordinate
// is not on a 16-byte boundary faults (illegal instruction), and a swizzled
// box whose rows are narrower than the span has each row padded to the span
// (the padding left as it was, only the elements counted as transaction
// bytes).
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <numeric>
#include <sstream>
#include <vector>

#include "block_run.hpp"
#include "cluster_model.hpp"
#include "cudalab/emu/cooperative_groups_cluster.hpp"
#include "cudalab/emu/tma.hpp"
#include "cudalab/tma_swizzle.hpp"
#include "mbarrier_model.hpp"
#include "tensor_map_model.hpp"

namespace cudalab::emu::detail {
namespace {

// PTX: a tile-mode bulk tensor copy's shared-memory box is 128-byte aligned.
constexpr std::uintptr_t kSharedBoxAlignment = 128;

[[noreturn]] void fail(BlockRun& run, ReportKind kind, const std::string& what,
                       const std::source_location& site,
                       cudaError_t error = cudaErrorLaunchFailure) {
  run.report(kind, current_thread->linear, what, &site, error);
  run.abort_block();
}

// An H100 faults on a load whose box starts off a 16-byte boundary along
// dimension 0 (cudaErrorIllegalInstruction, 2026-12-07).
void check_first_coordinate(BlockRun& run, const TensorMapDescription& d, const int* coordinates,
                            const char* operation, const std::source_location& site) {
  const std::int64_t start = std::int64_t{coordinates[0]} * d.element_bytes;
  if (start % 16 == 0) return;
  std::ostringstream what;
  what << operation << " at dimension-0 coordinate " << coordinates[0] << ": " << coordinates[0]
       << " x " << int{d.element_bytes} << " bytes is not a multiple of 16, and the GPU faults "
       << "on a box that does not start on a 16-byte boundary (illegal instruction): start "
          "boxes at multiples of "
       << 16 / std::gcd(16, int{d.element_bytes}) << " elements along dimension 0";
  fail(run, ReportKind::misaligned_address, what.str(), site, cudaErrorIllegalInstruction);
}

BlockRun& current_run() {
  BlockRun* run = current_thread->run;
  if (!run) throw std::logic_error("a bulk tensor copy used outside a kernel");
  return *run;
}

TensorMapDescription description_of(BlockRun& run, const CUtensorMap* map, int rank,
                                    const char* operation, const std::source_location& site) {
  TensorMapDescription d{};
  std::memcpy(&d, map, sizeof d);
  std::ostringstream what;
  if (d.magic != kTensorMapMagic) {
    what << operation << " with the CUtensorMap at " << hex(reinterpret_cast<std::uintptr_t>(map))
         << ", which cuTensorMapEncodeTiled did not make (uninitialised or overwritten): encode "
            "it on the host and pass it as a `const __grid_constant__ CUtensorMap` parameter";
    fail(run, ReportKind::tensor_map, what.str(), site);
  }
  if (d.rank != rank) {
    what << operation << " of a " << rank << "-D box with a tensor map of rank " << int{d.rank}
         << ": the instruction's dimension must be the map's";
    fail(run, ReportKind::tensor_map, what.str(), site);
  }
  return d;
}

// The box's elements along each dimension (ceil(boxDim / elementStride)),
// and how it lies in shared memory: a row (dimension 0) every `pitch` bytes,
// its own width or, under a swizzle, at least the span.
struct BoxShape {
  std::array<std::uint32_t, kMaxTensorRank> count{};
  std::size_t bytes = 0;  // the elements'
  std::size_t row_bytes = 0;
  std::size_t pitch = 0;
  std::size_t shared_bytes = 0;  // rows x pitch
  // Where the element `offset` bytes into the dense box goes before swizzling.
  std::size_t placed(std::size_t offset) const {
    return offset / row_bytes * pitch + offset % row_bytes;
  }
};

BoxShape shape_of(const TensorMapDescription& d) {
  BoxShape s;
  std::size_t elements = 1;
  for (int i = 0; i < d.rank; ++i) {
    s.count[i] = (d.box[i] + d.element_strides[i] - 1u) / d.element_strides[i];
    elements *= s.count[i];
  }
  s.bytes = elements * d.element_bytes;
  s.row_bytes = std::size_t{s.count[0]} * d.element_bytes;
  s.pitch = std::max<std::size_t>(s.row_bytes, d.swizzle_span);
  s.shared_bytes = elements / s.count[0] * s.pitch;
  return s;
}

void check_shared_box(BlockRun& run, std::uintptr_t box, std::size_t bytes, const char* operation,
                      const std::source_location& site) {
  std::ostringstream what;
  if (box - run.shared_low >= run.shared_bytes || box - run.shared_low + bytes > run.shared_bytes) {
    what << operation << " of a " << bytes << "-byte box at " << hex(box)
         << ", which is not inside the block's shared memory";
    fail(run, ReportKind::tensor_map, what.str(), site);
  }
  if ((box - run.shared_low) % kSharedBoxAlignment != 0) {
    what << operation << " with its shared-memory box at " << hex(box) << " (shared offset "
         << box - run.shared_low << "), which is not 128-byte aligned as the box must be "
         << "(__align__(128), or __align__(1024) for the 128-byte swizzle to start its pattern "
            "at the box)";
    fail(run, ReportKind::misaligned_address, what.str(), site);
  }
}

// Calls visit(global element address or 0 when out of bounds, byte offset of
// the element in the box before swizzling, dimension-0 index, the address
// or 0 as a store sees it) for every element of the box at `coordinates`,
// dimension 0 fastest. A store also reaches the elements past the end of a
// row that lie in the row's last 16 bytes.
template <class Visit>
void for_each_element(const TensorMapDescription& d, const BoxShape& shape, const int* coordinates,
                      Visit visit) {
  std::array<std::uint32_t, kMaxTensorRank> index{};
  std::size_t offset = 0;
  const std::uint64_t stored_row_elements =
      (d.dims[0] * d.element_bytes + 15) / 16 * 16 / d.element_bytes;
  while (true) {
    bool inside = true, stored = true;
    std::uint64_t address = d.global_address;
    for (int i = 0; i < d.rank; ++i) {
      const std::int64_t c =
          std::int64_t{coordinates[i]} + std::int64_t{index[i]} * d.element_strides[i];
      if (c < 0 || static_cast<std::uint64_t>(c) >= d.dims[i]) inside = false;
      if (c < 0 || static_cast<std::uint64_t>(c) >= (i == 0 ? stored_row_elements : d.dims[i])) {
        stored = false;
      }
      address += static_cast<std::uint64_t>(c) * d.strides[i];
    }
    visit(inside ? address : 0, offset, index[0], stored ? address : 0);
    offset += d.element_bytes;
    int i = 0;
    while (i < d.rank && ++index[i] == shape.count[i]) index[i++] = 0;
    if (i == d.rank) return;
  }
}

// Traces `bytes` at `address` as the issuing thread's, in aligned pieces of
// at most 16 bytes (the GPU's widest access).
void observe(std::uintptr_t address, std::size_t bytes, unsigned flags, const void* pc) {
  const std::uintptr_t end = address + bytes;
  while (address < end) {
    std::size_t piece = 16;
    while (piece > 1 && ((address & (piece - 1)) || address + piece > end)) piece /= 2;
    observe_access(reinterpret_cast<const void*>(address), piece, flags, pc);
    address += piece;
  }
}

// A multicast box whose rows are padded to the swizzle span: each block's
// padding would have to stay its own, which the staged copy does not model.
void check_multicast_rows(BlockRun& run, const BoxShape& shape, const char* operation,
                          const std::source_location& site) {
  if (shape.pitch == shape.row_bytes) return;
  std::ostringstream what;
  what << operation << " of a box with " << shape.row_bytes << "-byte rows padded to the "
       << shape.pitch << "-byte swizzle span: not modelled for multicast; make the box's "
       << "dimension 0 span the whole " << shape.pitch << " bytes, or use a narrower swizzle";
  fail(run, ReportKind::tensor_map, what.str(), site);
}

// An out-of-bounds element of a load: zero, or a quiet NaN of the element's
// type with CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA.
void fill(const TensorMapDescription& d, std::byte* element) {
  std::memset(element, 0, d.element_bytes);
  if (!d.fill_nan) return;
  if (d.data_type == CU_TENSOR_MAP_DATA_TYPE_FLOAT16) {
    const std::uint16_t nan = 0x7e00;
    std::memcpy(element, &nan, 2);
  } else if (d.data_type == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16) {
    const std::uint16_t nan = 0x7fc0;
    std::memcpy(element, &nan, 2);
  } else if (d.element_bytes == 4) {
    const std::uint32_t nan = 0x7fc00000;
    std::memcpy(element, &nan, 4);
  } else {
    const std::uint64_t nan = 0x7ff8000000000000;
    std::memcpy(element, &nan, 8);
  }
}

// Where the element `offset` bytes into the dense box goes, from the box's start.
std::size_t swizzled(const BlockRun& run, std::uintptr_t box, const BoxShape& shape,
                     std::size_t offset, unsigned span) {
  const auto shared = static_cast<std::uint32_t>(box - run.shared_low);
  return tma_swizzled_address(shared + static_cast<std::uint32_t>(shape.placed(offset)), span) -
         shared;
}

// The box of a load at `coordinates`, gathered from global memory and placed
// as the swizzle says, its global reads traced as the issuing thread's; with
// `sectors` (a recording), the 32-byte global sectors it read.
std::shared_ptr<std::vector<std::byte>> gather_box(BlockRun& run, const TensorMapDescription& d,
                                                   const int* coordinates, std::uintptr_t box,
                                                   const char* operation, const void* pc,
                                                   const std::source_location& site,
                                                   std::vector<std::uint64_t>* sectors) {
  const BoxShape shape = shape_of(d);
  check_shared_box(run, box, shape.shared_bytes, operation, site);
  check_first_coordinate(run, d, coordinates, operation, site);
  auto staged = std::make_shared<std::vector<std::byte>>(shape.shared_bytes);
  // Padded rows: the padding lands as it is now, unchanged.
  if (shape.pitch != shape.row_bytes) {
    std::memcpy(staged->data(), reinterpret_cast<const void*>(box), shape.shared_bytes);
  }
  const bool checking = checking_an_access;
  checking_an_access = false;                 // these accesses are the kernel's
  std::uintptr_t run_start = 0, run_end = 0;  // global bytes of the row read so far
  for_each_element(
      d, shape, coordinates,
      [&](std::uint64_t address, std::size_t offset, std::uint32_t column, std::uint64_t) {
        const std::size_t to = swizzled(run, box, shape, offset, d.swizzle_span);
        std::byte* element = staged->data() + to;
        if (address == 0) {
          fill(d, element);
        } else {
          std::memcpy(element, reinterpret_cast<const void*>(address), d.element_bytes);
          if (sectors) [[unlikely]]
            sectors->push_back(address / 32);
        }
        // One traced read per row of the box inside the tensor.
        if (column == 0 || address != run_end) {
          if (run_end != run_start) observe(run_start, run_end - run_start, kRead, pc);
          run_start = run_end = address;
        }
        if (address != 0) run_end += d.element_bytes;
      });
  if (run_end != run_start) observe(run_start, run_end - run_start, kRead, pc);
  checking_an_access = checking;
  return staged;
}

// Traces the box's write into shared memory (the block's own, or a peer's
// through distributed shared memory) as the issuing thread's.
void observe_box_write(std::uintptr_t box, std::size_t bytes, const void* pc) {
  const bool checking = checking_an_access;
  checking_an_access = false;  // these accesses are the kernel's
  observe(box, bytes, kWrite, pc);
  checking_an_access = checking;
}

// The copy as the recording keeps it (TmaCopyRecord), without its sectors.
TmaCopyRecord copy_record(const BlockRun& run, const TensorMapDescription& d,
                          const int* coordinates, std::uintptr_t box, bool is_store) {
  TmaCopyRecord r;
  r.block = static_cast<std::uint32_t>(run.info.block_linear);
  r.order = static_cast<std::uint32_t>(run.async_events.size());
  r.thread = static_cast<std::uint16_t>(current_thread->linear);
  r.is_store = is_store;
  r.rank = d.rank;
  r.element_bytes = d.element_bytes;
  r.swizzle_bytes = d.swizzle_span;
  for (int i = 0; i < d.rank; ++i) {
    r.box[i] = d.box[i];
    r.coordinates[i] = coordinates[i];
  }
  r.shared_offset = static_cast<std::uint32_t>(box - run.shared_low);
  return r;
}

// Sorted, without repeats.
std::vector<std::uint64_t> distinct(std::vector<std::uint64_t> sectors) {
  std::sort(sectors.begin(), sectors.end());
  sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
  return sectors;
}

}  // namespace
}  // namespace cudalab::emu::detail

namespace cudalab::emu {

using namespace detail;

void tensor_load(void* destination, const CUtensorMap* map, int rank, const int* coordinates,
                 std::uint64_t* barrier, const void* pc, const std::source_location& site) {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = detail::current_run();
  const char* operation = "cp.async.bulk.tensor (load)";
  const TensorMapDescription d = description_of(run, map, rank, operation, site);
  const auto box = reinterpret_cast<std::uintptr_t>(destination);
  std::vector<std::uint64_t> sectors;  // a recording's only
  auto staged =
      gather_box(run, d, coordinates, box, operation, pc, site, run.recording ? &sectors : nullptr);
  observe_box_write(box, staged->size(), pc);
  const std::size_t transaction_bytes = shape_of(d).bytes;
  if (!run.recording) [[likely]] {
    staged_copy_on_barrier(run, destination, std::move(staged), barrier, site, {},
                           transaction_bytes);
    return;
  }
  TmaCopyRecord record = copy_record(run, d, coordinates, box, false);
  record.global_sectors = distinct(std::move(sectors));
  record.copy = staged_copy_on_barrier(run, destination, std::move(staged), barrier, site, {},
                                       transaction_bytes);
  run.tma_copies.push_back(std::move(record));
}

void tensor_load_multicast(void* destination, const CUtensorMap* map, int rank,
                           const int* coordinates, std::uint64_t* barrier, std::uint16_t cta_mask,
                           const void* pc, const std::source_location& site) {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = detail::current_run();
  const char* operation = "cp.async.bulk.tensor (multicast load)";
  const TensorMapDescription d = description_of(run, map, rank, operation, site);
  if (cta_mask == 0) {
    fail(run, ReportKind::tensor_map,
         std::string(operation) + " with a ctaMask of 0: no block would receive the box", site);
  }
  const auto box = reinterpret_cast<std::uintptr_t>(destination);
  check_multicast_rows(run, shape_of(d), operation, site);
  const std::shared_ptr<const std::vector<std::byte>> staged =
      gather_box(run, d, coordinates, box, operation, pc, site, nullptr);
  // The same shared offset, and the mbarrier at the same offset, in every
  // block of the mask (map_shared_rank reports a rank outside the cluster).
  for (unsigned r = 0; r < 16; ++r) {
    if (!(cta_mask & (1u << r))) continue;
    auto* to = static_cast<std::byte*>(detail::map_shared_rank(destination, r, site));
    auto* bar = static_cast<std::uint64_t*>(detail::map_shared_rank(barrier, r, site));
    observe_box_write(reinterpret_cast<std::uintptr_t>(to), staged->size(), pc);
    if (!run.cluster || r == run.cluster_rank) {
      staged_copy_on_barrier(run, to, staged, bar, site);
    } else {
      post_peer_copy(run, r, reinterpret_cast<std::uintptr_t>(to), staged,
                     reinterpret_cast<std::uintptr_t>(bar), site);
    }
  }
}

void tensor_store(const CUtensorMap* map, int rank, const int* coordinates, const void* source,
                  const void* pc, const std::source_location& site) {
  const CheckingAnAccess scope;  // the emulator's own strings are not the kernel's
  BlockRun& run = detail::current_run();
  const char* operation = "cp.async.bulk.tensor (store)";
  const TensorMapDescription d = description_of(run, map, rank, operation, site);
  const BoxShape shape = shape_of(d);
  const auto box = reinterpret_cast<std::uintptr_t>(source);
  check_shared_box(run, box, shape.shared_bytes, operation, site);
  std::vector<std::uint64_t> sectors;  // recording only
  const bool checking = checking_an_access;
  checking_an_access = false;  // these accesses are the kernel's
  for_each_element(d, shape, coordinates,
                   [&](std::uint64_t, std::size_t offset, std::uint32_t, std::uint64_t address) {
                     if (address == 0) return;  // outside the tensor: not written
                     if (run.recording) [[unlikely]]
                       sectors.push_back(address / 32);
                     const std::uintptr_t from =
                         box + swizzled(run, box, shape, offset, d.swizzle_span);
                     observe(from, d.element_bytes, kRead, pc);
                     observe(address, d.element_bytes, kWrite, pc);
                     std::memcpy(reinterpret_cast<void*>(address),
                                 reinterpret_cast<const void*>(from), d.element_bytes);
                   });
  checking_an_access = checking;
  if (run.recording) [[unlikely]] {
    run.tma_copies.push_back(copy_record(run, d, coordinates, box, true));
    run.tma_copies.back().global_sectors = distinct(std::move(sectors));
  }
}

}  // namespace cudalab::emu
