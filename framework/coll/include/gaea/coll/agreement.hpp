#pragma once
/// \file
/// gaea::coll::agree_on — checks that a collective call got the same arguments on every member
/// (array and counter creation, task-pool runs, groups, collective I/O all go through it).

#include <string>
#include <string_view>
#include <vector>

#include "gaea/coll/group.hpp"

namespace gaea::coll {

/// The arguments of one collective call that must be the same on every member: what the call
/// is about (`object` kind and `name`), what it does (`call`: "created", "run"...), then named
/// values in their printed form.
///   agree_on(world(), call_record("global_array", "A", "created").add("dims", "[100, 100]"));
class call_record {
 public:
  /// A record of the call `call` on the `object` kind named `name`, with no argument yet.
  call_record(std::string_view object, std::string_view name, std::string_view call);
  /// Adds one argument: `field` names it in messages ("dims"), `value` is its text.
  call_record& add(std::string_view field, std::string value);
  /// object, name, call, then field and value of each argument.
  const std::vector<std::string>& parts() const noexcept { return parts_; }

 private:
  std::vector<std::string> parts_;
};

/// Collective over `g`: returns when every member passed the same record, as the same agreed
/// call of the group (a per-group count of agree_on calls is part of the record). Otherwise
/// throws gaea::error on every member, naming the first argument that differs and both values,
/// e.g. "global_array 'A': created with dims [100, 100] on rank 0 but [100, 200] on rank 1", or
/// the objects both sides were making when a rank made a collective call the others did not.
/// Cost: one allreduce of 16 bytes (a digest); the records travel only on a mismatch.
void agree_on(const group& g, const call_record& r);

}  // namespace gaea::coll
