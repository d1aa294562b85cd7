// The high-level translation API: a loaded Model, its StepModel session, its vocabularies and the
// decoding engine, together.
//
// Two layers:
// - token ids (translate(), score()): no heap allocation per call, results are views valid until
//   the next call on the same Translator;
// - token strings (translate_tokens(), score_tokens()): maps whitespace tokens to ids with the
//   model's vocabularies (unknown tokens -> unk_id) and ids back to tokens (stopping at EOS,
//   skipping BOS/EOS), splits work into batches of the session's max_batch, shortest sources first
//   (less padding; results come back in the callers' order). Allocates, for tools. Plain text
//   (paragraphs, lines) goes through heed/text_translator.h, which calls this layer.
//
// Source special tokens: when the model's metadata says add_source_bos / add_source_eos = "true"
// (converters set them for models trained that way), the token layer adds BOS / EOS around each
// source; the id layer takes sources exactly as given. The source EOS is the metadata's
// source_eos_id when recorded (torch-seq2seq's append_source_eos), else the target EOS's token
// looked up in the source vocabulary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "heed/arena.h"
#include "heed/decoding.h"
#include "heed/model.h"
#include "heed/status.h"
#include "heed/step_model.h"
#include "heed/tokenizer.h"

namespace heed {

// Token strings <-> ids of one side of a model.
class Vocabulary {
 public:
  Vocabulary() = default;
  explicit Vocabulary(std::vector<std::string> tokens);
  // Movable, not copyable: the lookup table holds views of the token strings.
  Vocabulary(Vocabulary&&) = default;
  Vocabulary& operator=(Vocabulary&&) = default;
  Vocabulary(const Vocabulary&) = delete;
  Vocabulary& operator=(const Vocabulary&) = delete;

  size_t size() const { return tokens_.size(); }
  bool empty() const { return tokens_.empty(); }
  int32_t id(std::string_view token) const;  // -1 when absent
  const std::string& token(int32_t id) const { return tokens_[static_cast<size_t>(id)]; }

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string_view, int32_t> ids_;  // views into tokens_
};

struct TranslatorOptions {
  // Max batch, max beam, max source and target length. A length of 0 is the default: 256, or the
  // model's positions on that side when it has fewer (Translator::session_limits).
  StepModelLimits limits{8, 4, 0, 0};
  size_t max_n_best = 0;                   // 0: limits.max_beam
  ArenaOptions arena;                      // session memory: allocate (default) or caller's buffer
  LoadOptions load;                        // how open() reads the file (mapped by default)
  size_t threads = 1;                      // session threads; 0: one per core (create_step_model)
  uint32_t spin_microseconds = 100;        // an idle worker spins this long, then sleeps (<= 1 s)
};

// The special ids and source conventions the token layer needs. Ids are target-vocabulary ids (as
// in the file's tokenizer section); on the source side the same token strings are looked up in the
// source vocabulary (source and target vocabularies may number them differently).
struct TokenConventions {
  int32_t unk_id = -1;  // -1: unknown tokens are an error
  int32_t bos_id = -1;
  int32_t eos_id = -1;
  bool add_source_bos = false;
  bool add_source_eos = false;
  int32_t source_eos_id = -1;  // a source-vocabulary id; -1: eos_id's token looked up in the source vocabulary
  TokenizerKind kind = TokenizerKind::Whitespace;  // how plain text becomes tokens
};

// One hypothesis in token form.
struct TranslationHypothesis {
  std::vector<std::string> tokens;
  std::vector<int32_t> ids;
  std::vector<float> token_log_probs;  // EOS included when the hypothesis ended with it
  float score = 0;
  float log_prob = 0;
  // With TranslatorOptions::limits.capture_attention: one row per token_log_probs entry (EOS
  // included), each `attention_panels` vectors over the `attention_source_len` source ids (the
  // source as given to the model: added BOS/EOS included). Empty otherwise.
  std::vector<float> attention;  // [token_log_probs.size(), attention_panels, attention_source_len]
  size_t attention_panels = 0;
  size_t attention_heads = 0;    // panels per layer: panel = layer * attention_heads + head
  size_t attention_source_len = 0;
};

// CTranslate2's return_attention for one hypothesis: one row per target token (the end token
// excluded) over the attention_source_len source positions, the last decoder layer's heads
// averaged; [tokens.size() * attention_source_len]. Empty when the attention was not captured.
std::vector<float> last_layer_attention(const TranslationHypothesis& h);

class Translator {
 public:
  // Builds the StepModel of `model` (which must outlive the Translator) with create_step_model and
  // reads its vocabularies and special ids. The model needs source and target vocabularies.
  static Status create(const Model& model, const TranslatorOptions& options, std::unique_ptr<Translator>* out);
  // Opens the file (Model::open with options.load) and keeps the Model with the Translator.
  static Status open(const std::string& path, const TranslatorOptions& options, std::unique_ptr<Translator>* out);
  // Any StepModel with its vocabularies (other families, tests).
  static Status create(std::unique_ptr<StepModel> step_model, Vocabulary source, Vocabulary target,
                       const TokenConventions& conventions, size_t max_n_best, std::unique_ptr<Translator>* out);
  ~Translator();

  // Source and target lengths left at 0 in TranslatorOptions::limits.
  static constexpr size_t kDefaultLength = 256;
  // The session limits create() plans for: `limits` with a max_source_len or max_target_len of 0
  // replaced by kDefaultLength, or by the model's positions on that side when it has fewer
  // (Model::position_limits). Lengths given are kept: one above the model's positions is refused
  // when the session is created.
  static StepModelLimits session_limits(const Model& model, StepModelLimits limits);
  // The arena create() would plan for `options` (its limits, threads and spin), without creating
  // a session: what a caller supplying its own buffer (ArenaOptions) must give, in report.arena_bytes.
  static Status plan_arena(const Model& model, const TranslatorOptions& options, ArenaReport* report);

  // Token-id layer: no allocation per call.
  Status translate(const TokenBatch& sources, const DecodeOptions& options, const TokenBatch* prefixes,
                   DecodeOutput* out);
  Status score(const TokenBatch& sources, const TokenBatch& targets, ScoreOutput* out);

  // Token-string layer. `prefixes`: null or one (possibly empty) prefix per source.
  // out[i] holds the hypotheses of sources[i], best first.
  Status translate_tokens(const std::vector<std::vector<std::string>>& sources, const DecodeOptions& options,
                          const std::vector<std::vector<std::string>>* prefixes,
                          std::vector<std::vector<TranslationHypothesis>>* out);
  // out[i]: the log-prob of each target token, then of EOS.
  Status score_tokens(const std::vector<std::vector<std::string>>& sources,
                      const std::vector<std::vector<std::string>>& targets, std::vector<std::vector<float>>* out);

  // Mapping helpers of the token layer.
  Status source_ids(const std::vector<std::string>& tokens, std::vector<int32_t>* ids) const;  // adds BOS/EOS per conventions
  Status target_ids(const std::vector<std::string>& tokens, std::vector<int32_t>* ids) const;
  // Splits a line into whitespace-separated tokens (spaces, tabs; runs count as one).
  static std::vector<std::string> split_tokens(std::string_view line);
  // Tokens of `ids` up to the first EOS, BOS and EOS left out; `every_token`: all of them.
  std::vector<std::string> target_tokens(const int32_t* ids, size_t n, bool every_token = false) const;

  const StepModelLimits& limits() const { return step_model_->limits(); }
  const Vocabulary& source_vocabulary() const { return source_; }
  const Vocabulary& target_vocabulary() const { return target_; }
  const TokenConventions& conventions() const { return conventions_; }
  // Longest token-level source the session accepts (max_source_len minus added BOS/EOS).
  size_t max_source_tokens() const;
  // Cuts a token-level source down to max_source_tokens(), as CTranslate2's max_input_length does:
  // the first tokens stay, and a source that ends with the end token (or with the end token and a
  // language code) still ends so. Returns whether tokens were dropped. The BOS/EOS the model adds
  // come on top (source_ids), so a cut source keeps the model's end token convention.
  bool truncate_source(std::vector<std::string>* tokens) const;

 private:
  Translator() = default;
  Status to_ids(const Vocabulary& vocab, int32_t unk_id, const char* side, const std::vector<std::string>& tokens,
                std::vector<int32_t>* ids) const;
  std::vector<std::string> hypothesis_tokens(const Hypothesis& h, size_t prefix_length, bool own_end_tokens) const;

  std::unique_ptr<Model> owned_model_;  // open() only; destroyed last
  std::unique_ptr<StepModel> step_model_;
  std::unique_ptr<DecodingEngine> engine_;
  Vocabulary source_, target_;
  TokenConventions conventions_;
  int32_t source_unk_ = -1, source_bos_ = -1, source_eos_ = -1;  // the special tokens' source ids
};

}  // namespace heed
