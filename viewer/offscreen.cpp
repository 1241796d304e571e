#include "offscreen.hpp"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>

#include <algorithm>
#include <stdexcept>

namespace cudalab::viewer {

OffscreenTarget::OffscreenTarget(int width, int height) : width_(width), height_(height) {
  glGenFramebuffers(1, &framebuffer_);
  glGenRenderbuffers(1, &colour_);
  glBindRenderbuffer(GL_RENDERBUFFER, colour_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour_);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    throw std::runtime_error("cannot create an offscreen framebuffer for the screenshot");
}

OffscreenTarget::~OffscreenTarget() {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteRenderbuffers(1, &colour_);
  glDeleteFramebuffers(1, &framebuffer_);
}

void OffscreenTarget::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  glViewport(0, 0, width_, height_);
}

Image OffscreenTarget::read() const {
  Image image{width_, height_, std::vector<std::uint8_t>(std::size_t(width_) * height_ * 4)};
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, image.rgba.data());
  // OpenGL's first row is the bottom one; PNG's is the top.
  const std::size_t stride = std::size_t(width_) * 4;
  for (int y = 0; y < height_ / 2; ++y)
    std::swap_ranges(image.rgba.begin() + y * stride, image.rgba.begin() + (y + 1) * stride,
                     image.rgba.begin() + (height_ - 1 - y) * stride);
  for (std::size_t i = 3; i < image.rgba.size(); i += 4) image.rgba[i] = 255;  // opaque
  return image;
}

}  // namespace cudalab::viewer
