#include "ring_timeline.hpp"

namespace cudalab::viewer::lab04 {
namespace {

std::string what_it_carried(const Message& m, const MessageLayout& layout) {
  if (const auto chunk = chunk_of(m.src_offset, layout.count, layout.ranks))
    return "chunk " + std::to_string(*chunk);
  return layout.in_place ? "scratch" : "send buffer";
}

std::string short_label(const Message& m, const MessageLayout& layout) {
  std::string carried = "c";
  if (const auto chunk = chunk_of(m.src_offset, layout.count, layout.ranks))
    carried += std::to_string(*chunk);
  else
    carried = layout.in_place ? "scratch" : "send buf";
  return carried + " > r" + std::to_string(m.to);
}

std::string phase_of(const Message& m, const MessageLayout& layout) {
  if (!layout.ring) return kMessageKind;
  return m.step < layout.ranks - 1 ? kReduceScatterKind : kAllGatherKind;
}

std::string hover_text(const Message& m, const MessageLayout& layout) {
  std::string text = "step " + std::to_string(m.step);
  if (layout.ring) text += " (" + phase_of(m, layout) + ")";
  text += ": " + what_it_carried(m, layout);
  if (m.src_offset >= 0)
    text += " (elements " + std::to_string(m.src_offset) + ".." +
            std::to_string(m.src_offset + static_cast<std::int64_t>(m.count) - 1) + ")";
  text += " from rank " + std::to_string(m.from) + " to rank " + std::to_string(m.to) + ", " +
          std::to_string(m.count) + " floats (" + std::to_string(m.count * sizeof(float)) + " B)";
  if (m.dst_offset < 0) text += " into a scratch buffer";
  return text;
}

}  // namespace

std::optional<std::size_t> chunk_of(std::int64_t offset, std::size_t count, int ranks) {
  if (offset < 0 || ranks < 1 || count == 0) return std::nullopt;
  const auto n = static_cast<std::size_t>(ranks);
  const auto at = static_cast<std::size_t>(offset);
  // The largest c with c * count / n <= at; chunks may be empty when count < n.
  std::size_t c = std::min(at * n / count, n - 1);
  while (c + 1 < n && (c + 1) * count / n <= at) ++c;
  while (c > 0 && c * count / n > at) --c;
  return c;
}

Timeline message_timeline(const std::vector<Message>& messages, const MessageLayout& layout,
                          const std::string& title) {
  Timeline timeline;
  timeline.title = title;
  timeline.unit = "step";
  for (int r = 0; r < layout.ranks; ++r) timeline.rows.push_back({"rank " + std::to_string(r), {}});
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    if (m.from < 0 || m.from >= layout.ranks) continue;
    Span span;
    span.name = hover_text(m, layout);
    span.label = short_label(m, layout);
    span.start = m.step;
    span.end = m.step + kBoxOfStep;
    span.kind = phase_of(m, layout);
    span.id = static_cast<int>(i);
    // A ring forwards at step s what it received at step s - 1 (reduced
    // into its own chunk first during the reduce-scatter).
    if (layout.ring)
      for (std::size_t j = 0; j < i; ++j)
        if (messages[j].to == m.from && messages[j].step + 1 == m.step)
          span.after.push_back(static_cast<int>(j));
    timeline.rows[static_cast<std::size_t>(m.from)].spans.push_back(std::move(span));
  }
  return timeline;
}

}  // namespace cudalab::viewer::lab04
