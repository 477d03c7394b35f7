#pragma once
/// \file
/// GAEA_ASSERT(condition, what): a check of an internal invariant, something only a bug in Gaea
/// can break (user input is checked always, with a gaea::error naming the object). Checked when
/// the build has GAEA_ASSERTS=ON (Debug builds and CI), compiled out otherwise: the condition is
/// then not evaluated. A failed check throws gaea::error("internal error: <what> (<condition>)
/// at <file>:<line>"), which ends the job like any other error.

#include "gaea/base/detail/assert_config.hpp"

namespace gaea::detail {
/// Throws the gaea::error of a failed GAEA_ASSERT. Not for direct use.
[[noreturn]] void assert_failed(const char* condition, const char* what, const char* file,
                                int line);
}  // namespace gaea::detail

#if GAEA_ASSERTS_ENABLED
/// Checks the internal invariant `condition`; `what` (a string literal) says what it means.
#define GAEA_ASSERT(condition, what)  \
  ((condition) ? static_cast<void>(0) \
               : ::gaea::detail::assert_failed(#condition, what, __FILE__, __LINE__))
#else
/// Checks nothing in this build (GAEA_ASSERTS=OFF); `condition` is named but not evaluated.
#define GAEA_ASSERT(condition, what) static_cast<void>(sizeof((condition) ? 1 : 0))
#endif
