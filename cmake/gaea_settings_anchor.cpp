// Compiled into every program that links gaea::gaea (an INTERFACE source of the umbrella target,
// installed as share/gaea/gaea_settings_anchor.cpp). Each module registers its GAEA_* settings
// when its library is loaded, and the runtime checks the environment against all of them at
// start-up. A linker drops a shared library that no object calls (--as-needed, the default of
// some toolchains) and, from a static archive, every object that nothing calls: this file calls
// one function of each module above the runtime (the runtime pulls in those below it), so every
// Gaea program knows every module's variables, and GAEA_COUNTER=xyz fails at start-up even in a
// program that never makes a counter.

namespace gaea::coll::detail {
void link_settings() noexcept;
}
namespace gaea::ga::detail {
void link_settings() noexcept;
}
namespace gaea::counters::detail {
void link_settings() noexcept;
}

namespace {
// Calls to functions of other libraries: the compiler cannot drop them.
[[maybe_unused]] const bool gaea_settings_linked =
    (gaea::coll::detail::link_settings(), gaea::ga::detail::link_settings(),
     gaea::counters::detail::link_settings(), true);
}  // namespace
