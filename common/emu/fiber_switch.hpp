// Internal: the two primitives the engine switches fibers with, in the shape
// of Boost.Context's fcontext API: make a context on a stack, and jump to a
// context handing it a pointer (the jump returns whoever jumped back, with
// their pointer).
//
// Boost.Context's assembly switch takes a few nanoseconds; it is used where
// its library is installed. Elsewhere (the GPU machine has Boost's headers
// but not its compiled libraries) the same API is built on POSIX ucontext,
// whose switch also saves the signal mask with a system call: correct, about
// ten times slower per switch.
#pragma once

#include <cstddef>

#if CUDALAB_EMU_BOOST_CONTEXT

#include <boost/context/detail/fcontext.hpp>

namespace cudalab::emu::detail::ctx {
using boost::context::detail::fcontext_t;
using boost::context::detail::jump_fcontext;
using boost::context::detail::make_fcontext;
using boost::context::detail::transfer_t;
}  // namespace cudalab::emu::detail::ctx

#else

namespace cudalab::emu::detail::ctx {

struct UserContext;
using fcontext_t = UserContext*;

struct transfer_t {
  fcontext_t fctx;  // the context that jumped here; jumping to it resumes it
  void* data;
};

// `entry` runs on the new context's first jump and must never return.
fcontext_t make_fcontext(void* stack_top, std::size_t stack_bytes, void (*entry)(transfer_t));
transfer_t jump_fcontext(fcontext_t to, void* data);

}  // namespace cudalab::emu::detail::ctx

#endif
