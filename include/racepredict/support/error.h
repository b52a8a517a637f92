//===- support/error.h - Errors as values, assertions --------------------===//
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace racepredict {

/// A user or data error (bad trace, missing file). Carried as a value inside
/// the libraries and printed as one sentence at the tool boundary (rr style).
struct Error {
  std::string message;
  /// Not the input's fault but the machine's limits (memory): the tools
  /// exit as inconclusive (4), not as for an input error (2).
  bool resource = false;
};

/// Either a T or an Error. Deliberately tiny: the analyser needs no more.
template <typename T> class Expected {
public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Error err) : v_(std::move(err)) {}
  explicit operator bool() const { return v_.index() == 0; }
  T &operator*() { return std::get<0>(v_); }
  const T &operator*() const { return std::get<0>(v_); }
  T *operator->() { return &std::get<0>(v_); }
  const T *operator->() const { return &std::get<0>(v_); }
  const Error &error() const { return std::get<1>(v_); }

private:
  std::variant<T, Error> v_;
};

[[noreturn]] inline void assertFail(const char *cond, const char *msg,
                                    const char *file, int line) {
  std::fprintf(stderr, "racepredict: internal error at %s:%d: %s (%s)\n", file,
               line, msg, cond);
  std::abort();
}

} // namespace racepredict

#if defined(RACEPREDICT_ENABLE_ASSERTS) || !defined(NDEBUG)
#define RACEPREDICT_ASSERT(cond, msg)                                          \
  do {                                                                         \
    if (!(cond))                                                               \
      ::racepredict::assertFail(#cond, msg, __FILE__, __LINE__);               \
  } while (0)
#else
#define RACEPREDICT_ASSERT(cond, msg) ((void)0)
#endif
#define RACEPREDICT_UNREACHABLE(msg)                                           \
  ::racepredict::assertFail("unreachable", msg, __FILE__, __LINE__)
