#pragma once
/// \file
/// The progress module's GAEA_* settings read by others: the wait mode (GAEA_PROGRESS). The
/// settings are declared in framework/progress/src/fixed_step.cpp beside those of mode
/// adaptive_fixed (fixed_step_params::from_env()); `gaea-info --env` lists them.

#include "gaea/progress/engine.hpp"

namespace gaea::progress {

/// GAEA_PROGRESS, mode::automatic when unset or empty. Throws gaea::error
/// "environment variable GAEA_PROGRESS='fast' must be one of auto|spin|..." otherwise. Local,
/// not collective (the runtime reads it at start-up); thread-safe.
mode mode_from_env();

}  // namespace gaea::progress
