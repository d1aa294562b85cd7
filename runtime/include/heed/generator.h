// The high-level generation API for decoder-only language models: a loaded Model, its StepModel
// session, its tokenizer and the decoding engine together. The prompt is fed as a forced prefix
// after the start token (BOS), then tokens are chosen greedily or sampled until the end token or
// the token budget.
//
// Two layers:
// - token ids (generate()): no heap allocation per call or per token; the streaming callback
//   receives each generated token's id and text piece (a view, valid during the call);
// - text (encode(), generate_text()): tokenizes the prompt with the model's tokenizer (ByteBPE:
//   llama2.c's byte-fallback BPE; SentencePiece: the model embedded in the file (Hugging Face
//   Llama); ByteLevelBPE: GPT-2's; Whitespace: space-separated vocabulary entries) and returns the continuation's text.
//   Allocates, for tools.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "heed/arena.h"
#include "heed/chat.h"
#include "heed/decoding.h"
#include "heed/model.h"
#include "heed/status.h"
#include "heed/step_model.h"
#include "heed/tokenizer.h"

namespace heed {

class Tokenizer;
namespace tokenizer {
class ByteBpe;
class TokenPieces;
}
namespace generation {
class StartTokenModel;
}

struct GeneratorOptions {
  // Positions one generation may use: the start token + prompt + generated tokens. 0: the model's
  // own limit (learned position table or trained RoPE context), or 1024 when it has none.
  size_t max_context = 0;
  // Positions the caller's generations need at most (start token + prompt + new tokens), when it
  // knows them; 0: unknown. The session is planned for the smaller of this and max_context, so a
  // file claiming millions of positions does not size the arena of a 20-token run.
  size_t positions_needed = 0;
  ArenaOptions arena;  // session memory: allocate (default) or the caller's buffer
  size_t max_batch = 1;  // prompts per generate_batch() call (the session is planned for them)
  size_t threads = 1;  // session threads; 0: one per core (create_step_model)
  uint32_t spin_microseconds = 100;  // an idle worker spins this long, then sleeps (<= 1 s)
  Backend backend = Backend::kAuto;  // GEMM backend of f32 layers (heed/step_model.h)
  LoadOptions load;  // how open() reads the file (mapped by default)
};

struct GenerateOptions {
  size_t max_new_tokens = 256;  // generated tokens, the end token included; clipped to the context
  float temperature = 0.0f;     // 0: greedy (argmax); > 0: sampling at this temperature
  size_t top_k = 0;             // sampling among the K most likely tokens; 0: all
  float top_p = 1.0f;           // sampling among the smallest set reaching probability P
  uint64_t seed = 0;            // sampling is reproducible for a given seed on every platform
  // Unknown token, suppressed sequences, repetition penalty, repeated n-grams, end tokens
  // (heed/decoding.h); the history they look at is the generated tokens, not the prompt (as
  // CTranslate2's generate_batch with include_prompt_in_result=False).
  DecodeControls controls;
  // Stops generation with kCancelled / kDeadlineExceeded (DecodeOptions::cancel, ::deadline).
  const std::atomic<bool>* cancel = nullptr;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

// Streaming: one call per generated token (the end token is not reported). `text` is the token's
// piece after the previous token (the leading-space and byte rules of the tokenizer applied).
// Returning false stops the generation after this token (stop strings, a user's cancel).
using TokenCallback = bool (*)(void* user, int32_t id, std::string_view text);

// Result of generate(): views into the generator, valid until its next call.
struct Generation {
  const int32_t* ids = nullptr;  // generated tokens, prompt and end token excluded
  size_t length = 0;
  bool finished_with_eos = false;  // ended with an end token (not the budget or the callback)
  float log_prob = 0;            // sum of the generated tokens' log-probs (end token included)
  int32_t end_id = -1;           // generate(): the end token that finished it (finished_with_eos), else -1
  float end_log_prob = 0;        // generate(): that end token's log-prob
};

// Text-level stop strings (llama.cpp's `stop`): feed the generated pieces in order; text that can
// no longer be the start of a stop string is released, the rest held back until it can be told.
// Once a stop string is complete, the text before it is released and the one from it on dropped.
class StopStrings {
 public:
  explicit StopStrings(std::vector<std::string> stops);
  // Appends `piece`; adds the text now safe to show to *ready. True once a stop string appeared.
  bool feed(std::string_view piece, std::string* ready);
  // The end of the generation without a stop string: the text still held back.
  void flush(std::string* ready);
  bool empty() const { return stops_.empty(); }

 private:
  std::vector<std::string> stops_;
  std::string pending_;
};

class Generator {
 public:
  // Builds a session over `model` (which must outlive the Generator): decoder-only models only.
  static Status create(const Model& model, const GeneratorOptions& options, std::unique_ptr<Generator>* out);
  // Opens the file and keeps the Model with the Generator.
  static Status open(const std::string& path, const GeneratorOptions& options, std::unique_ptr<Generator>* out);
  ~Generator();

  // Token-id layer (no allocation): `prompt` excludes the start token, which is fed first. Models
  // without a start token (bos_id() -1) start from the prompt's first token instead, so they need
  // a non-empty prompt. Errors: ids outside the vocabulary, the end token inside the prompt, a
  // prompt that leaves no room in the context, options out of range.
  Status generate(const int32_t* prompt, size_t prompt_length, const GenerateOptions& options,
                  TokenCallback on_token, void* user, Generation* out);

  // Batch layer (no allocation): `prompts` (as in generate(), at most max_batch of them) are
  // generated together, greedily or sampled (one PRNG stream for the batch, so sampled outputs
  // depend on the batch); the results are those generate() gives for each prompt alone when greedy.
  // No streaming. out[i]: prompt i's continuation, views valid until the next call.
  Status generate_batch(const TokenBatch& prompts, const GenerateOptions& options, Generation* out);

  // Teacher forcing (CTranslate2's Generator.score_batch): each sequence's first token is the
  // input the rest is predicted from (the start token, where the model has one, is not added).
  // out->sentence(i) holds the log-prob of each token after the first, then of the end token
  // (ScoreOutput's convention). At most max_batch sequences of at least one token, within the
  // context; no allocation. Views valid until the next call.
  Status score(const TokenBatch& sequences, ScoreOutput* out);

  // Text layer. encode(): the prompt's ids (no start token). generate_text(): the continuation,
  // streamed piece by piece to `on_text` (optional) and returned in *out; generation stops at the
  // first of `stop` that appears in the text, which is left out (StopStrings).
  Status encode(std::string_view text, std::vector<int32_t>* ids) const;
  Status generate_text(std::string_view prompt, const GenerateOptions& options,
                       const std::function<void(std::string_view)>& on_text, std::string* out,
                       const std::vector<std::string>& stop = {});
  // The text of `token` after `previous` (-1: nothing before it); a view. Whitespace tokens get a
  // separating space unless previous is -1 or the start token; ByteBPE pieces follow the BPE rules.
  std::string_view piece(int32_t previous, int32_t token) const;
  bool can_encode_text() const;

  // Chat (heed/chat.h): the file's chat format, and the prompt ids of `messages` followed by the
  // generation prompt, rendered in that format and tokenized with the special tokens recognized.
  // The start token's text at the front of the rendering is left out when the generator feeds the
  // start token itself. Refused when the file has no chat format heed renders.
  const ChatTemplate& chat_template() const { return chat_; }
  Status render_chat_prompt(const std::vector<ChatMessage>& messages, std::string* text) const;
  Status encode_chat(const std::vector<ChatMessage>& messages, std::vector<int32_t>* ids) const;

  size_t vocab_size() const { return step_model_->vocab_size(); }
  int32_t bos_id() const { return model_bos_; }
  int32_t eos_id() const { return step_model_->eos_id(); }
  int32_t unk_id() const { return unk_id_; }  // the unknown token's id, -1 when the model has none
  size_t max_context() const { return step_model_->limits().max_target_len; }
  // Inside a TokenCallback of generate(): the reported token's log-prob (after the controls, as
  // Generation::log_prob sums them).
  float token_log_prob() const { return token_log_prob_; }
  TokenizerKind tokenizer_kind() const { return kind_; }
  const std::string& token(int32_t id) const;
  int32_t token_id(std::string_view token) const;  // the vocabulary entry's id; -1 when absent
  StepModel& step_model() { return *step_model_; }

 private:
  Generator() = default;
  static bool forward_token(void* self, size_t sentence, size_t step, int32_t token, float log_prob);
  // Checks one prompt and splits it into the first decoder input and the forced rest.
  Status split_prompt(const int32_t* prompt, size_t length, int32_t* first, const int32_t** rest,
                      size_t* rest_length) const;
  // The engine's options for `options` and a longest forced prompt of `longest_rest` tokens.
  Status decode_options(const GenerateOptions& options, size_t longest_rest, DecodeOptions* d) const;

  std::unique_ptr<Model> owned_model_;  // open() only; destroyed last
  std::unique_ptr<StepModel> step_model_;
  std::unique_ptr<generation::StartTokenModel> start_model_;  // what the engine drives
  std::unique_ptr<DecodingEngine> engine_;
  int32_t model_bos_ = -1;  // the model's start token, -1 when it has none
  TokenizerKind kind_ = TokenizerKind::Whitespace;
  std::unique_ptr<tokenizer::ByteBpe> bpe_;   // ByteBPE models
  std::unique_ptr<Tokenizer> text_tokenizer_;  // SentencePiece (HF Llama), byte-level BPE (GPT-2): encode()
  // The vocabulary and each token's streamed text (piece()), without allocating.
  std::unique_ptr<tokenizer::TokenPieces> pieces_;
  std::unordered_map<std::string_view, int32_t> ids_;  // whitespace models: views into pieces_'s tokens
  int32_t unk_id_ = -1;
  ChatTemplate chat_;

  // State of the running generate() call, read by forward_token.
  const int32_t* prompt_ = nullptr;
  size_t prompt_length_ = 0;
  const DecodeControls* controls_ = nullptr;
  int32_t previous_ = -1;
  float token_log_prob_ = 0;
  int32_t end_id_ = -1;  // the end token the running generate() met, and its log-prob
  float end_log_prob_ = 0;
  TokenCallback on_token_ = nullptr;
  void* user_ = nullptr;
  size_t prefix_offsets_[2] = {0, 0};
  // generate_batch(): the first inputs and forced prompts of a batch, sized at creation.
  std::vector<int32_t> batch_starts_, batch_prefix_ids_;
  std::vector<size_t> batch_prefix_offsets_;
  size_t batch_budget_ = 0;  // max_new_tokens of the running generate_batch()
};

}  // namespace heed
