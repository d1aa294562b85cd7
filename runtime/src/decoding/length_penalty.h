// The length penalty every search applies to finished hypotheses (see decoding.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace heed::decoding {

// log_prob / steps^penalty, steps = generated tokens with the EOS (always >= 1 for a hypothesis).
inline float normalized_score(float log_prob, size_t steps, float penalty) {
  if (penalty == 0.0f) return log_prob;
  const double len = static_cast<double>(std::max<size_t>(steps, 1));
  return static_cast<float>(log_prob / std::pow(len, static_cast<double>(penalty)));
}

}  // namespace heed::decoding
