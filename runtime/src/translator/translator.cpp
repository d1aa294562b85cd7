// Translator: Model + StepModel + vocabularies + DecodingEngine.
#include "heed/translator.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstddef>
#include <string>
#include <utility>

#include "models/step_model_factory.h"
#include "loader/model_index.h"
#include "translator/vocabulary_index.h"

namespace heed {
namespace {

bool metadata_true(const Model& model, const char* key) {
  const char* value = model.metadata(key);
  return value != nullptr && std::string_view(value) == "true";
}

// Token sequences stored flat for TokenBatch.
struct FlatBatch {
  std::vector<int32_t> ids;
  std::vector<size_t> offsets{0};
  void add(const std::vector<int32_t>& s) {
    ids.insert(ids.end(), s.begin(), s.end());
    offsets.push_back(ids.size());
  }
  TokenBatch view() const { return TokenBatch{ids.data(), offsets.data(), offsets.size() - 1}; }
};

// A non-negative id recorded as metadata; -1 when absent or not a number.
int32_t metadata_id(const Model& model, const char* key) {
  const char* value = model.metadata(key);
  if (value == nullptr || *value < '0' || *value > '9') return -1;
  char* end = nullptr;
  const long id = std::strtol(value, &end, 10);
  return *end == '\0' && id <= INT32_MAX ? static_cast<int32_t>(id) : -1;
}

}  // namespace

Translator::~Translator() = default;

Status Translator::create(const Model& model, const TranslatorOptions& options, std::unique_ptr<Translator>* out) {
  const fb::Tokenizer* tok = file_index(model).tokenizer();
  if (!tok || !tok->target_vocabulary()) return unsupported_model("the model has no target vocabulary to translate with");
  const fb::Vocabulary* source = tok->source_vocabulary();
  if (!source && tok->shared_vocabulary()) source = tok->target_vocabulary();
  if (!source) {
    return unsupported_model("the model has no source vocabulary: it is not a translation model (language models run "
                             "with heed generate, encoders with heed embed)");
  }
  std::unique_ptr<StepModel> step_model;
  HEED_RETURN_IF_ERROR(
      create_step_model(model, session_limits(model, options.limits), options.arena, &step_model,
                        {options.threads, options.spin_microseconds}));
  TokenConventions c;
  c.unk_id = tok->unk_id();
  c.bos_id = tok->bos_id();
  c.eos_id = tok->eos_id();
  c.add_source_bos = metadata_true(model, "add_source_bos");
  c.add_source_eos = metadata_true(model, "add_source_eos");
  c.source_eos_id = metadata_id(model, "source_eos_id");
  c.kind = api_tokenizer_kind(tok->kind());
  return create(std::move(step_model), vocabulary_from_index(source), vocabulary_from_index(tok->target_vocabulary()),
                c, options.max_n_best, out);
}

Status Translator::plan_arena(const Model& model, const TranslatorOptions& options, ArenaReport* report) {
  return plan_step_model_arena(model, session_limits(model, options.limits), report,
                               {options.threads, options.spin_microseconds});
}

StepModelLimits Translator::session_limits(const Model& model, StepModelLimits limits) {
  const PositionLimits positions = model.position_limits();
  const auto length = [](size_t given, size_t model_positions) {
    if (given != 0) return given;
    return model_positions != 0 && model_positions < kDefaultLength ? model_positions : kDefaultLength;
  };
  limits.max_source_len = length(limits.max_source_len, positions.source);
  limits.max_target_len = length(limits.max_target_len, positions.target);
  return limits;
}

Status Translator::open(const std::string& path, const TranslatorOptions& options, std::unique_ptr<Translator>* out) {
  std::unique_ptr<Model> model;
  HEED_RETURN_IF_ERROR(Model::open(path, options.load, &model));
  std::unique_ptr<Translator> t;
  HEED_RETURN_IF_ERROR(create(*model, options, &t));
  t->owned_model_ = std::move(model);
  *out = std::move(t);
  return Status::success();
}

Status Translator::create(std::unique_ptr<StepModel> step_model, Vocabulary source, Vocabulary target,
                          const TokenConventions& conventions, size_t max_n_best, std::unique_ptr<Translator>* out) {
  if (!step_model) return invalid_argument("translator: no step model");
  if (target.size() != step_model->vocab_size()) {
    return invalid_argument("translator: target vocabulary has " + std::to_string(target.size()) +
                            " tokens but the model outputs " + std::to_string(step_model->vocab_size()));
  }
  // The special tokens' source ids: the same strings looked up in the source vocabulary.
  auto source_id = [&](int32_t target_id) -> int32_t {
    if (target_id < 0 || static_cast<size_t>(target_id) >= target.size()) return -1;
    return source.id(target.token(target_id));
  };
  const int32_t source_unk = source_id(conventions.unk_id);
  const int32_t source_bos = source_id(conventions.bos_id);
  const bool eos_given = conventions.source_eos_id >= 0 && static_cast<size_t>(conventions.source_eos_id) < source.size();
  const int32_t source_eos = eos_given ? conventions.source_eos_id : source_id(conventions.eos_id);
  if ((conventions.add_source_bos && source_bos < 0) || (conventions.add_source_eos && source_eos < 0)) {
    return invalid_argument("translator: the model adds BOS/EOS to sources but the source vocabulary lacks them");
  }
  std::unique_ptr<Translator> t(new Translator());
  t->source_unk_ = source_unk;
  t->source_bos_ = source_bos;
  t->source_eos_ = source_eos;
  t->step_model_ = std::move(step_model);
  t->source_ = std::move(source);
  t->target_ = std::move(target);
  t->conventions_ = conventions;
  HEED_RETURN_IF_ERROR(DecodingEngine::create(t->step_model_.get(), DecodingLimits{max_n_best, conventions.unk_id}, &t->engine_));
  *out = std::move(t);
  return Status::success();
}

Status Translator::translate(const TokenBatch& sources, const DecodeOptions& options, const TokenBatch* prefixes,
                             DecodeOutput* out) {
  return engine_->decode(&sources, sources.size, options, prefixes, out);
}

Status Translator::score(const TokenBatch& sources, const TokenBatch& targets, ScoreOutput* out) {
  if (sources.size != targets.size) {
    return invalid_argument("score: " + std::to_string(sources.size) + " sources but " + std::to_string(targets.size) +
                            " targets");
  }
  return engine_->score(&sources, targets, out);
}

size_t Translator::max_source_tokens() const {
  const size_t added = (conventions_.add_source_bos ? 1 : 0) + (conventions_.add_source_eos ? 1 : 0);
  const size_t max_len = limits().max_source_len;
  return max_len > added ? max_len - added : 0;
}

bool Translator::truncate_source(std::vector<std::string>* tokens) const {
  const size_t keep = max_source_tokens(), n = tokens->size();
  if (n <= keep) return false;
  // The tail that stays last (CTranslate2's rule): the end token, or the end token and the
  // language code after it.
  size_t tail = 0;
  if (source_eos_ >= 0) {
    const std::string& eos = source_.token(source_eos_);
    if ((*tokens)[n - 1] == eos) {
      tail = 1;
    } else if (n >= 2 && (*tokens)[n - 2] == eos) {
      tail = 2;
    }
  }
  if (tail > keep) tail = 0;
  std::move(tokens->end() - static_cast<std::ptrdiff_t>(tail), tokens->end(),
            tokens->begin() + static_cast<std::ptrdiff_t>(keep - tail));
  tokens->resize(keep);
  return true;
}

Status Translator::to_ids(const Vocabulary& vocab, int32_t unk_id, const char* side,
                          const std::vector<std::string>& tokens, std::vector<int32_t>* ids) const {
  for (const auto& token : tokens) {
    int32_t id = vocab.id(token);
    if (id < 0) {
      if (unk_id < 0) {
        return invalid_argument(std::string("token '") + token + "' is not in the " + side +
                                " vocabulary and the model has no unknown token there");
      }
      id = unk_id;
    }
    ids->push_back(id);
  }
  return Status::success();
}

Status Translator::source_ids(const std::vector<std::string>& tokens, std::vector<int32_t>* ids) const {
  ids->clear();
  if (conventions_.add_source_bos) ids->push_back(source_bos_);
  HEED_RETURN_IF_ERROR(to_ids(source_, source_unk_, "source", tokens, ids));
  if (conventions_.add_source_eos) ids->push_back(source_eos_);
  return Status::success();
}

Status Translator::target_ids(const std::vector<std::string>& tokens, std::vector<int32_t>* ids) const {
  ids->clear();
  return to_ids(target_, conventions_.unk_id, "target", tokens, ids);
}

std::vector<float> last_layer_attention(const TranslationHypothesis& h) {
  std::vector<float> rows;
  if (h.attention.empty() || h.attention_heads == 0 || h.attention_panels < h.attention_heads) return rows;
  const size_t panels = h.attention_panels, len = h.attention_source_len, heads = h.attention_heads;
  const size_t first = panels - heads;  // the last layer's panels
  rows.assign(h.tokens.size() * len, 0.0f);
  for (size_t t = 0; t < h.tokens.size(); ++t) {
    for (size_t p = first; p < panels; ++p) {
      for (size_t s = 0; s < len; ++s) rows[t * len + s] += h.attention[(t * panels + p) * len + s] / static_cast<float>(heads);
    }
  }
  return rows;
}

std::vector<std::string> Translator::split_tokens(std::string_view line) {
  std::vector<std::string> tokens;
  size_t i = 0;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; };
  while (i < line.size()) {
    while (i < line.size() && space(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !space(line[j])) ++j;
    if (j > i) tokens.emplace_back(line.substr(i, j - i));
    i = j;
  }
  return tokens;
}

std::vector<std::string> Translator::target_tokens(const int32_t* ids, size_t n, bool every_token) const {
  std::vector<std::string> tokens;
  const int32_t bos = step_model_->bos_id(), eos = step_model_->eos_id();
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] == eos && !every_token) break;
    if ((ids[i] == bos && !every_token) || ids[i] < 0 || static_cast<size_t>(ids[i]) >= target_.size()) continue;
    tokens.push_back(target_.token(ids[i]));
  }
  return tokens;
}

namespace {

// A hypothesis' attention (h.attention non-null), compacted from the engine's max_source_len
// stride to this source's length.
void copy_attention(const Hypothesis& h, const DecodeOutput& result, size_t source_len, size_t heads,
                    TranslationHypothesis* t) {
  const size_t panels = result.attention_panels, stride = result.attention_stride;
  const size_t len = std::min(source_len, stride);
  t->attention_panels = panels;
  t->attention_heads = heads;
  t->attention_source_len = len;
  t->attention.resize(h.num_log_probs * panels * len);
  for (size_t row = 0; row < h.num_log_probs * panels; ++row) {
    std::copy(h.attention + row * stride, h.attention + row * stride + len, t->attention.begin() + row * len);
  }
}

}  // namespace


// A hypothesis's tokens as CTranslate2 shows them: its forced prefix as given (an end token there
// included), then up to its end; with end tokens of the caller's, the model's EOS is an ordinary
// token.
std::vector<std::string> Translator::hypothesis_tokens(const Hypothesis& h, size_t prefix_length,
                                                       bool own_end_tokens) const {
  const size_t forced = std::min(prefix_length, h.length);
  std::vector<std::string> tokens = target_tokens(h.ids, forced, true);
  for (std::string& t : target_tokens(h.ids + forced, h.length - forced, own_end_tokens)) tokens.push_back(std::move(t));
  return tokens;
}

Status Translator::translate_tokens(const std::vector<std::vector<std::string>>& sources, const DecodeOptions& options,
                                    const std::vector<std::vector<std::string>>* prefixes,
                                    std::vector<std::vector<TranslationHypothesis>>* out) {
  if (prefixes && prefixes->size() != sources.size()) {
    return invalid_argument("translate: " + std::to_string(prefixes->size()) + " prefixes for " +
                            std::to_string(sources.size()) + " sources");
  }
  out->assign(sources.size(), {});
  const size_t max_batch = limits().max_batch;
  // Batches of sources of similar length waste less work on padding: sources are taken shortest
  // first (a stable order, so equal lengths keep theirs) and results go back to their positions.
  // Batch composition does not change a sentence's result.
  std::vector<size_t> order(sources.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sources[a].size() < sources[b].size(); });
  std::vector<int32_t> ids;
  for (size_t begin = 0; begin < sources.size(); begin += max_batch) {
    const size_t end = std::min(sources.size(), begin + max_batch);
    FlatBatch src, pre;
    for (size_t n = begin; n < end; ++n) {
      const size_t i = order[n];
      HEED_RETURN_IF_ERROR(source_ids(sources[i], &ids));
      src.add(ids);
      if (prefixes) {
        HEED_RETURN_IF_ERROR(target_ids((*prefixes)[i], &ids));
        pre.add(ids);
      }
    }
    const TokenBatch sv = src.view(), pv = pre.view();
    DecodeOutput result;
    HEED_RETURN_IF_ERROR(translate(sv, options, prefixes ? &pv : nullptr, &result));
    for (size_t n = begin; n < end; ++n) {
      auto& hyps = (*out)[order[n]];
      for (size_t k = 0; k < result.count(n - begin); ++k) {
        const Hypothesis& h = result.at(n - begin, k);
        TranslationHypothesis t;
        t.ids.assign(h.ids, h.ids + h.length);
        t.tokens = hypothesis_tokens(h, prefixes ? pv.length(n - begin) : 0, options.controls.num_end_ids > 0);
        t.token_log_probs.assign(h.token_log_probs, h.token_log_probs + h.num_log_probs);
        t.score = h.score;
        t.log_prob = h.log_prob;
        if (h.attention != nullptr && result.attention_panels > 0) {
          copy_attention(h, result, sv.length(n - begin), step_model_->attention_heads(), &t);
        }
        hyps.push_back(std::move(t));
      }
    }
  }
  return Status::success();
}

Status Translator::score_tokens(const std::vector<std::vector<std::string>>& sources,
                                const std::vector<std::vector<std::string>>& targets,
                                std::vector<std::vector<float>>* out) {
  if (sources.size() != targets.size()) {
    return invalid_argument("score: " + std::to_string(sources.size()) + " sources but " + std::to_string(targets.size()) +
                            " targets");
  }
  out->assign(sources.size(), {});
  const size_t max_batch = limits().max_batch;
  std::vector<int32_t> ids;
  for (size_t begin = 0; begin < sources.size(); begin += max_batch) {
    const size_t end = std::min(sources.size(), begin + max_batch);
    FlatBatch src, tgt;
    for (size_t i = begin; i < end; ++i) {
      HEED_RETURN_IF_ERROR(source_ids(sources[i], &ids));
      src.add(ids);
      HEED_RETURN_IF_ERROR(target_ids(targets[i], &ids));
      tgt.add(ids);
    }
    const TokenBatch sv = src.view(), tv = tgt.view();
    ScoreOutput result;
    HEED_RETURN_IF_ERROR(score(sv, tv, &result));
    for (size_t i = begin; i < end; ++i) {
      (*out)[i].assign(result.sentence(i - begin), result.sentence(i - begin) + result.length(i - begin));
    }
  }
  return Status::success();
}

}  // namespace heed
