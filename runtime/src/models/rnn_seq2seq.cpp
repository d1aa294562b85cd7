#include "models/rnn_seq2seq.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "heed_format/rnn_names.h"
#include "layers/beam_reorder.h"
#include "models/decoder_head.h"
#include "models/token_batch_check.h"
#include "loader/model_index.h"

namespace heed::rnn {

namespace {

size_t max_of(std::initializer_list<size_t> values) {
  size_t m = 0;
  for (size_t v : values) m = v > m ? v : m;
  return m;
}

}  // namespace

Status RnnSeq2Seq::load(const Model& model, const StepModelLimits& limits) {
  const fb::RnnSeq2Seq* c = file_index(model).config_as_RnnSeq2Seq();
  if (c == nullptr) return invalid_argument("not an RNN seq2seq model");
  HEED_RETURN_IF_ERROR(set_limits(limits, /*needs_source=*/true));
  lstm_ = c->cell() == fb::RnnCell::LSTM;
  bidirectional_ = c->bidirectional_encoder();
  luong_ = c->placement() == fb::AttentionPlacement::Luong;
  feeding_ = c->input_feeding() && luong_;
  attend_ = c->score() != fb::AttentionScore::NoAttention;
  relu_input_ = c->decoder_input_relu();
  if (limits.capture_attention && !attend_) {
    return invalid_argument("this model has no attention to capture (score NoAttention)");
  }
  layers_ = c->decoder_layers();
  embed_ = c->embedding_dim();
  hidden_ = c->hidden_dim();
  source_vocab_ = c->source_vocab_size();
  target_vocab_ = c->target_vocab_size();
  if (c->encoder_layers() != c->decoder_layers()) {
    return unsupported_model("rnn: the decoder starts from the encoder's final states, so encoder_layers (" +
                             std::to_string(c->encoder_layers()) + ") must equal decoder_layers (" +
                             std::to_string(c->decoder_layers()) + ")");
  }
  if (bidirectional_ && hidden_ % 2 != 0) {
    return invalid_file("rnn: a bidirectional encoder needs an even hidden_dim, not " + std::to_string(hidden_));
  }
  enc_hidden_ = bidirectional_ ? hidden_ / 2 : hidden_;
  dec_input_ = embed_ + (feeding_ || !luong_ ? hidden_ : 0);

  namespace n = names::rnn;
  HEED_RETURN_IF_ERROR(source_embeddings_.load(model, n::kEncoderEmbeddings, source_vocab_, embed_));
  HEED_RETURN_IF_ERROR(target_embeddings_.load(model, n::kDecoderEmbeddings, target_vocab_, embed_));
  HEED_RETURN_IF_ERROR(load_cells(model));
  HEED_RETURN_IF_ERROR(load_attention(model, *c, limits));
  HEED_RETURN_IF_ERROR(output_.load(model, n::kOutput, target_vocab_, hidden_));

  HEED_RETURN_IF_ERROR(models::read_start_and_end(model, target_vocab_, /*start_optional=*/false, &bos_id_, &eos_id_));
  quant_rows_ = max_of({limits.max_source_len, max_rows_, attention_.quant_rows(limits.max_source_len)});
  quant_cols_ = max_of({embed_, dec_input_, 2 * hidden_, attention_.quant_cols()});
  return Status::success();
}

// The encoder's cells (two directions per layer when bidirectional) and the decoder's.
Status RnnSeq2Seq::load_cells(const Model& model) {
  namespace n = names::rnn;
  const size_t dirs = bidirectional_ ? 2 : 1;
  encoder_.assign(layers_ * dirs, RecurrentCell());
  decoder_.assign(layers_, RecurrentCell());
  for (size_t l = 0; l < layers_; ++l) {
    for (size_t d = 0; d < dirs; ++d) {
      HEED_RETURN_IF_ERROR(encoder_[l * dirs + d].load(model, n::encoder_cell(int(l), d == 1), lstm_,
                                                       l == 0 ? embed_ : hidden_, enc_hidden_));
    }
    HEED_RETURN_IF_ERROR(decoder_[l].load(model, n::decoder_cell(int(l)), lstm_, l == 0 ? dec_input_ : hidden_,
                                          hidden_));
  }
  return Status::success();
}

// The attention over the source and, when the model attends, the layer combining its context
// with the decoder state.
Status RnnSeq2Seq::load_attention(const Model& model, const fb::RnnSeq2Seq& c, const StepModelLimits& limits) {
  namespace n = names::rnn;
  AttentionConfig ac;
  ac.score = c.score();
  ac.alignment = c.alignment();
  ac.hard = c.hard();
  ac.hidden = hidden_;
  ac.attention_dim = c.attention_dim();
  ac.window = c.window();
  ac.positions = c.max_source_positions();
  if (ac.score == fb::AttentionScore::Location && limits.max_source_len > ac.positions) {
    return invalid_argument("max_source_len " + std::to_string(limits.max_source_len) +
                            " exceeds the location attention's " + std::to_string(ac.positions) + " source positions");
  }
  HEED_RETURN_IF_ERROR(attention_.load(model, ac));
  if (attend_) {
    HEED_RETURN_IF_ERROR(combine_.load(model, std::string(n::kCombine) + ".weight", "", hidden_, 2 * hidden_));
  }
  return Status::success();
}

void RnnSeq2Seq::plan(ArenaPlanner* p) {
  const size_t f = sizeof(float), S = limits_.max_source_len, R = max_rows_, H = hidden_;
  const auto m = [](size_t a, size_t b, size_t c = 1, size_t d = 1) {
    return saturating_mul(saturating_mul(saturating_mul(a, b), c), d);
  };
  const size_t enc_gates = (lstm_ ? 4 : 3) * enc_hidden_, dec_gates = (lstm_ ? 4 : 3) * H;
  const size_t key_dim = attention_.key_dim() > 0 ? attention_.key_dim() : 1;
  // Everything lives for the whole session (phase 0): the model is small and this keeps the
  // layout obvious; the encoder scratch is the only thing that could share.
  memory_.id = p->request("encoder.memory", m(limits_.max_batch, S, H, f), 0, 0);
  keys_.id = p->request("attention.keys", m(limits_.max_batch, S, key_dim, f), 0, 0);
  enc_a_.id = p->request("encoder.layer_a", m(S, max_of({embed_, H}), f), 0, 0);
  enc_b_.id = p->request("encoder.layer_b", m(S, H, f), 0, 0);
  enc_gx_.id = p->request("encoder.input_gates", m(S, enc_gates, f), 0, 0);
  enc_gh_.id = p->request("encoder.recurrent_gates", m(enc_gates, f), 0, 0);
  enc_h_.id = p->request("encoder.h", m(enc_hidden_, f), 0, 0);
  enc_c_.id = p->request("encoder.c", m(enc_hidden_, f), 0, 0);
  state_h_.id = p->request("decoder.h", m(layers_, R, H, f), 0, 0);
  state_c_.id = p->request("decoder.c", m(layers_, R, H, f), 0, 0);
  feed_.id = p->request("decoder.input_feed", m(R, H, f), 0, 0);
  x0_.id = p->request("decoder.input", m(R, dec_input_, f), 0, 0);
  gx_.id = p->request("decoder.input_gates", m(R, dec_gates, f), 0, 0);
  gh_.id = p->request("decoder.recurrent_gates", m(R, dec_gates, f), 0, 0);
  comb_.id = p->request("decoder.context_and_h", m(R, 2 * H, f), 0, 0);
  htilde_.id = p->request("decoder.attentional", m(R, H, f), 0, 0);
  weights_.id = p->request("attention.weights", m(R, S, f), 0, 0);
  att_scratch_.id = p->request("attention.scratch", m(attention_.scratch_floats(S), f), 0, 0);
  reorder_.id = p->request("reorder_scratch", m(R, H, f), 0, 0);
  quant_q_.id = p->request("quantized_activations", m(quant_rows_, quant_cols_), 0, 0);
  quant_scales_.id = p->request("quantized_scales", m(quant_rows_, layers::quant_scales_per_row(quant_cols_), f), 0, 0);
  lengths_.id = p->request("source_lengths", m(limits_.max_batch, sizeof(size_t)), 0, 0);
  row_sentences_.id = p->request("row_sentences", m(R, sizeof(uint32_t)), 0, 0);
}

void RnnSeq2Seq::bind(const ArenaPlanner& p) {
  for (Buf* b : {&memory_, &keys_, &enc_a_, &enc_b_, &enc_gx_, &enc_gh_, &enc_h_, &enc_c_, &state_h_, &state_c_,
                 &feed_, &x0_, &gx_, &gh_, &comb_, &htilde_, &weights_, &att_scratch_, &reorder_, &quant_q_,
                 &quant_scales_, &lengths_, &row_sentences_}) {
    b->ptr = arena_.at<float>(p.offset(b->id));
  }
}

layers::QuantScratch RnnSeq2Seq::quant() const {
  return layers::QuantScratch{reinterpret_cast<int8_t*>(quant_q_.ptr), quant_scales_.ptr, quant_rows_, quant_cols_};
}

const float* RnnSeq2Seq::attention(size_t row) const {
  if (!started_ || row >= batch_ * beam_) return nullptr;
  return weights_.ptr + row * limits_.max_source_len;
}

Status RnnSeq2Seq::start(const TokenBatch* sources, size_t batch, size_t beam) {
  started_ = false;
  if (sources == nullptr || sources->offsets == nullptr ||
      (sources->ids == nullptr && sources->offsets[sources->size] > sources->offsets[0])) {
    return invalid_argument("an RNN seq2seq model needs a batch of source sentences");
  }
  if (sources->size != batch) {
    return invalid_argument("the source batch holds " + std::to_string(sources->size) +
                            " sequences, but batch is " + std::to_string(batch));
  }
  HEED_RETURN_IF_ERROR(begin(batch, beam));
  HEED_RETURN_IF_ERROR(models::check_token_batch(*sources, {limits_.max_source_len, source_vocab_}));
  const size_t H = hidden_;
  size_t* lengths = reinterpret_cast<size_t*>(lengths_.ptr);
  std::memset(feed_.ptr, 0, batch * beam * H * sizeof(float));
  uint32_t* sentences = reinterpret_cast<uint32_t*>(row_sentences_.ptr);
  for (size_t r = 0; r < batch * beam; ++r) sentences[r] = static_cast<uint32_t>(r / beam);
  for (size_t b = 0; b < batch; ++b) {
    lengths[b] = sources->length(b);
    encode(b, sources->sequence(b), lengths[b]);
    // Every hypothesis row of the sentence starts from the encoder's final states (row b * beam).
    for (size_t l = 0; l < layers_; ++l) {
      for (float* state : {state_h_.ptr, state_c_.ptr}) {
        float* first = state + (l * max_rows_ + b * beam) * H;
        for (size_t j = 1; j < beam; ++j) std::memcpy(first + j * H, first, H * sizeof(float));
      }
    }
  }
  started_ = true;
  return Status::success();
}

void RnnSeq2Seq::encode(size_t b, const int32_t* ids, size_t len) {
  const kernels::KernelTable& k = *k_;
  const layers::QuantScratch q = quant();
  const size_t H = hidden_, He = enc_hidden_, S = limits_.max_source_len, dirs = bidirectional_ ? 2 : 1;
  const size_t row0 = b * beam_;
  float* memory = memory_.ptr + b * S * H;
  for (size_t t = 0; t < len; ++t) source_embeddings_.gather(static_cast<size_t>(ids[t]), 1.0f, false, enc_a_.ptr + t * embed_);
  const float* in = enc_a_.ptr;
  size_t ld_in = embed_;
  for (size_t l = 0; l < layers_; ++l) {
    float* out = l + 1 == layers_ ? memory : (in == enc_a_.ptr ? enc_b_.ptr : enc_a_.ptr);
    for (size_t d = 0; d < dirs; ++d) {
      const RecurrentCell& cell = encoder_[l * dirs + d];
      const size_t g = cell.gates();
      if (len > 0) cell.input_gates(k, in, len, ld_in, enc_gx_.ptr, q, pool_.get());
      std::memset(enc_h_.ptr, 0, He * sizeof(float));
      std::memset(enc_c_.ptr, 0, He * sizeof(float));
      for (size_t i = 0; i < len; ++i) {
        const size_t t = d == 0 ? i : len - 1 - i;
        cell.update(k, enc_gx_.ptr + t * g, enc_gh_.ptr, enc_h_.ptr, enc_c_.ptr, 1, q, pool_.get());
        std::memcpy(out + t * H + d * He, enc_h_.ptr, He * sizeof(float));
      }
      // Final states of this layer and direction seed the decoder's layer l.
      std::memcpy(state_h_.ptr + (l * max_rows_ + row0) * H + d * He, enc_h_.ptr, He * sizeof(float));
      std::memcpy(state_c_.ptr + (l * max_rows_ + row0) * H + d * He, enc_c_.ptr, He * sizeof(float));
    }
    in = out;
    ld_in = H;
  }
  if (len > 0 && attention_.key_dim() > 0) {
    attention_.precompute(k, memory, len, keys_.ptr + b * S * attention_.key_dim(), q);
  }
}

void RnnSeq2Seq::step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) {
  const size_t H = hidden_, V = target_vocab_, S = limits_.max_source_len;
  // Any step may be asked again (the states hold no positions): no order check.
  if (!check_step(input_ids, rows, step, log_probs, V, /*in_order=*/false)) return;
  cache_length_ = step + 1;
  const kernels::KernelTable& k = *k_;
  const layers::QuantScratch q = quant();
  const size_t* lengths = reinterpret_cast<const size_t*>(lengths_.ptr);
  const size_t key_dim = attention_.key_dim();
  const uint32_t* sentences = reinterpret_cast<const uint32_t*>(row_sentences_.ptr);
  float* top = state_h_.ptr + (layers_ - 1) * max_rows_ * H;
  const auto attend = [&](size_t r, const float* query) {
    const size_t b = sentences[r];
    attention_.attend(k, query, memory_.ptr + b * S * H, keys_.ptr + b * S * key_dim, lengths[b], step,
                      weights_.ptr + r * S, comb_.ptr + r * 2 * H, att_scratch_.ptr, q);
  };

  for (size_t r = 0; r < rows; ++r) {
    float* x = x0_.ptr + r * dec_input_;
    target_embeddings_.gather(static_cast<size_t>(input_ids[r]), 1.0f, false, x);
    if (relu_input_) {
      for (size_t j = 0; j < embed_; ++j) x[j] = x[j] > 0.0f ? x[j] : 0.0f;
    }
    if (feeding_) std::memcpy(x + embed_, feed_.ptr + r * H, H * sizeof(float));
    if (!luong_) {  // Bahdanau: attend from s_{t-1}, the context joins the cell input
      attend(r, top + r * H);
      std::memcpy(x + embed_, comb_.ptr + r * 2 * H, H * sizeof(float));
    }
  }
  for (size_t l = 0; l < layers_; ++l) {
    const RecurrentCell& cell = decoder_[l];
    const float* in = l == 0 ? x0_.ptr : state_h_.ptr + (l - 1) * max_rows_ * H;
    cell.input_gates(k, in, rows, l == 0 ? dec_input_ : H, gx_.ptr, q, pool_.get());
    cell.update(k, gx_.ptr, gh_.ptr, state_h_.ptr + l * max_rows_ * H, state_c_.ptr + l * max_rows_ * H, rows, q,
                pool_.get());
  }
  const float* head_input = top;  // without attention, the output layer reads h_t
  if (attend_) {
    for (size_t r = 0; r < rows; ++r) {
      if (luong_) attend(r, top + r * H);
      std::memcpy(comb_.ptr + r * 2 * H + H, top + r * H, H * sizeof(float));
    }
    combine_.forward(k, comb_.ptr, rows, 2 * H, htilde_.ptr, H, kernels::Activation::kNone, false, q, pool_.get());
    k.tanh_f32(htilde_.ptr, rows * H);
    if (feeding_) std::memcpy(feed_.ptr, htilde_.ptr, rows * H * sizeof(float));
    head_input = htilde_.ptr;
  }
  output_.forward(k, head_input, rows, H, log_probs, V, kernels::Activation::kNone, false, q, pool_.get());
  finish_step(log_probs, rows);
}

void RnnSeq2Seq::reorder(const int32_t* parents, size_t rows) {
  if (!can_reorder(rows) || !layers::beam_reorder_moves(parents, rows, beam_)) return;
  const size_t H = hidden_;
  for (size_t l = 0; l < layers_; ++l) {
    layers::beam_reorder_rows(state_h_.ptr + l * max_rows_ * H, H, H, parents, rows, reorder_.ptr);
    if (lstm_) layers::beam_reorder_rows(state_c_.ptr + l * max_rows_ * H, H, H, parents, rows, reorder_.ptr);
  }
  if (feeding_) layers::beam_reorder_rows(feed_.ptr, H, H, parents, rows, reorder_.ptr);
}

bool RnnSeq2Seq::compact_rows(const int32_t* keep, size_t count) {
  if (!can_compact(keep, count)) return false;
  const size_t H = hidden_;
  uint32_t* sentences = reinterpret_cast<uint32_t*>(row_sentences_.ptr);
  // keep is increasing and keep[k] >= k: in order, nothing is overwritten before it is read.
  const auto move_rows = [&](float* rows) {
    for (size_t k = 0; k < count; ++k) {
      const size_t from = static_cast<size_t>(keep[k]);
      if (from != k) std::memcpy(rows + k * H, rows + from * H, H * sizeof(float));
    }
  };
  for (size_t l = 0; l < layers_; ++l) {
    move_rows(state_h_.ptr + l * max_rows_ * H);
    if (lstm_) move_rows(state_c_.ptr + l * max_rows_ * H);
  }
  if (feeding_) move_rows(feed_.ptr);
  for (size_t k = 0; k < count; ++k) sentences[k] = sentences[keep[k]];
  return true;
}

}  // namespace heed::rnn
