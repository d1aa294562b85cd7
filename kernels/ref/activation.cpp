// The activations heed's models use, in the forms their authors trained with.
#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::ref {

float activation(float x, Activation act) {
  switch (act) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return x > 0.0f ? x : 0.0f;
    case Activation::kGelu:  // exact form: x * Phi(x)
      return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
    case Activation::kGeluTanh: {  // the tanh approximation (GPT-2, some BERTs)
      const float inner = 0.79788456080286536f * (x + 0.044715f * x * x * x);
      return 0.5f * x * (1.0f + std::tanh(inner));
    }
    case Activation::kSilu:  // x * sigmoid(x); exp(-x) overflows to inf for very negative x -> 0
      return x / (1.0f + std::exp(-x));
  }
  return x;
}

void activate(float* x, size_t n, Activation act) {
  if (act == Activation::kNone) return;
  for (size_t i = 0; i < n; ++i) x[i] = activation(x[i], act);
}

}  // namespace heed::kernels::ref
