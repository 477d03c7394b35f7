#pragma once
// The median of a sample (upper median for an even count; 0 for none), shared by the modules
// that time things (ga's strided cost model, coll's measurement).

#include <algorithm>
#include <vector>

namespace gaea::detail {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<long>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace gaea::detail
