// Looking up a layer's tensors in a Model with the checks every layer needs: presence, shape,
// dtype. Errors are one line naming the tensor. Small f32 vectors (biases, norm weights) stored in
// another dtype are converted once here, at session creation, never while running.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "heed/model.h"
#include "loader/model_index.h"
#include "heed/status.h"

namespace heed::layers {

// Formats a shape as "[a, b]" for error messages.
std::string shape_string(const std::vector<uint32_t>& shape);

// Requires `name` with exactly `shape`.
Status require_shape(const Model& model, const std::string& name, const std::vector<uint32_t>& shape,
                     const TensorView** out);

// A vector of f32 parameters: a view into the mapping when stored as f32, else a converted copy.
class F32Vector {
 public:
  // Loads `name` of `size` values; when `optional` and the tensor is absent, data() is null.
  Status load(const Model& model, const std::string& name, size_t size, bool optional);
  const float* data() const { return owned_.empty() ? mapped_ : owned_.data(); }
  // Makes this a view of `values` (which outlive it), or of nothing when null.
  void view(const float* values) {
    owned_.clear();
    mapped_ = values;
  }

 private:
  const float* mapped_ = nullptr;
  std::vector<float> owned_;
};

}  // namespace heed::layers
