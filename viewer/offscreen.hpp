// A framebuffer object to render the screenshot mode into, so a screenshot
// does not depend on a visible window (or on the window fitting the screen).
#pragma once

#include "model/png_image.hpp"

namespace cudalab::viewer {

class OffscreenTarget {
 public:
  OffscreenTarget(int width, int height);  // needs a current GL 3 context
  ~OffscreenTarget();
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;

  void bind() const;
  Image read() const;  // the rendered pixels, top row first

 private:
  int width_, height_;
  unsigned framebuffer_ = 0, colour_ = 0;
};

}  // namespace cudalab::viewer
