// A lab's entry points, each declared once: the functions of the lab's code
// that its tests and its benchmark call, with the arguments the tests give.
//
//   // harness/00_sample/entry_points.hpp (seen by tests, backends, bench)
//   inline constexpr Entry<void(Out<float>, In<float>, float, int)> scale{"scale"};
//
//   // harness/00_sample/backend_impl.hpp (built once per backend)
//   LabBackend() { bind(entry::scale, lab00::scale); }
//
//   // a test: the output and the inputs go to the device and back, observed
//   const Observation run = backend().call(entry::scale, y, x, alpha, n, options);
//   // a benchmark: the function as the GPU build compiled it, on device pointers
//   const auto scale = gpu_backend->device_function(entry::scale);
//
// The signature's parameters say how each argument travels:
//   Out<T>   the call's output (at most one): std::vector<T>& on the test's
//            side, T* on the device, between guard elements, observed (the
//            emulator's coverage and sectors are of it), copied back even
//            after a failure; Out<T>{values, k} places it k elements into
//            its allocation (alignment tests);
//   InOut<T> a second result beside the Out (the forward's log-sum-exp
//            beside o): std::vector<T>& on the test's side, T* on the
//            device, copied there as it is and back after the call, failed
//            or not, like the Out (a refused call leaves it as it was), but
//            neither guarded nor observed (the emulator's reports and store
//            counts still see every access to it);
//   In<T>    an input: const std::vector<T>& on the test's side, const T* on
//            the device;
//   Temp<T>  scratch: Temp<T>{count} on the test's side, T* on the device
//            (uninitialised, freed after the call);
//   other    passed as it is (sizes, shapes, LaunchDims, enums, ...).
// An entry with an Out returns the Observation; one without runs host code
// and returns what the function returns (exceptions propagate). A binding
// whose function differs from the device signature (a kernel launched on a
// given LaunchDims, fp16 bits as __half) is a captureless lambda in the
// backend. Backend-free: no CUDA, no emulator headers.
//
// The element counts the vectors must have may be declared with the entry,
// as a function of the arguments passed as they are:
//
//   inline std::array<Size, 2> scale_sizes(float, int n) {
//     return {{{"y", std::size_t(n)}, {"x", std::size_t(n)}}};
//   }
//   inline constexpr Entry<void(Out<float>, In<float>, float, int)> scale{"scale", scale_sizes};
//
// (a function or a captureless lambda) with one Size (name, count) per Out,
// InOut, In and Temp, in the signature's order, taking the other parameters
// as the signature declares them. call() checks the counts before anything
// is staged and throws std::invalid_argument naming the vector ("scale: x
// has 9 elements; the call's other arguments need 10"), so a wrong size
// never reaches the lab code and changes nothing. A count argument becomes
// a size through elements(n, "n"), which refuses a negative one by name
// ("scale: n = -1 is not a count"; call() adds the entry's name to any
// std::invalid_argument of a sizes function). Checks of the other
// arguments' values (a head dimension the kernels have no tile for) stay
// with the lab code. A backend member that is no entry point checks its
// vectors the same way with check_sizes (below).
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "cudalab/harness/guard_value.hpp"
#include "cudalab/harness/observation.hpp"

namespace cudalab::harness {

template <class T>
struct Out {
  Out(std::vector<T>& values, std::size_t offset = 0) : values(&values), offset(offset) {}
  std::vector<T>* values;
  std::size_t offset;  // elements between the allocation's start (after its guards) and values
};

// A second result beside the Out: copied to the device and back, unguarded.
template <class T>
struct InOut {
  InOut(std::vector<T>& values) : values(&values) {}
  std::vector<T>* values;
};

template <class T>
struct In {
  In(const std::vector<T>& values) : values(&values) {}
  const std::vector<T>* values;
};

// Scratch memory the lab code needs (an intermediate it writes and reads
// back): `count` elements on the device, uninitialised, freed after the call.
template <class T>
struct Temp {
  std::size_t count;
};

// The element count one vector argument of an entry must have, and its
// name for the error message.
struct Size {
  std::string_view name;
  std::size_t count = 0;
};

// A count argument (n, rows, blocks) as the element count of the vectors it
// sizes, for a sizes function: a negative count gives no size and is
// refused, named ("n = -1 is not a count").
inline std::size_t elements(int count, std::string_view name) {
  if (count < 0) {
    throw std::invalid_argument(std::string(name) + " = " + std::to_string(count) +
                                " is not a count");
  }
  return static_cast<std::size_t>(count);
}

// A count host code needs at least one of (the elements of a buffer an
// experiment fills and reads back): call() checks no sizes for an entry
// without vectors, so the code refuses it itself, naming the call
// ("reuse_hazard: n = 0 is not a positive count").
inline std::size_t positive_count(int count, std::string_view call, std::string_view name = "n") {
  if (count < 1) {
    throw std::invalid_argument(std::string(call) + ": " + std::string(name) + " = " +
                                std::to_string(count) + " is not a positive count");
  }
  return static_cast<std::size_t>(count);
}

// The vectors' element counts (`given`) against those `sizes()` returns, in
// the same order; the first mismatch, or a refusal from sizes() itself, is
// an std::invalid_argument that begins with `call`. What call() does for
// an entry, and what a backend member that is no entry point calls itself.
template <std::size_t N, class Sizes>
void check_sizes(std::string_view call, const Sizes& sizes,
                 const std::array<std::size_t, N>& given) {
  std::array<Size, N> wanted;
  try {
    wanted = sizes();
  } catch (const std::invalid_argument& refusal) {
    throw std::invalid_argument(std::string(call) + ": " + refusal.what());
  }
  for (std::size_t b = 0; b < N; ++b) {
    if (given[b] == wanted[b].count) continue;
    throw std::invalid_argument(std::string(call) + ": " + std::string(wanted[b].name) + " has " +
                                std::to_string(given[b]) +
                                " elements; the call's other arguments need " +
                                std::to_string(wanted[b].count));
  }
}

namespace detail {
template <class A>
struct DeviceParam {
  using type = A;
};
template <class T>
struct DeviceParam<Out<T>> {
  using type = T*;
};
template <class T>
struct DeviceParam<InOut<T>> {
  using type = T*;
};
template <class T>
struct DeviceParam<In<T>> {
  using type = const T*;
};
template <class T>
struct DeviceParam<Temp<T>> {
  using type = T*;
};
template <class A>
inline constexpr bool is_out = false;
template <class T>
inline constexpr bool is_out<Out<T>> = true;
template <class A>
inline constexpr bool is_in = false;
template <class T>
inline constexpr bool is_in<In<T>> = true;
template <class A>
inline constexpr bool is_temp = false;
template <class T>
inline constexpr bool is_temp<Temp<T>> = true;
template <class A>
inline constexpr bool is_in_out = false;
template <class T>
inline constexpr bool is_in_out<InOut<T>> = true;
// A vector argument: staged in device memory for the call.
template <class A>
inline constexpr bool is_buffer = is_out<A> || is_in_out<A> || is_in<A> || is_temp<A>;

// The element type of a vector argument.
template <class A>
using Element = std::remove_const_t<std::remove_pointer_t<typename DeviceParam<A>::type>>;

// How many elements a vector argument holds.
template <class A>
std::size_t element_count(const A& argument) {
  if constexpr (is_temp<A>) {
    return argument.count;
  } else {
    return argument.values->size();
  }
}

// The function declaring an entry's element counts: it takes the arguments
// passed as they are (the signature less its vectors).
template <std::size_t Buffers, class Plain>
struct SizesOf;
template <std::size_t Buffers, class... Plain>
struct SizesOf<Buffers, std::tuple<Plain...>> {
  using type = std::array<Size, Buffers> (*)(Plain...);
};
template <class... Args>
using PlainTuple = decltype(std::tuple_cat(
    std::declval<std::conditional_t<is_buffer<Args>, std::tuple<>, std::tuple<Args>>>()...));

// The argument for the sizes function (a one-element tuple), or nothing for a vector.
template <class A>
auto plain_part(const A& argument) {
  if constexpr (is_buffer<A>) {
    return std::tuple<>{};
  } else {
    return std::tuple<const A&>{argument};
  }
}
template <class A>
auto count_part(const A& argument) {
  if constexpr (is_buffer<A>) {
    return std::tuple<std::size_t>{element_count(argument)};
  } else {
    return std::tuple<>{};
  }
}
}  // namespace detail

template <class Signature>
struct Entry;

template <class R, class... Args>
struct Entry<R(Args...)> {
  static_assert((0 + ... + (detail::is_out<Args> ? 1 : 0)) <= 1, "an entry has at most one Out");
  static constexpr bool kHasOutput = (false || ... || detail::is_out<Args>);
  static_assert(!kHasOutput || std::is_void_v<R>, "an entry with an Out returns nothing");
  static_assert(kHasOutput || !(false || ... || detail::is_buffer<Args>),
                "an entry with an In, an InOut or a Temp has an Out (host code takes host values)");
  static constexpr std::size_t kBuffers = (0 + ... + (detail::is_buffer<Args> ? 1 : 0));
  // The function a backend binds: on device pointers where the test gives vectors.
  using Device = R (*)(typename detail::DeviceParam<Args>::type...);
  // The element counts of the vectors, from the other arguments (optional).
  using Sizes = typename detail::SizesOf<kBuffers, detail::PlainTuple<Args...>>::type;
  std::string_view name;
  Sizes sizes = nullptr;
};

// The device function type of an entry point: DeviceOf<entry::scale>.
template <const auto& E>
using DeviceOf = typename std::remove_cvref_t<decltype(E)>::Device;

// The functions one backend's build bound, by entry name.
class EntryTable {
 public:
  template <class Signature>
  void add(const Entry<Signature>& entry, typename Entry<Signature>::Device function) {
    functions_[std::string(entry.name)] = reinterpret_cast<void (*)()>(function);
  }
  template <class Signature>
  typename Entry<Signature>::Device find(const Entry<Signature>& entry) const {
    const auto found = functions_.find(std::string(entry.name));
    if (found == functions_.end()) {
      throw std::logic_error("this backend binds no entry point '" + std::string(entry.name) +
                             "' (the lab's backend_impl.hpp)");
    }
    return reinterpret_cast<typename Entry<Signature>::Device>(found->second);
  }

 private:
  std::map<std::string, void (*)()> functions_;
};

class EntryBinder;

// A lab's Backend when it is called through entry points: the backend's
// build binds them (EntryBackendFor, device_call.hpp) and provides the
// device memory the calls stage their arguments in.
class EntryBackend : public BackendBase {
  friend class EntryBinder;

 public:
  // Runs `entry` with `given` (the signature's arguments, then optionally
  // RunOptions): the Observation of an entry with an Out, else the result.
  template <class R, class... Args, class... Given>
  auto call(const Entry<R(Args...)>& entry, Given&&... given) {
    constexpr std::size_t kArgs = sizeof...(Args);
    static_assert(sizeof...(Given) == kArgs || sizeof...(Given) == kArgs + 1,
                  "call(entry, arguments..., [RunOptions])");
    auto all = std::forward_as_tuple(std::forward<Given>(given)...);
    RunOptions options;
    if constexpr (sizeof...(Given) == kArgs + 1) options = std::get<kArgs>(all);
    return call_with(entry, options, all, std::make_index_sequence<kArgs>{});
  }

  template <class Signature>
  typename Entry<Signature>::Device device_function(const Entry<Signature>& entry) const {
    return entries_.find(entry);
  }

 protected:
  template <class Signature>
  void bind(const Entry<Signature>& entry, typename Entry<Signature>::Device function) {
    entries_.add(entry, function);
  }

  // Device memory of `bytes` bytes holding a copy of those at `host`
  // (uninitialised where `host` is null).
  virtual std::shared_ptr<void> upload(const void* host, std::size_t bytes) = 0;
  // The output's `count` elements of `element_bytes` at `host` staged on
  // the device `before` elements into an allocation between guard elements
  // (`guard`: one element's bytes); `body(device output)` runs observed, and
  // the output comes back into `host`.
  virtual Observation run_on_output(void* host, std::size_t element_bytes, std::size_t count,
                                    std::size_t before, const void* guard,
                                    const RunOptions& options,
                                    const std::function<void(void*)>& body) = 0;
  // Copies `bytes` bytes of device memory at `device` into `host`.
  virtual void download(void* host, const void* device, std::size_t bytes) = 0;

 private:
  template <class Arg, class Given>
  static Arg as_argument(Given&& given) {
    // Implicit conversions only (a return is a copy-initialisation): Arg(given)
    // would be a C-style cast, which for a reference parameter reinterprets
    // a vector of another element type without a word.
    static_assert(!std::is_reference_v<Arg> ||
                      std::is_same_v<std::remove_cvref_t<Arg>, std::remove_cvref_t<Given>>,
                  "a reference parameter of an entry takes exactly its type (no temporary)");
    return std::forward<Given>(given);
  }

  // The entry's declared element counts against the vectors given.
  template <class R, class... Args>
  static void check_entry_sizes(const Entry<R(Args...)>& entry,
                                const std::tuple<Args...>& arguments) {
    if (entry.sizes == nullptr) return;
    std::apply(
        [&](const auto&... each) {
          const auto counts = [](auto... count) {
            return std::array<std::size_t, sizeof...(count)>{count...};
          };
          check_sizes(
              entry.name,
              [&] { return std::apply(entry.sizes, std::tuple_cat(detail::plain_part(each)...)); },
              std::apply(counts, std::tuple_cat(detail::count_part(each)...)));
        },
        arguments);
  }

  // An argument staged for the call: the device copy of an In, an InOut or
  // a Temp, everything else as given.
  template <class Arg>
  struct Staged {
    Arg argument;
    std::shared_ptr<void> device;
  };

  template <class Arg>
  Staged<Arg> stage(Arg argument) {
    using T = detail::Element<Arg>;
    if constexpr (detail::is_in<Arg> || detail::is_in_out<Arg>) {
      const std::vector<T>& values = *argument.values;
      return {argument, upload(values.data(), values.size() * sizeof(T))};
    } else if constexpr (detail::is_temp<Arg>) {
      return {argument, upload(nullptr, argument.count * sizeof(T))};
    } else {
      return {argument, nullptr};
    }
  }

  template <class Arg>
  static typename detail::DeviceParam<Arg>::type device_argument(const Staged<Arg>& staged,
                                                                 void* output) {
    using Param = typename detail::DeviceParam<Arg>::type;
    if constexpr (detail::is_in<Arg> || detail::is_in_out<Arg> || detail::is_temp<Arg>) {
      return static_cast<Param>(staged.device.get());
    } else if constexpr (detail::is_out<Arg>) {
      return static_cast<Param>(output);
    } else {
      return staged.argument;
    }
  }

  // An InOut's values back from the device; where the copy fails the
  // vector keeps the values it had.
  template <class Arg>
  void copy_back(const Staged<Arg>& staged) {
    if constexpr (detail::is_in_out<Arg>) {
      std::vector<detail::Element<Arg>> values(staged.argument.values->size());
      if (!values.empty()) {
        download(values.data(), staged.device.get(), values.size() * sizeof(values[0]));
      }
      *staged.argument.values = std::move(values);
    }
  }

  template <class R, class... Args, class Tuple, std::size_t... I>
  auto call_with(const Entry<R(Args...)>& entry, const RunOptions& options, Tuple& given,
                 std::index_sequence<I...>) {
    const auto function = entries_.find(entry);
    if constexpr (!Entry<R(Args...)>::kHasOutput) {
      return function(as_argument<Args>(std::get<I>(given))...);
    } else {
      const std::tuple<Args...> arguments{as_argument<Args>(std::get<I>(given))...};
      check_entry_sizes(entry, arguments);
      std::tuple<Staged<Args>...> staged{stage<Args>(std::get<I>(arguments))...};
      Observation observation = observe_output(staged, options, [&](void* output) {
        function(device_argument(std::get<I>(staged), output)...);
      });
      try {
        (copy_back(std::get<I>(staged)), ...);
      } catch (...) {  // a fault the call itself did not see
        if (!observation.failed()) record_exception(observation, std::current_exception());
      }
      return observation;
    }
  }

  template <class... Args, class Body>
  Observation observe_output(std::tuple<Staged<Args>...>& staged, const RunOptions& options,
                             Body&& body) {
    Observation observation;
    std::apply(
        [&](auto&... each) {
          const auto one = [&](auto& s) {
            using Arg = std::decay_t<decltype(s.argument)>;
            if constexpr (detail::is_out<Arg>) {
              using T = detail::Element<Arg>;
              const T guard = guard_value<T>();
              observation =
                  run_on_output(s.argument.values->data(), sizeof(T), s.argument.values->size(),
                                s.argument.offset, &guard, options, body);
            }
          };
          (one(each), ...);
        },
        staged);
    return observation;
  }

  EntryTable entries_;
};

// bind() for code other than the backend's constructor: the generated
// factories hand one to the experiments a lab's tests keep beside them (the
// descriptor's "test_scenarios", docs/architecture.md), which are built into
// each backend but belong to no other caller, so the harness need not hold them.
class EntryBinder {
 public:
  explicit EntryBinder(EntryBackend& backend) : backend_(backend) {}
  template <class Signature>
  void bind(const Entry<Signature>& entry, typename Entry<Signature>::Device function) {
    backend_.bind(entry, function);
  }

 private:
  EntryBackend& backend_;
};

}  // namespace cudalab::harness
