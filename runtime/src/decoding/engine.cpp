// DecodingEngine: creation, option checks and the dispatch between greedy/sampling and beam search.
#include <cmath>
#include <string>

#include "decoding/decoding_storage.h"
#include "heed/decoding.h"

namespace heed {

float ScoreOutput::total(size_t i) const {
  float sum = 0;
  for (size_t j = offsets[i]; j < offsets[i + 1]; ++j) sum += log_probs[j];
  return sum;
}

DecodingEngine::~DecodingEngine() = default;

size_t DecodingEngine::storage_bytes() const { return storage_->bytes; }

Status DecodingEngine::create(StepModel* model, const DecodingLimits& limits, std::unique_ptr<DecodingEngine>* out) {
  if (!model) return invalid_argument("decoding engine: no step model");
  const StepModelLimits& l = model->limits();
  if (l.max_batch == 0 || l.max_beam == 0 || l.max_target_len == 0) {
    return invalid_argument("decoding engine: the model's limits need max_batch, max_beam and max_target_len >= 1");
  }
  if (model->vocab_size() == 0) return invalid_argument("decoding engine: the model has an empty vocabulary");
  const int64_t vocab = static_cast<int64_t>(model->vocab_size());
  if (model->eos_id() < 0 || model->eos_id() >= vocab || model->bos_id() < 0 || model->bos_id() >= vocab) {
    return invalid_argument("decoding engine: the model's BOS/EOS ids are outside its vocabulary");
  }
  size_t n_best = limits.max_n_best == 0 ? l.max_beam : limits.max_n_best;
  if (n_best > l.max_beam) {
    return invalid_argument("decoding engine: max_n_best " + std::to_string(n_best) + " is above max_beam " +
                            std::to_string(l.max_beam));
  }
  if (limits.unk_id < -1 || limits.unk_id >= vocab) {
    return invalid_argument("decoding engine: the unknown token id " + std::to_string(limits.unk_id) +
                            " is outside the vocabulary");
  }
  std::unique_ptr<DecodingEngine> engine(new DecodingEngine());
  engine->model_ = model;
  engine->unk_id_ = limits.unk_id;
  engine->storage_ = std::make_unique<Storage>();
  const size_t panels = model->attention_panels();
  if (panels > 0 && model->last_attention() == nullptr) {
    return invalid_argument("decoding engine: the model reports attention panels but exposes no attention buffer");
  }
  HEED_RETURN_IF_ERROR(engine->storage_->allocate(l.max_batch, l.max_beam, l.max_target_len, model->vocab_size(), n_best,
                                                  panels, panels > 0 ? l.max_source_len : 0));
  *out = std::move(engine);
  return Status::success();
}

// Only called on error paths and before decoding starts: building the message may allocate.
static Status limit_exceeded(std::string message) { return Status(StatusCode::kLimitExceeded, std::move(message)); }

Status DecodingEngine::check_control_ids(const DecodeControls& o) const {
  const int64_t vocab = static_cast<int64_t>(model_->vocab_size());
  const auto outside = [vocab](int32_t id) { return id < 0 || id >= vocab; };
  for (size_t i = 0; i < o.num_end_ids; ++i) {
    if (outside(o.end_ids[i])) {
      return invalid_argument("end token id " + std::to_string(o.end_ids[i]) + " is outside the vocabulary (size " +
                              std::to_string(vocab) + ")");
    }
  }
  for (size_t s = 0; o.suppress_sequences != nullptr && s < o.suppress_sequences->size; ++s) {
    const int32_t* seq = o.suppress_sequences->sequence(s);
    for (size_t t = 0; t < o.suppress_sequences->length(s); ++t) {
      if (outside(seq[t])) {
        return invalid_argument("suppressed sequence " + std::to_string(s) + ": token id " + std::to_string(seq[t]) +
                                " is outside the vocabulary (size " + std::to_string(vocab) + ")");
      }
    }
  }
  if (o.disable_unk && unk_id_ < 0) return invalid_argument("disable_unk: this model has no unknown token");
  if (!model_->set_raw_logits(o.repetition_penalty != 1.0f)) {
    return invalid_argument("the repetition penalty needs logits, which this model does not give");
  }
  return Status::success();
}

Status DecodingEngine::check_prefixes(const TokenBatch* prefixes, size_t batch, size_t max_length) const {
  if (!prefixes) return Status::success();
  if (prefixes->size != batch) {
    return invalid_argument("target prefixes: " + std::to_string(prefixes->size) + " given for " +
                            std::to_string(batch) + " sentences");
  }
  const int64_t vocab = static_cast<int64_t>(model_->vocab_size());
  for (size_t i = 0; i < batch; ++i) {
    if (prefixes->length(i) > max_length) {
      return limit_exceeded("target prefix " + std::to_string(i) + " has " + std::to_string(prefixes->length(i)) +
                            " tokens, more than max_length " + std::to_string(max_length));
    }
    const int32_t* p = prefixes->sequence(i);
    for (size_t t = 0; t < prefixes->length(i); ++t) {
      if (p[t] < 0 || p[t] >= vocab) {
        return invalid_argument("target prefix " + std::to_string(i) + ": token id " + std::to_string(p[t]) +
                                " is outside the vocabulary (size " + std::to_string(vocab) + ")");
      }
      // Forced tokens never end a hypothesis, the end token included: a chat prompt closes each
      // turn with it, and only a generated end token stops (as transformers and CTranslate2 do).
    }
  }
  return Status::success();
}

Status DecodingEngine::decode(const TokenBatch* sources, size_t batch, const DecodeOptions& o,
                              const TokenBatch* prefixes, DecodeOutput* out) {
  const StepModelLimits& l = model_->limits();
  Storage& s = *storage_;
  if (!out) return invalid_argument("decode: no output");
  if (batch > l.max_batch) {
    return limit_exceeded("batch of " + std::to_string(batch) + " sentences is above the limit " + std::to_string(l.max_batch));
  }
  if (sources && sources->size != batch) {
    return invalid_argument("decode: " + std::to_string(sources->size) + " sources for a batch of " + std::to_string(batch));
  }
  HEED_RETURN_IF_ERROR(check_decode_options(o, l));
  if (o.n_best > s.max_n_best) {
    return invalid_argument("n_best " + std::to_string(o.n_best) + " is above the engine's max_n_best " +
                            std::to_string(s.max_n_best));
  }
  const size_t max_length = o.max_length == 0 ? l.max_target_len : o.max_length;
  HEED_RETURN_IF_ERROR(check_prefixes(prefixes, batch, max_length));
  HEED_RETURN_IF_ERROR(check_control_ids(o.controls));
  if (o.use_vmap && !model_->has_vocab_map()) {
    return invalid_argument("use_vmap: the model has no vocabulary map (convert it with heed convert --vmap FILE)");
  }

  // Zero allocation from here on.
  out->batch = batch;
  out->stride = s.max_n_best;
  out->hypotheses = s.hypotheses;
  out->counts = s.counts;
  out->attention_panels = s.attention_panels;
  out->attention_stride = s.attention_stride;
  if (batch == 0) return Status::success();
  if (o.return_alternatives) return alternatives(sources, batch, o, prefixes, max_length, out);
  if (o.beam_size == 1) return greedy(sources, batch, o, prefixes, max_length, out);
  return beam_search(sources, batch, o, prefixes, max_length, out);
}

Status DecodingEngine::score(const TokenBatch* sources, const TokenBatch& targets, ScoreOutput* out) {
  const StepModelLimits& l = model_->limits();
  Storage& s = *storage_;
  const size_t batch = targets.size;
  if (!out) return invalid_argument("score: no output");
  if (batch > l.max_batch) {
    return limit_exceeded("batch of " + std::to_string(batch) + " sentences is above the limit " + std::to_string(l.max_batch));
  }
  if (sources && sources->size != batch) {
    return invalid_argument("score: " + std::to_string(sources->size) + " sources for " + std::to_string(batch) + " targets");
  }
  const int64_t vocab = static_cast<int64_t>(model_->vocab_size());
  size_t steps = 0;
  for (size_t i = 0; i < batch; ++i) {
    if (targets.length(i) + 1 > l.max_target_len) {
      return limit_exceeded("target " + std::to_string(i) + " has " + std::to_string(targets.length(i)) +
                            " tokens; with the end token that is above max_target_len " + std::to_string(l.max_target_len));
    }
    for (size_t t = 0; t < targets.length(i); ++t) {
      const int32_t id = targets.sequence(i)[t];
      if (id < 0 || id >= vocab) {
        return invalid_argument("target " + std::to_string(i) + ": token id " + std::to_string(id) +
                                " is outside the vocabulary (size " + std::to_string(vocab) + ")");
      }
    }
    if (targets.length(i) + 1 > steps) steps = targets.length(i) + 1;
  }

  // Zero allocation from here on.
  s.score_offsets[0] = 0;
  for (size_t i = 0; i < batch; ++i) s.score_offsets[i + 1] = s.score_offsets[i] + targets.length(i) + 1;
  out->batch = batch;
  out->log_probs = s.score_log_probs;
  out->offsets = s.score_offsets;
  if (batch == 0) return Status::success();
  model_->set_raw_logits(false);  // every model gives log-probs
  HEED_RETURN_IF_ERROR(model_->start(sources, batch, 1));
  const size_t vocab_size = model_->vocab_size();
  const int32_t eos = model_->eos_id();
  for (size_t t = 0; t < steps; ++t) {
    for (size_t i = 0; i < batch; ++i) {
      const size_t len = targets.length(i);
      s.inputs[i] = t == 0 ? model_->bos_id() : (t - 1 < len ? targets.sequence(i)[t - 1] : eos);
    }
    model_->step(s.inputs, batch, t, s.log_probs);
    for (size_t i = 0; i < batch; ++i) {
      const size_t len = targets.length(i);
      if (t > len) continue;
      const int32_t expected = t < len ? targets.sequence(i)[t] : eos;
      s.score_log_probs[s.score_offsets[i] + t] = s.log_probs[i * vocab_size + static_cast<size_t>(expected)];
    }
  }
  return Status::success();
}

}  // namespace heed
