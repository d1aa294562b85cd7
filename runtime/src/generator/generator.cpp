#include "heed/generator.h"

#include <algorithm>
#include <cmath>

#include "generator/generator_chat.h"
#include "generator/start_token_model.h"
#include "heed/decode_option_keys.h"
#include "heed/tokenizer.h"
#include "models/step_model_factory.h"
#include "tokenizer/byte_bpe.h"
#include "tokenizer/byte_level_bpe.h"
#include "tokenizer/token_pieces.h"
#include "loader/model_index.h"

namespace heed {

namespace {

constexpr size_t kDefaultContext = 1024;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

Generator::~Generator() = default;

Status Generator::open(const std::string& path, const GeneratorOptions& options, std::unique_ptr<Generator>* out) {
  std::unique_ptr<Model> model;
  HEED_RETURN_IF_ERROR(Model::open(path, options.load, &model));
  std::unique_ptr<Generator> g;
  HEED_RETURN_IF_ERROR(create(*model, options, &g));
  g->owned_model_ = std::move(model);
  *out = std::move(g);
  return Status::success();
}

Status Generator::create(const Model& model, const GeneratorOptions& options, std::unique_ptr<Generator>* out) {
  const fb::TransformerDecoderOnly* cfg = file_index(model).config_as_TransformerDecoderOnly();
  if (cfg == nullptr) {
    const char* name = fb::EnumNameModelConfig(model_family(model));
    return unsupported_model(std::string("generation needs a decoder-only model; this one is '") +
                             (name && *name ? name : "unknown") + "'");
  }
  size_t context = options.max_context;
  if (context == 0) context = model.position_limits().target;
  if (context == 0) context = kDefaultContext;  // positions without a bound
  if (options.positions_needed > 0 && options.positions_needed < context) context = options.positions_needed;

  std::unique_ptr<Generator> g(new Generator());
  const fb::Tokenizer* tok = file_index(model).tokenizer();
  if (tok == nullptr || tok->target_vocabulary() == nullptr) return invalid_file("the model has no vocabulary");
  g->kind_ = api_tokenizer_kind(tok->kind());
  g->unk_id_ = tok->unk_id();
  if (g->kind_ == TokenizerKind::ByteBPE) {
    g->bpe_ = std::make_unique<tokenizer::ByteBpe>();
    HEED_RETURN_IF_ERROR(tokenizer::ByteBpe::from_index(tok, g->bpe_.get()));
  } else if (g->kind_ == TokenizerKind::SentencePiece || g->kind_ == TokenizerKind::ByteLevelBPE) {
    HEED_RETURN_IF_ERROR(create_tokenizer(model, TokenizerSide::kTarget, &g->text_tokenizer_));
  }
  g->pieces_ = std::make_unique<tokenizer::TokenPieces>();
  HEED_RETURN_IF_ERROR(g->pieces_->load(model, g->bpe_.get()));
  const std::vector<std::string>& tokens = g->pieces_->tokens();
  if (!g->bpe_ && !g->text_tokenizer_) {  // whitespace tokens: looked up by text
    for (size_t i = 0; i < tokens.size(); ++i) g->ids_.emplace(tokens[i], static_cast<int32_t>(i));
  }

  if (options.max_batch == 0) return invalid_argument("max_batch must be at least 1");
  StepModelLimits limits{options.max_batch, 1, 0, context};
  limits.backend = options.backend;
  HEED_RETURN_IF_ERROR(create_step_model(model, limits, options.arena, &g->step_model_,
                                         {options.threads, options.spin_microseconds}));
  g->model_bos_ = g->step_model_->bos_id();
  g->chat_ = generation::chat_template_of(model, g->model_bos_ >= 0 ? tokens[g->model_bos_] : std::string(),
                                          g->eos_id() >= 0 ? tokens[g->eos_id()] : std::string());
  // Until a prompt says otherwise, a model without a start token starts from its end token.
  g->start_model_ = std::make_unique<generation::StartTokenModel>(
      g->step_model_.get(), g->model_bos_ >= 0 ? g->model_bos_ : g->step_model_->eos_id());
  HEED_RETURN_IF_ERROR(DecodingEngine::create(g->start_model_.get(), DecodingLimits{1, g->unk_id_}, &g->engine_));
  g->batch_starts_.resize(options.max_batch);
  g->batch_prefix_ids_.resize(options.max_batch * context);
  g->batch_prefix_offsets_.resize(options.max_batch + 1);
  *out = std::move(g);
  return Status::success();
}

bool Generator::forward_token(void* self, size_t, size_t step, int32_t token, float log_prob) {
  Generator& g = *static_cast<Generator*>(self);
  g.token_log_prob_ = log_prob;
  if (step < g.prompt_length_) {
    g.previous_ = token;  // a forced prompt token
    return true;
  }
  const DecodeControls& c = *g.controls_;
  const bool end = c.num_end_ids == 0 ? token == g.eos_id()
                                      : std::find(c.end_ids, c.end_ids + c.num_end_ids, token) != c.end_ids + c.num_end_ids;
  if (end) {  // the engine stops there; the end token is not reported, but kept for Generation
    g.end_id_ = token;
    g.end_log_prob_ = log_prob;
    return true;
  }
  // The continuation's first whitespace token gets no separating space.
  const int32_t previous = step == g.prompt_length_ && g.kind_ == TokenizerKind::Whitespace ? -1 : g.previous_;
  g.previous_ = token;
  return g.on_token_ == nullptr || g.on_token_(g.user_, token, g.piece(previous, token));
}

Status Generator::split_prompt(const int32_t* prompt, size_t length, int32_t* first, const int32_t** rest,
                               size_t* rest_length) const {
  if (length > 0 && prompt == nullptr) return invalid_argument("generate: prompt ids are missing");
  // Without a start token, the prompt's first token is the first input and the rest is forced.
  *first = model_bos_;
  *rest = prompt;
  *rest_length = length;
  if (model_bos_ < 0) {
    if (length == 0) return invalid_argument("this model has no start token: give a prompt of at least one token");
    if (prompt[0] < 0 || static_cast<size_t>(prompt[0]) >= vocab_size()) {
      return invalid_argument("prompt token id " + std::to_string(prompt[0]) + " is outside the vocabulary (size " +
                              std::to_string(vocab_size()) + ")");
    }
    *first = prompt[0];
    *rest = prompt + 1;
    *rest_length = length - 1;
  }
  // The first input takes position 0, so a forced prompt of P tokens leaves context - P steps, the
  // first of which predicts from the prompt's last token.
  if (*rest_length >= max_context()) {
    return Status(StatusCode::kLimitExceeded, "the prompt has " + std::to_string(*rest_length) +
                                                  " tokens; the context allows at most " +
                                                  std::to_string(max_context() - 1));
  }
  return Status::success();
}

Status Generator::decode_options(const GenerateOptions& options, size_t longest_rest, DecodeOptions* d) const {
  if (options.max_new_tokens == 0) return invalid_argument("max_new_tokens must be at least 1");
  // Every sentence of a batch gets the same decoder steps; a shorter prompt's continuation may
  // use them (it ends at max_new_tokens all the same: see generate_batch).
  const size_t new_tokens = std::min(options.max_new_tokens, max_context() - longest_rest);
  d->beam_size = 1;
  d->max_length = longest_rest + new_tokens;
  d->sampling_top_k = options.temperature == 0.0f ? 1 : options.top_k;
  d->sampling_temperature = options.temperature == 0.0f ? 1.0f : options.temperature;
  d->sampling_top_p = options.top_p;
  d->seed = options.seed;
  d->controls = options.controls;
  d->controls.prefix_in_history = false;  // the prompt is not part of what the controls look at
  d->cancel = options.cancel;
  d->deadline = options.deadline;
  // The ranges of the decoding options (heed/decode_option_keys.h: temperature a finite number
  // >= 0, top_p in (0, 1], ...), named by their keys: one check for every front end.
  return check_decode_option_ranges(*d);
}

// The continuation of hypothesis h after a forced prompt of `rest` tokens, at most `budget` long.
static Generation continuation(const Hypothesis& h, size_t rest, size_t budget) {
  Generation g;
  g.ids = h.ids + rest;
  const size_t generated = h.length - rest;
  g.length = std::min(generated, budget);
  g.finished_with_eos = h.finished_with_eos && generated < budget;
  float sum = 0;
  for (size_t t = rest; t < rest + g.length + (g.finished_with_eos ? 1 : 0); ++t) sum += h.token_log_probs[t];
  g.log_prob = sum;
  return g;
}

Status Generator::generate(const int32_t* prompt, size_t prompt_length, const GenerateOptions& options,
                           TokenCallback on_token, void* user, Generation* out) {
  if (out == nullptr) return invalid_argument("generate: no output");
  int32_t first;
  HEED_RETURN_IF_ERROR(split_prompt(prompt, prompt_length, &first, &prompt, &prompt_length));
  DecodeOptions d;
  HEED_RETURN_IF_ERROR(decode_options(options, prompt_length, &d));
  d.on_token = &Generator::forward_token;
  d.on_token_user = this;

  prefix_offsets_[0] = 0;
  prefix_offsets_[1] = prompt_length;
  TokenBatch prefix;
  prefix.ids = prompt;
  prefix.offsets = prefix_offsets_;
  prefix.size = 1;
  prompt_ = prompt;
  prompt_length_ = prompt_length;
  previous_ = first;
  start_model_->set_start(first);
  on_token_ = on_token;
  user_ = user;
  controls_ = &options.controls;
  end_id_ = -1;

  DecodeOutput result;
  const Status status = engine_->decode(nullptr, 1, d, prompt_length > 0 ? &prefix : nullptr, &result);
  on_token_ = nullptr;
  user_ = nullptr;
  if (!status.is_ok()) return status;
  *out = continuation(result.at(0, 0), prompt_length, options.max_new_tokens);
  if (out->finished_with_eos) {
    out->end_id = end_id_;
    out->end_log_prob = end_log_prob_;
  }
  return Status::success();
}

Status Generator::generate_batch(const TokenBatch& prompts, const GenerateOptions& options, Generation* out) {
  if (out == nullptr && prompts.size > 0) return invalid_argument("generate_batch: no output");
  if (prompts.size > batch_starts_.size()) {
    return Status(StatusCode::kLimitExceeded, std::to_string(prompts.size) + " prompts; this generator takes " +
                                                  std::to_string(batch_starts_.size()) + " at a time (max_batch)");
  }
  if (prompts.size > 0 && prompts.offsets == nullptr) return invalid_argument("generate_batch: no offsets");
  size_t longest = 0;
  batch_prefix_offsets_[0] = 0;
  for (size_t i = 0; i < prompts.size; ++i) {
    const int32_t* rest;
    size_t rest_length;
    HEED_RETURN_IF_ERROR(split_prompt(prompts.sequence(i), prompts.length(i), &batch_starts_[i], &rest, &rest_length));
    std::copy(rest, rest + rest_length, batch_prefix_ids_.begin() + static_cast<std::ptrdiff_t>(batch_prefix_offsets_[i]));
    batch_prefix_offsets_[i + 1] = batch_prefix_offsets_[i] + rest_length;
    longest = std::max(longest, rest_length);
  }
  DecodeOptions d;
  HEED_RETURN_IF_ERROR(decode_options(options, longest, &d));
  // A sentence with a shorter prompt stops at its own budget of new tokens.
  batch_budget_ = options.max_new_tokens;
  d.on_token = [](void* self, size_t sentence, size_t step, int32_t, float) {
    const Generator& g = *static_cast<const Generator*>(self);
    const size_t rest = g.batch_prefix_offsets_[sentence + 1] - g.batch_prefix_offsets_[sentence];
    return step + 1 < rest + g.batch_budget_;
  };
  d.on_token_user = this;
  const TokenBatch prefixes{batch_prefix_ids_.data(), batch_prefix_offsets_.data(), prompts.size};
  start_model_->set_starts(batch_starts_.data());
  DecodeOutput result;
  const Status status = engine_->decode(nullptr, prompts.size, d, &prefixes, &result);
  start_model_->set_starts(nullptr);
  if (!status.is_ok()) return status;
  for (size_t i = 0; i < prompts.size; ++i) {
    out[i] = continuation(result.at(i, 0), prefixes.length(i), options.max_new_tokens);
  }
  return Status::success();
}

int32_t Generator::token_id(std::string_view token) const {
  const auto it = ids_.find(token);
  if (it != ids_.end()) return it->second;
  const std::vector<std::string>& tokens = pieces_->tokens();
  const auto found = std::find(tokens.begin(), tokens.end(), token);  // kinds without the lookup table
  return found == tokens.end() ? -1 : static_cast<int32_t>(found - tokens.begin());
}

bool Generator::can_encode_text() const {
  return kind_ == TokenizerKind::ByteBPE || kind_ == TokenizerKind::Whitespace ||
         kind_ == TokenizerKind::SentencePiece || kind_ == TokenizerKind::ByteLevelBPE;
}

Status Generator::encode(std::string_view text, std::vector<int32_t>* ids) const {
  ids->clear();
  if (kind_ == TokenizerKind::ByteBPE) return bpe_->encode(text, false, false, ids);
  if (text_tokenizer_) return text_tokenizer_->encode(text, ids);
  if (kind_ != TokenizerKind::Whitespace) {
    return Status(StatusCode::kUnsupportedModel,
                  std::string("this model's tokenizer (") + tokenizer_kind_name(kind_) +
                      ") cannot read text in heed generate yet; give token ids");
  }
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    size_t j = i;
    while (j < text.size() && !is_space(text[j])) ++j;
    if (j > i) {
      const std::string_view word = text.substr(i, j - i);
      const auto it = ids_.find(word);
      if (it != ids_.end()) {
        ids->push_back(it->second);
      } else if (unk_id_ >= 0) {
        ids->push_back(unk_id_);
      } else {
        return invalid_argument("token '" + std::string(word) + "' is not in the vocabulary");
      }
    }
    i = j;
  }
  return Status::success();
}

std::string_view Generator::piece(int32_t previous, int32_t token) const { return pieces_->piece(previous, token); }

const std::string& Generator::token(int32_t id) const { return pieces_->tokens()[static_cast<size_t>(id)]; }

Status Generator::generate_text(std::string_view prompt, const GenerateOptions& options,
                                const std::function<void(std::string_view)>& on_text, std::string* out,
                                const std::vector<std::string>& stop) {
  std::vector<int32_t> ids;
  HEED_RETURN_IF_ERROR(encode(prompt, &ids));
  struct Sink {
    const std::function<void(std::string_view)>* on_text;
    std::string* text;
    StopStrings stop;
    std::string ready;
    void emit() {
      text->append(ready);
      if (*on_text && !ready.empty()) (*on_text)(ready);
      ready.clear();
    }
  } sink{&on_text, out, StopStrings(stop), {}};
  out->clear();
  TokenCallback cb = [](void* user, int32_t, std::string_view piece) {
    Sink& s = *static_cast<Sink*>(user);
    const bool stopped = s.stop.feed(piece, &s.ready);
    s.emit();
    return !stopped;
  };
  Generation g;
  const Status status = generate(ids.data(), ids.size(), options, cb, &sink, &g);
  sink.stop.flush(&sink.ready);
  sink.emit();
  return status;
}

}  // namespace heed
