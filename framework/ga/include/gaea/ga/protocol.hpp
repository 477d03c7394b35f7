#pragma once
/// \file
/// How global-array transfers travel: the strided get/put protocol (zero-copy RMA per chunk or
/// one packed message per owner piece) and the accumulate protocol (target- or source-driven),
/// and the calibrated cost model that chooses between the strided protocols.

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gaea::ga {

/// Strided get/put protocol.
///   zero_copy: one RMA per contiguous chunk, posted together, one flush (no remote CPU).
///   packed:    the origin packs (put) or the owner packs (get) each owner piece into one active
///              message, unpacked by the other side; costs two copies, saves per-chunk overheads.
///   automatic: per owner piece, whichever the calibrated model (strided_model) says is faster.
enum class strided_protocol : std::uint8_t { automatic, zero_copy, packed };
/// Accumulate protocol.
///   target_driven: data travels in an active message, the owner's progress thread applies it
///                  (the default; accumulates never wait for each other's round trips).
///   source_driven: the origin locks the owner (a remote 64-bit lock word per array and rank),
///                  gets the patch, adds, puts it back and unlocks — Global Arrays' classic
///                  scheme, kept so that benchmarks can compare the two. Source-driven
///                  accumulates are atomic with respect to each other, not to target-driven ones.
enum class acc_protocol : std::uint8_t { target_driven, source_driven };

const char* to_string(strided_protocol p) noexcept;
const char* to_string(acc_protocol p) noexcept;

/// Process-wide settings, initialised from GAEA_STRIDED (auto|zero_copy|packed) and GAEA_ACC
/// (target|source). Thread-safe; an operation uses the setting current when it is issued.
strided_protocol current_strided_protocol() noexcept;
void set_strided_protocol(strided_protocol p) noexcept;
acc_protocol current_acc_protocol() noexcept;
void set_acc_protocol(acc_protocol p) noexcept;

/// RAII: sets a protocol for the lifetime of the object, then restores the previous one.
/// Process-wide (not per thread): use it around phases, not around concurrent operations that
/// need different protocols.
template <class Protocol>
class scoped_protocol {
 public:
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
using scoped_strided_protocol = scoped_protocol<strided_protocol>;
using scoped_acc_protocol = scoped_protocol<acc_protocol>;

/// The cost model behind strided_protocol::automatic for one target (the LogGP model of the
/// paper's eq. 9, with the packed protocol's two copies added):
///   zero-copy, k chunks of m bytes in all:  rma_first_s + (k - 1) * rma_chunk_s + m * G
///   packed, one message:                    message_s + m * G + 2 * m * copy_s_per_byte
/// The transfer time m * G is common and cancels. All figures are measured against the target
/// the first time a strided transfer to it needs a decision (a few round trips), then cached.
struct strided_model {
  double rma_first_s = 0;      ///< one RMA round trip (post, complete)
  double rma_chunk_s = 0;      ///< each further chunk posted in the same batch
  double message_s = 0;        ///< one active-message round trip through the owner's progress
  double copy_s_per_byte = 0;  ///< memcpy cost on this rank
  bool calibrated = false;

  /// True when one packed message beats `chunks` zero-copy chunks carrying `bytes` in all.
  bool prefer_packed(std::size_t chunks, std::size_t bytes) const noexcept {
    if (chunks <= 1) return false;
    const double zc = rma_first_s + static_cast<double>(chunks - 1) * rma_chunk_s;
    const double pk = message_s + 2.0 * static_cast<double>(bytes) * copy_s_per_byte;
    return pk < zc;
  }
  /// Chunk size below which packing wins for a large patch (per-chunk overhead / two copies):
  /// the crossover the paper's eq. 9 implies, in bytes.
  double crossover_bytes() const noexcept {
    return copy_s_per_byte > 0 ? rma_chunk_s / (2.0 * copy_s_per_byte) : 0.0;
  }
};

}  // namespace gaea::ga
