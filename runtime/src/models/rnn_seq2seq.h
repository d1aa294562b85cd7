// The RNN encoder-decoder with attention (RnnSeq2Seq in schema/heed.fbs) as a StepModel.
//
// start() runs the (bi)LSTM/GRU encoder over each source sentence once, keeps its states (the
// attention memory) and their per-source score part, and seeds every hypothesis row of the
// sentence with the encoder's final states (directions concatenated). step() runs one decoder
// position for all rows:
//   Luong:    h_t = cells([y_t; htilde_{t-1}] or y_t); c_t = attend(h_t)
//   Bahdanau: c_t = attend(s_{t-1}); s_t = cells([y_t; c_t])
//   htilde_t = tanh(W_c [c_t; h_t]); log p = log_softmax(W_out htilde_t + b)
//   without attention (score NoAttention): log p = log_softmax(W_out h_t + b)
// y_t is the target embedding, or its ReLU with decoder_input_relu.
// reorder() permutes the rows' recurrent states for beam search. One arena holds every buffer;
// nothing allocates after create().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "heed/model.h"
#include "layers/embeddings.h"
#include "layers/linear.h"
#include "models/step_session.h"
#include "rnn/recurrent_cell.h"
#include "rnn/rnn_attention.h"

namespace heed::rnn {

class RnnSeq2Seq final : public models::StepSession {
 public:
  size_t vocab_size() const override { return target_vocab_; }

  Status start(const TokenBatch* sources, size_t batch, size_t beam) override;
  // Invalid calls (not started, too many rows, a step beyond the limit, an id outside the
  // vocabulary) cannot return a Status: they leave the states untouched and fill log_probs with
  // NaN.
  void step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) override;
  // parents[r] must be a row of the same sentence (r / beam); otherwise nothing changes.
  void reorder(const int32_t* parents, size_t rows) override;
  // Finished sentences leave the batch: the kept rows' states (and input feeding) move forward.
  bool compact_rows(const int32_t* keep, size_t count) override;

  // The last step's attention weights of row r over its source (valid until the next step).
  const float* attention(size_t row) const;
  // Capture costs nothing here: the alignment vectors already live in the arena ([rows, S]).
  // (A model without attention refuses capture_attention when the session is created.)
  size_t attention_panels() const override { return limits_.capture_attention ? 1 : 0; }
  const float* last_attention() const override { return limits_.capture_attention ? weights_.ptr : nullptr; }

 private:
  friend class models::Session;
  RnnSeq2Seq() = default;
  Status load(const Model& model, const StepModelLimits& limits);
  Status load_cells(const Model& model);
  Status load_attention(const Model& model, const fb::RnnSeq2Seq& c, const StepModelLimits& limits);
  void plan(ArenaPlanner* planner) override;
  void bind(const ArenaPlanner& planner) override;
  void encode(size_t sentence, const int32_t* ids, size_t length);
  layers::QuantScratch quant() const;

  bool lstm_ = true, bidirectional_ = false, luong_ = true, feeding_ = false;
  bool attend_ = true;       // false: no attention, the output layer reads h_t
  bool relu_input_ = false;  // y_t = ReLU(embedding)
  size_t layers_ = 1, embed_ = 0, hidden_ = 0, enc_hidden_ = 0, source_vocab_ = 0, target_vocab_ = 0;
  size_t dec_input_ = 0;    // decoder layer 0 input width
  size_t quant_rows_ = 0, quant_cols_ = 0;

  layers::Embeddings source_embeddings_, target_embeddings_;
  std::vector<RecurrentCell> encoder_;  // layer * directions + direction
  std::vector<RecurrentCell> decoder_;
  RnnAttention attention_;
  layers::Linear combine_, output_;

  struct Buf {
    size_t id = 0;
    float* ptr = nullptr;
  };
  Buf memory_, keys_, enc_a_, enc_b_, enc_gx_, enc_gh_, enc_h_, enc_c_;
  Buf state_h_, state_c_, feed_, x0_, gx_, gh_, comb_, htilde_, weights_, att_scratch_, reorder_;
  Buf quant_q_, quant_scales_, lengths_;
  Buf row_sentences_;  // uint32 [rows]: the sentence each hypothesis row decodes
};

}  // namespace heed::rnn
