#pragma once
/// \file
/// How global-array transfers travel: the strided get/put protocol (zero-copy RMA per chunk or
/// one packed message per owner piece) and the accumulate protocol (target- or source-driven),
/// and the calibrated cost model that chooses between the strided protocols.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include "gaea/base/enum_names.hpp"

namespace gaea::ga {

/// Strided get/put protocol.
///   zero_copy: one RMA per contiguous chunk, posted together, one flush (no remote CPU).
///   packed:    the origin packs (put) or the owner packs (get) each owner piece into one active
///              message, unpacked by the other side; costs two copies, saves per-chunk overheads.
///   automatic: per owner piece, whichever the calibrated model (strided_model) says is faster.
enum class strided_protocol : std::uint8_t { automatic, zero_copy, packed };
/// Accumulate protocol. Every accumulate is element-wise atomic with respect to the other
/// accumulates (and scatter_acc, read_inc) to the same array made with automatic or
/// target_driven, whatever mix of the two and whichever ranks issue them: the owner's storage
/// carries striped lock words (one per 4 KiB) that every adder takes.
///   automatic:     per owner piece: when the owner's memory is mapped into this process (the
///                  same node, GAEA_RKEY_PTR=1, a shared-memory transport; or this rank), the
///                  origin adds straight into it under the owner's striped locks, complete on
///                  return; otherwise target-driven (the default).
///   target_driven: data travels in an active message, the owner's progress thread applies it
///                  (accumulates never wait for each other's round trips); the rank's own
///                  pieces are added in place.
///   source_driven: the origin locks the owner (a remote 64-bit lock word per array and rank),
///                  gets the patch, adds, puts it back and unlocks — Global Arrays' classic
///                  scheme, kept so that benchmarks can compare. Source-driven accumulates are
///                  atomic with respect to each other, not to the other two.
enum class acc_protocol : std::uint8_t { automatic, target_driven, source_driven };

/// The names of the strided protocols (GAEA_STRIDED's choices).
inline constexpr enum_name<strided_protocol> strided_protocol_names[] = {
    {strided_protocol::automatic, "auto"},
    {strided_protocol::zero_copy, "zero_copy"},
    {strided_protocol::packed, "packed"}};
/// The names of the accumulate protocols (GAEA_ACC's choices).
inline constexpr enum_name<acc_protocol> acc_protocol_names[] = {
    {acc_protocol::automatic, "auto"},
    {acc_protocol::target_driven, "target"},
    {acc_protocol::source_driven, "source"}};
/// Name table of strided_protocol for gaea::to_string and gaea::parse.
constexpr enum_names<strided_protocol> enum_names_of(strided_protocol) noexcept {
  return {"strided protocol", strided_protocol_names};
}
/// Name table of acc_protocol for gaea::to_string and gaea::parse.
constexpr enum_names<acc_protocol> enum_names_of(acc_protocol) noexcept {
  return {"accumulate protocol", acc_protocol_names};
}
/// "auto", "zero_copy" or "packed".
constexpr std::string_view to_string(strided_protocol p) noexcept {
  return gaea::to_string<strided_protocol>(p);
}
/// "auto", "target" or "source".
constexpr std::string_view to_string(acc_protocol p) noexcept {
  return gaea::to_string<acc_protocol>(p);
}

/// The strided protocol of this process. The settings below are process-wide (each rank has its
/// own; not collective) and thread-safe; an operation uses the setting current when it is
/// issued. They are initialised from GAEA_STRIDED (auto|zero_copy|packed) and GAEA_ACC
/// (auto|target|source) when the first array is created, unless set before then
/// (automatic until either happens).
strided_protocol current_strided_protocol() noexcept;
/// Sets the strided protocol of this process (a setting made before the first array is created
/// takes precedence over GAEA_STRIDED).
void set_strided_protocol(strided_protocol p) noexcept;
/// The current accumulate protocol of this process (as current_strided_protocol, from GAEA_ACC).
acc_protocol current_acc_protocol() noexcept;
/// Sets the accumulate protocol of this process (as set_strided_protocol). Source-driven
/// accumulates are not atomic with respect to the other two kinds: ranks that accumulate into
/// one array should not mix them (see acc_protocol).
void set_acc_protocol(acc_protocol p) noexcept;

/// Accumulate chunk size in bytes (0, the default: whole owner pieces, split only at the
/// transfer limit). Target-driven accumulates send one message per chunk; source-driven ones
/// pipeline per chunk (the get of chunk k+1 overlaps the add of chunk k and the put of chunk
/// k-1, [PGAS-BGQ Fig. 11]); direct adds (automatic on a node) ignore it. Chunks are cut along
/// the leading dimensions, never below one row of the patch. Process-wide, thread-safe.
std::size_t current_acc_chunk_bytes() noexcept;
/// Sets the accumulate chunk size of this process (local, not collective; 0: no chunking).
void set_acc_chunk_bytes(std::size_t bytes) noexcept;

/// RAII: sets a protocol for the lifetime of the object, then restores the previous one.
/// Process-wide (not per thread): use it around phases, not around concurrent operations that
/// need different protocols.
template <class Protocol>
class scoped_protocol {
 public:
  /// Saves the current protocol of this kind, then sets `p`; the destructor restores it.
  explicit scoped_protocol(Protocol p) noexcept : saved_(get()) { set(p); }
  ~scoped_protocol() { set(saved_); }
  scoped_protocol(const scoped_protocol&) = delete;
  scoped_protocol& operator=(const scoped_protocol&) = delete;

 private:
  static Protocol get() noexcept {
    if constexpr (std::is_same_v<Protocol, strided_protocol>)
      return current_strided_protocol();
    else
      return current_acc_protocol();
  }
  static void set(Protocol p) noexcept {
    if constexpr (std::is_same_v<Protocol, strided_protocol>)
      set_strided_protocol(p);
    else
      set_acc_protocol(p);
  }
  Protocol saved_;
};
/// Sets the strided protocol for a scope.
using scoped_strided_protocol = scoped_protocol<strided_protocol>;
/// Sets the accumulate protocol for a scope.
using scoped_acc_protocol = scoped_protocol<acc_protocol>;

/// The cost model behind strided_protocol::automatic for one target: the LogGP model of
/// [PGAS-BGQ eq. 9] for zero-copy, and for packed one message plus two copies. For a piece of k
/// contiguous chunks holding m bytes:
///   zero-copy:  rma_first_s + (k - 1) * rma_chunk_s + m * rma_s_per_byte
///   packed:     message_s + m * (message_s_per_byte + 2 * copy_s_per_byte)
/// The per-byte costs differ by transport: on a node, zero-copy is a direct memcpy while a
/// message goes through UCX's buffers; over a network, each zero-copy chunk may be a round trip
/// (software RMA) while a message streams. All figures are measured against the target the
/// first time a strided transfer to it needs a decision (a few dozen round trips), then cached.
struct strided_model {
  double rma_first_s = 0;         ///< one small RMA get, posted and completed
  double rma_chunk_s = 0;         ///< each further chunk posted in the same batch
  double rma_s_per_byte = 0;      ///< contiguous RMA get, per byte
  double message_s = 0;           ///< one small active-message round trip (owner's progress)
  double message_s_per_byte = 0;  ///< a message's reply, per byte
  double copy_s_per_byte = 0;     ///< memcpy on this rank, per byte
  /// True once the figures above have been measured against the target.
  bool calibrated = false;

  /// Predicted seconds of a zero-copy transfer of `chunks` contiguous chunks holding `bytes`.
  double zero_copy_s(std::size_t chunks, std::size_t bytes) const noexcept {
    return rma_first_s + static_cast<double>(chunks > 0 ? chunks - 1 : 0) * rma_chunk_s +
           static_cast<double>(bytes) * rma_s_per_byte;
  }
  /// Predicted seconds of a packed transfer of `bytes` (one message, two copies).
  double packed_s(std::size_t bytes) const noexcept {
    return message_s + static_cast<double>(bytes) * (message_s_per_byte + 2 * copy_s_per_byte);
  }
  /// True when one packed message beats `chunks` zero-copy chunks carrying `bytes` in all.
  bool prefer_packed(std::size_t chunks, std::size_t bytes) const noexcept {
    return chunks > 1 && packed_s(bytes) < zero_copy_s(chunks, bytes);
  }
  /// Chunk size below which packing wins for a large patch, in bytes (the per-chunk overhead
  /// over the extra cost per byte of packing); 0 when packing never wins, infinity when it
  /// always does.
  double crossover_bytes() const noexcept {
    const double extra = message_s_per_byte + 2 * copy_s_per_byte - rma_s_per_byte;
    if (rma_chunk_s <= 0) return 0;
    return extra > 0 ? rma_chunk_s / extra : std::numeric_limits<double>::infinity();
  }
};

}  // namespace gaea::ga
