// The seed applications of BERT-family models converted with `heed convert --from hf-bert`:
// - Classifier: BertForSequenceClassification, text -> one score per label (the [CLS] row through
//   the pooler, dense + tanh, and the classifier; the scores are the logits through the function
//   transformers' text-classification pipeline applies: softmax, sigmoid or none);
// - MaskFiller: BertForMaskedLM, the most likely tokens for each [MASK] of a text (the MLM head,
//   the probabilities a softmax over the vocabulary gives, as transformers' fill-mask pipeline).
// Two layers, like the Embedder (heed/embedder.h): token ids (no heap allocation per call, the
// session planned once at creation) and text (BERT's WordPiece, [CLS] ... [SEP], truncated to
// max_length; allocates, for tools).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heed/arena.h"
#include "heed/embedder.h"
#include "heed/model.h"
#include "heed/status.h"
#include "heed/step_model.h"

namespace heed {

class EncoderTask;  // the session and the text layer (runtime/src/embedder/encoder_task.h)

// The embedder's options (max_batch, max_length: 0 is the model's position table here, arena,
// load, threads).
using EncoderTaskOptions = EmbedderOptions;

// What both tasks share: the session's limits and memory, and the text layer's encoding ([CLS] +
// WordPiece ids + [SEP], truncated to max_length).
class EncoderTaskRunner {
 public:
  using Options = EncoderTaskOptions;
  virtual ~EncoderTaskRunner();
  size_t max_batch() const;
  size_t max_length() const;
  const ArenaReport& arena_report() const;
  Status encode(std::string_view text, std::vector<int32_t>* ids) const;

 protected:
  friend class EncoderTask;
  EncoderTaskRunner();
  std::unique_ptr<EncoderTask> task_;
};

// How a classifier's logits become its scores (transformers' function_to_apply).
enum class ScoreFunction { kSoftmax, kSigmoid, kIdentity };
const char* score_function_name(ScoreFunction f);

class Classifier : public EncoderTaskRunner {
 public:
  // Models converted from BertForSequenceClassification only; `model` must outlive the Classifier.
  static Status create(const Model& model, const EncoderTaskOptions& options, std::unique_ptr<Classifier>* out);
  static Status open(const std::string& path, const EncoderTaskOptions& options, std::unique_ptr<Classifier>* out);
  static Status plan(const Model& model, const EncoderTaskOptions& options, ArenaReport* out);

  size_t num_labels() const;
  const std::string& label(size_t id) const;  // id < num_labels()
  ScoreFunction function() const;

  // Token-id layer (no allocation): out[s, num_labels()] for each sentence of the batch ([CLS] ...
  // [SEP] ids), the raw logits or the scores. Errors as Embedder::embed_ids.
  Status logits(const TokenBatch& batch, float* out);
  Status classify_ids(const TokenBatch& batch, float* scores);
  // Text layer: the scores of any number of texts (texts.size() x num_labels()).
  Status classify_text(const std::vector<std::string>& texts, std::vector<float>* scores);

 private:
  friend class EncoderTask;
  Classifier() = default;
};

// One candidate for a masked position: a vocabulary id and its probability.
struct MaskCandidate {
  int32_t id = -1;
  float score = 0.0f;
};

class MaskFiller : public EncoderTaskRunner {
 public:
  // Models converted from BertForMaskedLM only; `model` must outlive the MaskFiller.
  static Status create(const Model& model, const EncoderTaskOptions& options, std::unique_ptr<MaskFiller>* out);
  static Status open(const std::string& path, const EncoderTaskOptions& options, std::unique_ptr<MaskFiller>* out);
  static Status plan(const Model& model, const EncoderTaskOptions& options, ArenaReport* out);

  int32_t mask_id() const;  // the [MASK] token's id
  size_t vocab_size() const;
  // The vocabulary entry of `id` (id < vocab_size()).
  const std::string& token(int32_t id) const;

  // Token-id layer (no allocation). Every mask_id() in the batch, sentence by sentence, gets its
  // top_k candidates (highest probability first) at out[m * top_k ..]; *masks is how many masks the
  // batch has (set also when out is too small: capacity < masks x top_k is kInvalidArgument).
  Status fill_ids(const TokenBatch& batch, size_t top_k, MaskCandidate* out, size_t capacity, size_t* masks);
  // The same masks' vocabulary logits, [masks, vocab_size()] (capacity counts floats).
  Status mask_logits(const TokenBatch& batch, float* out, size_t capacity, size_t* masks);
  // Text layer: per text, per mask, top_k candidates.
  Status fill_text(const std::vector<std::string>& texts, size_t top_k,
                   std::vector<std::vector<std::vector<MaskCandidate>>>* out);

 private:
  friend class EncoderTask;
  MaskFiller() = default;
  template <typename Each>
  Status for_each_mask(const TokenBatch& batch, size_t per_mask, size_t capacity, size_t* masks, Each each);
  int32_t mask_id_ = -1;
};

}  // namespace heed
