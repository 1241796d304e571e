// The race checker between streams: two operations that ran on different
// streams with no happens-before edge between them (stream_model.cpp
// decides that) race when they touch a common byte and one of them writes it.
#include <algorithm>
#include <initializer_list>
#include <set>
#include <sstream>
#include <utility>

#include "engine.hpp"
#include "streams.hpp"

namespace cudalab::emu::detail {

namespace {

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

namespace {

// Which bytes of an unordered pair conflict, and what each did to them.
struct Conflict {
  const std::vector<ByteRange>& first;
  const std::vector<ByteRange>& second;
  const char* first_does;
  const char* second_does;
};

// Reports the first conflict found among `conflicts` as `kind`; the message
// starts with `title` and ends with `advice` (a pair reported before in this
// run of the queue is not reported again). Returns whether a conflict was
// found, and its message through `message`.
bool report_first_conflict(std::string& message, std::initializer_list<Conflict> conflicts,
                           ReportKind kind, const char* title, const char* advice,
                           const OperationName& earlier, const OperationName& later,
                           const std::string& schedule, std::set<std::string>& reported) {
  for (const Conflict& c : conflicts) {
    auto [found, bytes] = first_overlap(c.first, c.second);
    if (!found) continue;
    Report r;
    r.kind = kind;
    r.kernel = describe(earlier);
    r.second_operation = describe(later);
    r.address = bytes.begin;
    r.access_bytes = bytes.end - bytes.begin;
    r.is_write = true;
    std::ostringstream what;
    what << title << ": " << earlier.what << " on " << earlier.stream << " " << c.first_does
         << " and " << later.what << " on " << later.stream << " " << c.second_does << " "
         << r.access_bytes << " bytes at " << hex(r.address);
    if (const Allocation* a = find_span(reinterpret_cast<const void*>(bytes.begin));
        a && !a->is_shared_space) {
      r.allocation_base = a->base;
      r.allocation_bytes = a->bytes;
      what << " (offset " << bytes.begin - a->base << " of allocation " << hex(a->base) << ", "
           << a->bytes << " bytes)";
    }
    what << ", " << advice << " They ran in this order under schedule " << schedule
         << "; another order is as valid.";
    r.message = what.str();
    message = r.message;
    if (first_time(reported, kind, earlier, later)) add_stream_report(std::move(r));
    return true;
  }
  return false;
}

}  // namespace

std::string check_unordered_pair(const OperationName& earlier,
                                 const OperationAccesses& earlier_accesses,
                                 const OperationName& later,
                                 const OperationAccesses& later_accesses,
                                 const std::string& schedule, std::set<std::string>& reported) {
  std::string message;
  const OperationAccesses& e = earlier_accesses;
  const OperationAccesses& l = later_accesses;
  if (report_first_conflict(message,
                            {{e.frees, l.writes, "freed", "writes"},
                             {e.frees, l.reads, "freed", "reads"},
                             {e.writes, l.frees, "writes", "frees"},
                             {e.reads, l.frees, "reads", "frees"}},
                            ReportKind::stream_use_after_free, "Use after free between streams",
                            "and nothing orders the use before the free: the pool may hand the "
                            "block to another allocation while it is still in use. Record an "
                            "event on the using stream and make the freeing stream wait for it "
                            "before cudaFreeAsync (what record_stream makes PyTorch's caching "
                            "allocator do).",
                            earlier, later, schedule, reported)) {
    return message;
  }
  if (report_first_conflict(message,
                            {{e.writes, l.writes, "writes", "writes"},
                             {e.writes, l.reads, "writes", "reads"},
                             {e.reads, l.writes, "reads", "writes"}},
                            ReportKind::stream_race, "Race between streams",
                            "and no event or synchronisation orders them (cudaEventRecord + "
                            "cudaStreamWaitEvent would).",
                            earlier, later, schedule, reported)) {
    return message;
  }
  if (earlier_accesses.complete && later_accesses.complete) return "";
  if (!first_time(reported, ReportKind::stream_race_unchecked, earlier, later)) return "";
  Report r;
  r.kind = ReportKind::stream_race_unchecked;
  r.kernel = describe(earlier);
  r.second_operation = describe(later);
  const std::string& why = earlier_accesses.complete ? later_accesses.incomplete_reason
                                                     : earlier_accesses.incomplete_reason;
  r.message = "Not checked for a race between streams: " + earlier.what + " on " + earlier.stream +
              " and " + later.what + " on " + later.stream + " are not ordered, and " + why + ".";
  add_stream_report(std::move(r));
  return "";  // not a race found: the timeline does not mark it
}

}  // namespace cudalab::emu::detail
