// Sentence embeddings from encoder-only Transformers (BERT, MiniLM and other BERT-family models
// converted with `heed convert --from hf-bert`): text -> WordPiece ids -> encoder -> one vector.
//
// Two layers, like the Generator:
// - token ids (embed_ids()): no heap allocation per call. Each sentence is [CLS] ... [SEP] as the
//   model's tokenizer makes it; the batch's sentences are packed without padding, and attention
//   only ever sees a sentence's own tokens (what BERT's padding mask does);
// - text (encode(), embed_text()): BERT's tokenization (WordPiece over the model's vocab.txt, the
//   casing rules it was trained with), [CLS] and [SEP] added, truncated to max_length. Allocates,
//   for tools.
// Pooling: kMean averages the last hidden states over the sentence's tokens ([CLS] and [SEP]
// included, as sentence-transformers' mean pooling with the attention mask does); kCls takes the
// [CLS] row. `normalize` divides the result by its L2 norm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heed/arena.h"
#include "heed/model.h"
#include "heed/status.h"
#include "heed/step_model.h"

namespace heed {

class EncoderTask;  // the session and the text layer (runtime/src/embedder/encoder_task.h)

enum class Pooling { kMean, kCls };

// "mean" / "cls" -> Pooling; false for anything else.
bool parse_pooling(std::string_view name, Pooling* out);
const char* pooling_name(Pooling pooling);

struct EmbedderOptions {
  size_t max_batch = 8;    // sentences per call
  size_t max_length = 0;   // tokens per sentence, [CLS] and [SEP] included; 0: the length the model was
                           // trained to read (sentence-transformers' max_seq_length), else its position table
  ArenaOptions arena;      // session memory: allocate (default) or the caller's buffer
  LoadOptions load;        // how open() reads the file (mapped by default)
  size_t threads = 1;      // session threads; 0: one per core; the same results for any count
  uint32_t spin_microseconds = 100;  // an idle worker spins this long, then sleeps (<= 1 s)
};

class Embedder {
 public:
  using Options = EmbedderOptions;
  // Builds a session over `model` (which must outlive the Embedder): encoder-only models only.
  static Status create(const Model& model, const EmbedderOptions& options, std::unique_ptr<Embedder>* out);
  // Opens the file and keeps the Model with the Embedder.
  static Status open(const std::string& path, const EmbedderOptions& options, std::unique_ptr<Embedder>* out);
  // The arena a session with these options would use, without allocating it.
  static Status plan(const Model& model, const EmbedderOptions& options, ArenaReport* out);
  ~Embedder();

  size_t dimension() const;
  size_t max_batch() const;
  size_t max_length() const;
  // The pooling the converter recorded (metadata "embedding.pooling"), kMean when none.
  Pooling default_pooling() const { return default_pooling_; }
  // Whether the model's pipeline ends with a Normalize module (metadata "embedding.normalize").
  bool default_normalize() const { return default_normalize_; }
  const ArenaReport& arena_report() const;

  // Token-id layer (no allocation). out: [batch.size, dimension()] row-major. Errors: an empty or
  // too large batch, a sentence that is empty or longer than max_length, ids outside the vocabulary.
  Status embed_ids(const TokenBatch& batch, Pooling pooling, bool normalize, float* out);
  // The last hidden states of sentence `i` of the last embed_ids() call: [length, dimension()]
  // in session memory, valid until the next call; nullptr when there is no such sentence.
  const float* last_hidden_states(size_t i, size_t* length) const;

  // Text layer. encode(): [CLS] + WordPiece ids + [SEP], the pieces cut so the total fits max_length.
  Status encode(std::string_view text, std::vector<int32_t>* ids) const;
  // Embeds any number of texts (in chunks of max_batch); out: texts.size() x dimension().
  Status embed_text(const std::vector<std::string>& texts, Pooling pooling, bool normalize, std::vector<float>* out);

 private:
  friend class EncoderTask;
  Embedder();
  std::unique_ptr<EncoderTask> task_;
  Pooling default_pooling_ = Pooling::kMean;
  bool default_normalize_ = false;
};

}  // namespace heed
