#include "layers/rope.h"

#include <cmath>

namespace heed::layers {

void rope_table(size_t positions, size_t head_dim, float theta, float* table) {
  const size_t half = head_dim / 2;
  for (size_t p = 0; p < positions; ++p) {
    float* row = table + p * head_dim;
    for (size_t j = 0; j < half; ++j) {
      const double frequency = std::pow(static_cast<double>(theta), -2.0 * static_cast<double>(j) / static_cast<double>(head_dim));
      const double angle = static_cast<double>(p) * frequency;
      row[j] = static_cast<float>(std::cos(angle));
      row[half + j] = static_cast<float>(std::sin(angle));
    }
  }
}

void apply_rope(float* x, size_t heads, size_t head_dim, const float* row) {
  const size_t half = head_dim / 2;
  const float* cosines = row;
  const float* sines = row + half;
  for (size_t h = 0; h < heads; ++h) {
    float* v = x + h * head_dim;
    for (size_t j = 0; j < half; ++j) {
      const float a = v[2 * j], b = v[2 * j + 1];
      v[2 * j] = a * cosines[j] - b * sines[j];
      v[2 * j + 1] = a * sines[j] + b * cosines[j];
    }
  }
}

}  // namespace heed::layers
