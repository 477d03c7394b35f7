#pragma once
// Non-blocking handles (ga_nbhdl_t) for calls outside nonblocking.cpp that complete through
// NGA_NbWait/NGA_NbTest like NGA_NbGet (field transfers, ghost gets).

#include "ga.h"
#include "gaea/ga/request.hpp"

namespace gaea::ga_compat::detail {

/// A new handle of this process for `r` (an empty request: a handle already complete).
ga_nbhdl_t remember_request(ga::request r);

}  // namespace gaea::ga_compat::detail
