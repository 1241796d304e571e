// What lab 02's tests share: a bit pattern as text for failure messages, so
// that a student sees the bits that differ, not two decimals that look alike.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace lab02 {

// "0x3f801000" (digits: 4 for fp16/bf16 patterns, 8 for fp32 ones).
inline std::string hex(std::uint32_t bits, int digits = 8) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%0*x", digits, bits);
  return text;
}

}  // namespace lab02
