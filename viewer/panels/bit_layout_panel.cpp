// Bit layout: one value in fp32, TF32 (three roundings), bf16 and fp16, a row
// of bit cells per format coloured by field (sign, exponent, mantissa), the
// input bits the conversion dropped in red after them, and under each row
// what the pattern decodes to and how far that is from the input.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "imgui_colours.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

constexpr ImU32 kBitText = IM_COL32(25, 25, 30, 255);
constexpr ImU32 kFlagText = IM_COL32(255, 150, 90, 255);

void set_value(UiState& state, float value) {
  std::uint32_t bits;
  static_assert(sizeof bits == sizeof value);
  std::memcpy(&bits, &value, sizeof bits);
  state.bit_layout.typed_error.clear();
  if (!set_lab_parameter(state, "value_bits", bits))
    state.bit_layout.typed_error = "this lab has no value_bits parameter";
}

void value_entry(UiState& state) {
  BitLayoutState& b = state.bit_layout;
  char text[64];
  std::snprintf(text, sizeof text, "%s", b.typed.c_str());
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
  const bool entered = ImGui::InputTextWithHint("value", "1e-6, 65520, nan, 0x3f801000", text,
                                                sizeof text, ImGuiInputTextFlags_EnterReturnsTrue);
  b.typed = text;
  ImGui::SameLine();
  if (ImGui::Button("show") || entered) {
    if (const auto value = parse_value(b.typed))
      set_value(state, *value);
    else
      b.typed_error = "'" + b.typed + "' is not a number (try 1e-6, -2.5, nan or 0x3f801000)";
  }
  struct Example {
    const char* label;
    float value;
  };
  static constexpr Example kExamples[] = {{"1 + 2^-11", 1.00048828125f},
                                          {"1 + 3*2^-12", 1.000732421875f},
                                          {"0.1", 0.1f},
                                          {"65520", 65520.0f},
                                          {"1e-6", 1e-6f},
                                          {"3e38", 3e38f},
                                          {"nan", NAN}};
  for (const Example& e : kExamples) {
    ImGui::SameLine();
    if (ImGui::SmallButton(e.label)) set_value(state, e.value);
  }
  if (!b.typed_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kErrorText);
    ImGui::TextWrapped("%s", b.typed_error.c_str());
    ImGui::PopStyleColor();
  }
}

void legend() {
  const float font = ImGui::GetFontSize();
  const std::pair<BitField, const char*> fields[] = {{BitField::kSign, "sign"},
                                                     {BitField::kExponent, "exponent"},
                                                     {BitField::kMantissa, "mantissa"},
                                                     {BitField::kDropped, "dropped by rounding"}};
  for (const auto& [field, name] : fields) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + font * 0.2f),
                                              ImVec2(p.x + font * 0.8f, p.y + font),
                                              to_imgui(field_colour(field)));
    ImGui::Dummy(ImVec2(font * 0.8f, font));
    ImGui::SameLine();
    ImGui::TextUnformatted(name);
    ImGui::SameLine(0, font);
  }
  ImGui::NewLine();
}

// One format: its name, its cells, then two lines of what they mean.
Rect format_row(const FormatBits& f, float label_width, float cell) {
  const float font = ImGui::GetFontSize();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float row_h = cell * 1.3f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddText(ImVec2(origin.x, origin.y + (row_h - font) / 2), ImGui::GetColorU32(ImGuiCol_Text),
              f.name.c_str());
  const float x0 = origin.x + label_width;
  for (int i = 0; i < f.cells(); ++i) {
    const float x = x0 + float(cell_offset(f, i)) * cell;
    dl->AddRectFilled(ImVec2(x, origin.y), ImVec2(x + cell - 1, origin.y + row_h),
                      to_imgui(field_colour(f.field(i))));
    const char digit[2] = {char('0' + f.bit(i)), 0};
    const ImVec2 size = ImGui::CalcTextSize(digit);
    dl->AddText(ImVec2(x + (cell - 1 - size.x) / 2, origin.y + (row_h - size.y) / 2), kBitText,
                digit);
  }
  const Rect drawn{x0, origin.y, x0 + float(row_extent(f)) * cell, origin.y + row_h};
  ImGui::Dummy(ImVec2(label_width + float(row_extent(f)) * cell, row_h));

  ImGui::SetCursorScreenPos(ImVec2(x0, ImGui::GetCursorScreenPos().y));
  ImGui::Text("= %s   (%s, 0x%0*x)", format_value(f.decoded).c_str(),
              to_string(f.value_class).c_str(), (f.width() + 3) / 4, f.bits);
  const bool flagged = f.overflowed || f.flushed || f.value_class == ValueClass::kNaN ||
                       f.value_class == ValueClass::kSubnormal;
  if (flagged) {
    ImGui::SameLine();
    const char* flag = f.overflowed                        ? "OVERFLOW"
                       : f.flushed                         ? "UNDERFLOW to zero"
                       : f.value_class == ValueClass::kNaN ? "NaN"
                                                           : "SUBNORMAL: fewer significant bits";
    ImGui::PushStyleColor(ImGuiCol_Text, kFlagText);
    ImGui::TextUnformatted(flag);
    ImGui::PopStyleColor();
  }
  ImGui::SetCursorScreenPos(ImVec2(x0, ImGui::GetCursorScreenPos().y));
  ImGui::PushStyleColor(ImGuiCol_Text, kMutedText);
  ImGui::TextUnformatted(describe(f).c_str());
  ImGui::PopStyleColor();
  ImGui::Spacing();
  return drawn;
}

}  // namespace

void draw_bit_layout_panel(UiState& state) {
  state.layout.bit_rows.clear();
  value_entry(state);
  const bool said = unfinished_message(state, Panel::kBitLayout);
  if (!state.bits) {
    if (!said) ImGui::TextUnformatted("No value shown yet: press Run.");
    return;
  }
  const BitLayout& layout = *state.bits;
  ImGui::Text("input: %s (fp32 bits 0x%08x)", format_value(layout.input).c_str(),
              layout.input_bits);
  legend();
  lab_note(state, View::kBitLayout);
  ImGui::Spacing();

  const float font = ImGui::GetFontSize();
  const float label_width = font * 9;
  double widest = 1;
  for (const FormatBits& f : layout.formats) widest = std::max(widest, row_extent(f));
  const float avail = ImGui::GetContentRegionAvail().x - label_width;
  const float cell = std::clamp(float(avail / widest), font * 0.9f, font * 1.4f);
  for (const FormatBits& f : layout.formats)
    state.layout.bit_rows.push_back(format_row(f, label_width, cell));
}

}  // namespace cudalab::viewer
