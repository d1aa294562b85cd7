// check_decode_options: the rules that tie decoding options together or to a session
// (heed/decoding.h); each option's own range is heed/decode_option_keys.h's, checked from here.
#include <cmath>
#include <string>

#include "heed/decode_option_keys.h"
#include "heed/decoding.h"

namespace heed {

namespace {

Status check_alternatives(const DecodeOptions& o, const StepModelLimits& l) {
  if (o.beam_size != 1) return invalid_argument("return_alternatives continues each alternative greedily: beam size must be 1");
  if (o.n_best == 0 || o.n_best > l.max_beam) {
    return Status(StatusCode::kLimitExceeded, "return_alternatives: n_best " + std::to_string(o.n_best) +
                  " is outside the session's range 1.." + std::to_string(l.max_beam));
  }
  if (o.sampling_top_k != 1 || o.on_token != nullptr || l.capture_attention) {
    return invalid_argument("return_alternatives works without sampling, streaming or attention capture");
  }
  return Status::success();
}

Status check_beam_and_n_best(const DecodeOptions& o, const StepModelLimits& l) {
  if (o.beam_size == 0 || o.beam_size > l.max_beam) {  // the wording of the session's own check
    return Status(StatusCode::kLimitExceeded, "beam " + std::to_string(o.beam_size) +
                  " is outside the session's range 1.." + std::to_string(l.max_beam));
  }
  if (o.return_alternatives) return check_alternatives(o, l);
  if (o.n_best == 0 || o.n_best > o.beam_size) {
    return invalid_argument("n_best " + std::to_string(o.n_best) + " must be from 1 to the beam size (" +
                            std::to_string(o.beam_size) + ")");
  }
  if (o.beam_size > 1 && static_cast<double>(o.n_best) > std::round(static_cast<float>(o.beam_size) * o.patience)) {
    return invalid_argument("n_best " + std::to_string(o.n_best) + " is above round(beam size x patience)");
  }
  return Status::success();
}

Status check_sampling(const DecodeOptions& o) {
  if (o.on_token != nullptr && o.beam_size != 1) return invalid_argument("streaming (on_token) needs beam size 1");
  if (o.sampling_top_k != 1) {
    if (o.beam_size != 1) return invalid_argument("sampling (sampling_top_k != 1) needs beam size 1");
    if (!(o.sampling_temperature > 0)) return invalid_argument("sampling temperature must be above 0 when sampling");
  }
  return Status::success();
}

Status check_controls(const DecodeControls& o) {
  if (o.num_end_ids > 0 && o.end_ids == nullptr) return invalid_argument("end_ids: a count without ids");
  const TokenBatch* s = o.suppress_sequences;
  if (s != nullptr && s->size > 0 && (s->offsets == nullptr || (s->offsets[s->size] > 0 && s->ids == nullptr))) {
    return invalid_argument("suppress_sequences: sequences without their ids or offsets");
  }
  return Status::success();
}

}  // namespace

Status check_decode_options(const DecodeOptions& o, const StepModelLimits& l) {
  if (o.beam_size == 0) return check_beam_and_n_best(o, l);  // the session's wording for beam 0
  HEED_RETURN_IF_ERROR(check_decode_option_ranges(o));
  HEED_RETURN_IF_ERROR(check_beam_and_n_best(o, l));
  if (o.max_length > l.max_target_len) {
    return Status(StatusCode::kLimitExceeded, "max_length " + std::to_string(o.max_length) +
                  " is above the session's max_target_len " + std::to_string(l.max_target_len));
  }
  HEED_RETURN_IF_ERROR(check_controls(o.controls));
  return check_sampling(o);
}

}  // namespace heed
