// An installed header that shows the runtime's internals: heed_public_headers_catches_planted runs
// the public-include check with this folder as the installed headers and expects it to fail on
// each of the three.
#pragma once

#include "heed/status.h"
#include "loader/model_index.h"

namespace heed {

class Leaky {
 public:
  const fb::Model& index() const;
  const TensorView* find(const char* name) const;
};

}  // namespace heed
