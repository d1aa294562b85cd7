// How every search begins a batch: StepModel::start(), then the vocabulary shortlist when the
// options ask for one (DecodeOptions::use_vmap), its candidates including the forced prefixes.
#pragma once

#include <cstddef>

#include "heed/decoding.h"
#include "heed/step_model.h"

namespace heed::decoding {

inline Status start_batch(StepModel& model, const TokenBatch* sources, size_t batch, size_t rows_per_sentence,
                          const DecodeOptions& o, const TokenBatch* prefixes) {
  HEED_RETURN_IF_ERROR(model.start(sources, batch, rows_per_sentence));
  return o.use_vmap ? model.restrict_vocabulary(sources, prefixes) : Status::success();
}

}  // namespace heed::decoding
