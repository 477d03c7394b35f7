// A member's call signatures in its shared-memory control block: a call's signature reads back
// whole, a slot holding another call reads as none. (The race with a member signing later calls
// is exercised between ranks by test_coll's "a member calls ahead ..." case.)

#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>

#include "detail/shm_region.hpp"

using namespace gaea::coll::detail;

namespace {
// Every field depends on the call, so that a signature torn between two calls differs from both.
call_signature signature_of_call(std::uint64_t call) {
  call_signature s;
  s.op = static_cast<std::uint8_t>(call % 7);
  s.algo = static_cast<std::uint8_t>(call % 5);
  s.elem = static_cast<std::uint8_t>(call % 11);
  s.rop = static_cast<std::uint8_t>(call % 3);
  s.root = static_cast<std::int32_t>(call % 13);
  s.count = call * 8 + 4;
  s.digest = call % 2 == 1;
  return s;
}
}  // namespace

TEST_CASE("a signed call's signature reads back whole, other calls' slots read as none",
          "[coll][shm]") {
  auto c = std::make_unique<shm_control>();
  CHECK_FALSE(shm_signature_of(*c, 0).has_value());
  shm_sign(*c, 41, signature_of_call(41));
  const auto got = shm_signature_of(*c, 41);
  REQUIRE(got.has_value());
  CHECK(*got == signature_of_call(41));
  CHECK(got->root == 41 % 13);
  CHECK_FALSE(shm_signature_of(*c, 40).has_value());
  // A later call in the same slot replaces it.
  shm_sign(*c, 41 + shm_signature_slots, signature_of_call(41 + shm_signature_slots));
  CHECK_FALSE(shm_signature_of(*c, 41).has_value());
  // Negative roots (no root) survive the packing.
  call_signature none = signature_of_call(3);
  none.root = -1;
  shm_sign(*c, 3, none);
  CHECK(shm_signature_of(*c, 3)->root == -1);
}
