// The race checker between streams: two operations that ran on different
// streams with no happens-before edge between them (streams.cpp decides
// that) race when they touch a common byte and one of them writes it.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <set>
#include <sstream>
#include <utility>

#include "engine.hpp"
#include "streams.hpp"

namespace cudalab::emu::detail {

namespace {

std::string hex(std::uintptr_t v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%" PRIxPTR, v);
  return buffer;
}

// The first byte both sorted, merged lists hold; 0 with found = false if none.
std::pair<bool, ByteRange> first_overlap(const std::vector<ByteRange>& a,
                                         const std::vector<ByteRange>& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::uintptr_t lo = std::max(a[i].begin, b[j].begin);
    const std::uintptr_t hi = std::min(a[i].end, b[j].end);
    if (lo < hi) return {true, {lo, hi}};
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return {false, {}};
}

std::string describe(const OperationName& op) {
  std::string s = op.what + " on " + op.stream;
  if (op.call_site) s += ", issued at " + format_site(op.call_site);
  return s;
}

// Each pair of operations (by what they are and where) is reported once per
// run of the queue.
bool first_time(std::set<std::string>& seen, ReportKind kind, const OperationName& a,
                const OperationName& b) {
  return seen.insert(std::to_string(static_cast<int>(kind)) + "|" + describe(a) + "|" + describe(b))
      .second;
}

}  // namespace

void merge_ranges(std::vector<ByteRange>& ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
  std::size_t out = 0;
  for (const ByteRange& r : ranges) {
    if (r.begin >= r.end) continue;
    if (out > 0 && r.begin <= ranges[out - 1].end) {
      ranges[out - 1].end = std::max(ranges[out - 1].end, r.end);
    } else {
      ranges[out++] = r;
    }
  }
  ranges.resize(out);
}

void check_unordered_pair(const OperationName& earlier, const OperationAccesses& earlier_accesses,
                          const OperationName& later, const OperationAccesses& later_accesses,
                          const std::string& schedule, std::set<std::string>& reported) {
  struct Conflict {
    const std::vector<ByteRange>& first;
    const std::vector<ByteRange>& second;
    const char* first_does;
    const char* second_does;
  };
  const Conflict conflicts[] = {
      {earlier_accesses.writes, later_accesses.writes, "writes", "writes"},
      {earlier_accesses.writes, later_accesses.reads, "writes", "reads"},
      {earlier_accesses.reads, later_accesses.writes, "reads", "writes"},
  };
  const Conflict frees[] = {
      {earlier_accesses.frees, later_accesses.writes, "freed", "writes"},
      {earlier_accesses.frees, later_accesses.reads, "freed", "reads"},
      {earlier_accesses.writes, later_accesses.frees, "writes", "frees"},
      {earlier_accesses.reads, later_accesses.frees, "reads", "frees"},
  };
  for (const Conflict& c : frees) {
    auto [found, bytes] = first_overlap(c.first, c.second);
    if (!found) continue;
    if (!first_time(reported, ReportKind::stream_use_after_free, earlier, later)) return;
    Report r;
    r.kind = ReportKind::stream_use_after_free;
    r.kernel = describe(earlier);
    r.second_operation = describe(later);
    r.address = bytes.begin;
    r.access_bytes = bytes.end - bytes.begin;
    r.is_write = true;
    std::ostringstream what;
    what << "Use after free between streams: " << earlier.what << " on " << earlier.stream << " "
         << c.first_does << " and " << later.what << " on " << later.stream << " " << c.second_does
         << " " << r.access_bytes << " bytes at " << hex(r.address)
         << ", and nothing orders the use before the free: the pool may hand the block to "
            "another allocation while it is still in use. Record an event on the using stream "
            "and make the freeing stream wait for it before cudaFreeAsync (what "
            "record_stream makes PyTorch's caching allocator do). They ran in this order under "
            "schedule "
         << schedule << "; another order is as valid.";
    r.message = what.str();
    add_stream_report(std::move(r));
    return;
  }
  for (const Conflict& c : conflicts) {
    auto [found, bytes] = first_overlap(c.first, c.second);
    if (!found) continue;
    if (!first_time(reported, ReportKind::stream_race, earlier, later)) return;
    Report r;
    r.kind = ReportKind::stream_race;
    r.kernel = describe(earlier);
    r.second_operation = describe(later);
    r.address = bytes.begin;
    r.access_bytes = bytes.end - bytes.begin;
    r.is_write = true;
    std::ostringstream what;
    what << "Race between streams: " << earlier.what << " on " << earlier.stream << " "
         << c.first_does << " and " << later.what << " on " << later.stream << " " << c.second_does
         << " " << r.access_bytes << " bytes at " << hex(r.address);
    if (const Allocation* a = find_span(reinterpret_cast<const void*>(bytes.begin));
        a && !a->is_shared_space) {
      r.allocation_base = a->base;
      r.allocation_bytes = a->bytes;
      what << " (offset " << bytes.begin - a->base << " of allocation " << hex(a->base) << ", "
           << a->bytes << " bytes)";
    }
    what << ", and no event or synchronisation orders them (cudaEventRecord + "
            "cudaStreamWaitEvent would). They ran in this order under schedule "
         << schedule << "; another order is as valid.";
    r.message = what.str();
    add_stream_report(std::move(r));
    return;
  }
  if (earlier_accesses.complete && later_accesses.complete) return;
  if (!first_time(reported, ReportKind::stream_race_unchecked, earlier, later)) return;
  Report r;
  r.kind = ReportKind::stream_race_unchecked;
  r.kernel = describe(earlier);
  r.second_operation = describe(later);
  const std::string& why = earlier_accesses.complete ? later_accesses.incomplete_reason
                                                     : earlier_accesses.incomplete_reason;
  r.message = "Not checked for a race between streams: " + earlier.what + " on " + earlier.stream +
              " and " + later.what + " on " + later.stream + " are not ordered, and " + why + ".";
  add_stream_report(std::move(r));
}

}  // namespace cudalab::emu::detail
