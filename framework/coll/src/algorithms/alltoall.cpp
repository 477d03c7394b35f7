// The alltoall schedule builders: pairwise exchange, all sends and receives at once, and Bruck.

#include <cstring>

#include "detail/builders.hpp"

namespace gaea::coll::detail {

namespace {

void copy_own(schedule& s, const team& t, const std::byte* send, std::byte* recv,
              const exchange_layout& l) {
  const auto me = static_cast<std::size_t>(t.pos);
  round& c = s.add(step_kind::local_copy);
  const std::byte* from = send ? send + l.send_off[me] : nullptr;
  std::byte* to = recv ? recv + l.recv_off[me] : nullptr;
  const std::size_t b = l.send_len[me];
  s.then(
      c,
      [=] {
        if (b) std::memcpy(to, from, b);
      },
      b);
}

void exchange_step(schedule& s, const team& t, const std::byte* send, std::byte* recv,
                   const exchange_layout& l, int to, int from, std::uint32_t k) {
  round& x = s.add(step_kind::exchange);
  const auto ut = static_cast<std::size_t>(to), uf = static_cast<std::size_t>(from);
  // The transfer's buffer is not written by a send; the const_cast only fits the common type.
  x.sends.push_back({t.member(to), tag(phase_a, k),
                     send ? const_cast<std::byte*>(send) + l.send_off[ut] : nullptr,
                     l.send_len[ut]});
  x.recvs.push_back(
      {t.member(from), tag(phase_a, k), recv ? recv + l.recv_off[uf] : nullptr, l.recv_len[uf]});
}

}  // namespace

void alltoall_pairwise(schedule& s, const team& t, const std::byte* send, std::byte* recv,
                       const exchange_layout& l) {
  copy_own(s, t, send, recv, l);
  const int n = t.size();
  for (int k = 1; k < n; ++k) {
    const int peer = t.pos ^ k;
    exchange_step(s, t, send, recv, l, peer, peer, static_cast<std::uint32_t>(k));
  }
}

void alltoall_send_recv(schedule& s, const team& t, const std::byte* send, std::byte* recv,
                        const exchange_layout& l) {
  copy_own(s, t, send, recv, l);
  const int n = t.size();
  for (int k = 1; k < n; ++k)
    exchange_step(s, t, send, recv, l, (t.pos + k) % n, (t.pos - k + n) % n,
                  static_cast<std::uint32_t>(k));
}

// [A2A-Energy]'s "Bruck index": rotate up by the position, in step k send every block whose
// index has bit k set to position + 2^k (packed), and finally rotate back into place.
void alltoall_bruck(schedule& s, const team& t, const std::byte* send, std::byte* recv,
                    std::size_t block) {
  const int n = t.size();
  const int me = t.pos;
  const std::size_t un = static_cast<std::size_t>(n);
  std::byte* work = s.temp(un * block);
  std::size_t max_blocks = 0;
  for (int bit = 1; bit < n; bit <<= 1) {
    std::size_t c = 0;
    for (int i = 0; i < n; ++i)
      c += (i & bit) ? 1 : 0;
    max_blocks = std::max(max_blocks, c);
  }
  std::byte* packed_out = s.temp(max_blocks * block);
  std::byte* packed_in = s.temp(max_blocks * block);
  auto pack = [=](int bit) {
    std::size_t j = 0;
    for (int i = 0; i < n; ++i)
      if (i & bit)
        std::memcpy(packed_out + block * j++, work + block * static_cast<std::size_t>(i), block);
  };
  auto unpack = [=](int bit) {
    std::size_t j = 0;
    for (int i = 0; i < n; ++i)
      if (i & bit)
        std::memcpy(work + block * static_cast<std::size_t>(i), packed_in + block * j++, block);
  };
  round& first = s.add(step_kind::local_copy);
  s.then(
      first,
      [=] {
        for (int i = 0; i < n; ++i)
          std::memcpy(work + block * static_cast<std::size_t>(i),
                      send + block * static_cast<std::size_t>((me + i) % n), block);
        if (n > 1) pack(1);
      },
      un * block);
  std::uint32_t k = 0;
  for (int bit = 1; bit < n; bit <<= 1, ++k) {
    std::size_t c = 0;
    for (int i = 0; i < n; ++i)
      c += (i & bit) ? 1 : 0;
    round& x = s.add(step_kind::bruck);
    x.sends.push_back({t.member((me + bit) % n), tag(phase_a, k), packed_out, c * block});
    x.recvs.push_back({t.member((me - bit + n) % n), tag(phase_a, k), packed_in, c * block});
    const int next = bit << 1;
    s.then(
        x,
        [=] {
          unpack(bit);
          if (next < n) pack(next);
        },
        2 * c * block);
  }
  round& last = s.add(step_kind::local_copy);
  // Block i now holds what position me - i sent to this one.
  s.then(
      last,
      [=] {
        for (int i = 0; i < n; ++i)
          std::memcpy(recv + block * static_cast<std::size_t>((me - i + n) % n),
                      work + block * static_cast<std::size_t>(i), block);
      },
      un * block);
}

}  // namespace gaea::coll::detail
