#pragma once
/// \file
/// Input checks shared by the apps (gaea-scf, gaea-lu, gaea-lbm, gaea-checkpoint): numeric
/// option validators that refuse NaN and infinity (CLI::Range lets NaN through), the thread-count
/// cap, and the cross-rank verdicts that make every rank fail with the same clear message when
/// an input is bad or different on some ranks only.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace apps {

/// CLI11 validator: the option's value is a finite number in [lo, hi] (in (lo, hi] when
/// `lo_open`). NaN, infinities and out-of-range values are a command-line error naming the
/// value and the range. Not collective; thread-safe.
CLI::Validator finite_in(double lo, double hi, bool lo_open = false);

/// Caps a requested thread count at the hardware threads of this machine
/// (std::thread::hardware_concurrency): more threads than that only oversubscribe and, in the
/// tens of thousands, make thread creation fail. Returns the capped count (`requested` when it
/// fits, or 0 / negative unchanged: callers treat those as "automatic" or refuse them); when
/// capping and `warn`, prints "<app>: warning: --threads N exceeds ..." on stderr.
/// Not collective; thread-safe.
int cap_threads(int requested, std::string_view app, bool warn);

/// Collective over the world group: `problem` is this rank's error (empty when fine). When any
/// rank has one, every rank throws gaea::error with the lowest such rank's message, prefixed
/// with "rank R: " when R is not 0 (so a file bad on one node only is named with its rank).
void agree(const std::string& problem);

/// Collective: runs `read` (which validates an input on this rank) and agrees on its outcome:
/// if it throws on any rank, every rank throws that rank's message (see agree). Use it for
/// inputs that every rank reads on its own, before anything else collective.
void on_every_rank(const std::function<void()>& read);

/// Collective: checks that `mine` (a description of inputs that must be the same on every
/// rank: options, a fingerprint of files) equals rank 0's; otherwise every rank throws
/// "<what> differ between ranks: rank 0 has <...>, rank R has <...>" for the lowest such rank.
void same_on_every_rank(const std::string& what, const std::string& mine);

/// 64-bit FNV-1a hash of `bytes`, continuing from `h` (a fingerprint of input data to compare
/// across ranks; not cryptographic).
std::uint64_t fnv1a(const void* bytes, std::size_t n, std::uint64_t h = 14695981039346656037ULL);

/// `h` as 16 hexadecimal digits.
std::string hex(std::uint64_t h);

}  // namespace apps
