// Fuzz target: arbitrary bytes (invalid UTF-8, control bytes, lines up to 1 MiB) as the user's text,
// through every text path heed has, with real models loaded once in LLVMFuzzerInitialize:
// - the whitespace tokenizer and a Translator of aren-transliteration (CTranslate2, int8);
// - the SentencePiece tokenizers and a Translator of the tiny Marian fixture (OPUS-MT layout);
// - the llama2.c byte BPE tokenizer of stories260K and its Generator's encode();
// - GPT-2's byte-level BPE (the hf-gpt2 fixture) and its Generator's encode();
// - BERT's WordPiece (the hf-bert fixture) and its Embedder: the text is embedded, every value finite;
// - the sentence splitter (heed/sentence_splitter.h, German): invalid UTF-8 refused, else sentences are
//   non-empty, in order, inside the
//   text and never overlapping.
// Each tokenizer encodes the text, every id must lie inside its vocabulary, and the ids decode;
// the Translators translate the tokens (greedy, at most 3 steps) when they fit the session, the way
// `heed translate` does. Every refusal must be one line.
//
// The models are .heed files that scripts/fuzz.sh converts at seed time (fuzz/make_seeds.py) into
// build/fuzz-corpus/seeds/models; HEED_FUZZ_MODELS overrides that folder. Without them the target stops.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heed/embedder.h"
#include "heed/generator.h"
#include "heed/model.h"
#include "heed/sentence_splitter.h"
#include "heed/tokenizer.h"
#include "heed/translator.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_text_input: %s\n", what.c_str());
  std::abort();
}

void check_message(const heed::Status& s) {
  if (s.message().empty() || s.message().find('\n') != std::string::npos) {
    fail("invariant broken: error message empty or not one line: " + s.message());
  }
}

struct TranslationModel {
  std::unique_ptr<heed::Model> model;
  std::unique_ptr<heed::Translator> translator;
  std::unique_ptr<heed::Tokenizer> source, target;  // null: whitespace tokens (split_tokens)
};

TranslationModel aren, marian;
struct GenerationModel {
  std::unique_ptr<heed::Model> model;
  std::unique_ptr<heed::Generator> generator;
  std::unique_ptr<heed::Tokenizer> tokenizer;
};

GenerationModel stories, gpt2;
std::unique_ptr<heed::Model> bert;
std::unique_ptr<heed::Embedder> embedder;
std::unique_ptr<heed::Tokenizer> bert_tokenizer;
std::unique_ptr<heed::SentenceSplitter> splitter;  // German: the longest abbreviation list and ordinals

std::unique_ptr<heed::Model> open_model(const std::string& dir, const char* name) {
  std::unique_ptr<heed::Model> model;
  const heed::Status s = heed::Model::open(dir + "/" + name, heed::LoadOptions{}, &model);
  if (!s.is_ok()) fail("cannot load the model (run scripts/fuzz.sh, or set HEED_FUZZ_MODELS): " + s.message());
  return model;
}

void must(const heed::Status& s, const char* what) {
  if (!s.is_ok()) fail(std::string(what) + ": " + s.message());
}

void open_translation(const std::string& dir, const char* name, TranslationModel* out) {
  out->model = open_model(dir, name);
  heed::TranslatorOptions options;
  options.limits = heed::StepModelLimits{1, 1, 64, 3};  // tiny, so each input stays fast
  must(heed::Translator::create(*out->model, options, &out->translator), name);
  if (out->translator->conventions().kind != heed::TokenizerKind::Whitespace) {
    must(heed::create_tokenizer(*out->model, heed::TokenizerSide::kSource, &out->source), name);
    must(heed::create_tokenizer(*out->model, heed::TokenizerSide::kTarget, &out->target), name);
  }
}

// Encodes, checks the ids, decodes; returns the pieces (for the Translator) in *pieces.
void round_trip(const heed::Tokenizer& tokenizer, std::string_view text, std::vector<std::string>* pieces) {
  pieces->clear();
  std::vector<int32_t> ids;
  heed::Status s = tokenizer.encode(text, &ids);
  if (!s.is_ok()) {
    check_message(s);
    return;
  }
  for (int32_t id : ids) {
    if (id < 0 || static_cast<size_t>(id) >= tokenizer.vocabulary_size()) fail("invariant broken: id outside the vocabulary");
  }
  std::string decoded;
  s = tokenizer.decode(ids.data(), ids.size(), &decoded);
  if (!s.is_ok()) check_message(s);
  s = tokenizer.encode_pieces(text, pieces);
  if (!s.is_ok()) check_message(s);
}

void translate(TranslationModel& m, std::string_view text) {
  std::vector<std::string> tokens;
  if (m.source) {
    round_trip(*m.source, text, &tokens);
  } else {
    tokens = heed::Translator::split_tokens(text);
  }
  if (tokens.empty() || tokens.size() > m.translator->max_source_tokens()) return;  // `heed translate`'s rules
  heed::DecodeOptions options;
  options.max_length = 3;
  std::vector<std::vector<heed::TranslationHypothesis>> results;
  const heed::Status s = m.translator->translate_tokens({tokens}, options, nullptr, &results);
  if (!s.is_ok()) {
    check_message(s);
    return;
  }
  const size_t vocab = m.translator->target_vocabulary().size();
  for (const auto& h : results.at(0)) {
    for (int32_t id : h.ids) {
      if (id < 0 || static_cast<size_t>(id) >= vocab) fail("invariant broken: translation id outside the vocabulary");
    }
    if (m.target) {
      std::string out;
      const heed::Status d = m.target->decode(h.ids.data(), h.ids.size(), &out);
      if (!d.is_ok()) check_message(d);
    }
  }
}

void open_generation(const std::string& dir, const char* name, GenerationModel* out) {
  out->model = open_model(dir, name);
  must(heed::Generator::create(*out->model, heed::GeneratorOptions{}, &out->generator), name);
  must(heed::create_tokenizer(*out->model, heed::TokenizerSide::kTarget, &out->tokenizer), name);
}

void encode_prompt(const GenerationModel& m, std::string_view text) {
  std::vector<std::string> pieces;
  round_trip(*m.tokenizer, text, &pieces);
  std::vector<int32_t> ids;
  const heed::Status s = m.generator->encode(text, &ids);
  if (!s.is_ok()) {
    check_message(s);
    return;
  }
  for (int32_t id : ids) {
    if (id < 0 || static_cast<size_t>(id) >= m.generator->vocab_size()) fail("invariant broken: prompt id outside the vocabulary");
  }
}

void embed(std::string_view text) {
  std::vector<std::string> pieces;
  round_trip(*bert_tokenizer, text, &pieces);
  std::vector<float> vectors;
  const heed::Status s = embedder->embed_text({std::string(text)}, heed::Pooling::kMean, true, &vectors);
  if (!s.is_ok()) {
    check_message(s);
    return;
  }
  if (vectors.size() != embedder->dimension()) fail("invariant broken: embedding of the wrong size");
  for (float v : vectors) {
    if (!std::isfinite(v)) fail("invariant broken: a non-finite embedding value");
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char*** argv) {
  std::string dir;
  if (const char* env = std::getenv("HEED_FUZZ_MODELS"); env && *env) {
    dir = env;
  } else {
    // build/fuzz/fuzz_text_input -> build/fuzz-corpus/seeds/models (scripts/fuzz.sh)
    std::string self = (*argv)[0];
    const size_t slash = self.rfind('/');
    dir = (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) + "/../fuzz-corpus/seeds/models";
  }
  open_translation(dir, "aren-transliteration-int8.heed", &aren);
  open_translation(dir, "marian-tiny-en-de-int8.heed", &marian);
  if (!marian.source) fail("the Marian model has no SentencePiece tokenizer");
  open_generation(dir, "stories260k-int8.heed", &stories);
  open_generation(dir, "hf-gpt2-int8.heed", &gpt2);
  bert = open_model(dir, "hf-bert-int8.heed");
  heed::EmbedderOptions options;
  options.max_batch = 1;
  must(heed::Embedder::create(*bert, options, &embedder), "hf-bert");
  must(heed::create_tokenizer(*bert, heed::TokenizerSide::kTarget, &bert_tokenizer), "hf-bert tokenizer");
  must(heed::SentenceSplitter::create("de", &splitter), "sentence splitter");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> sentences;
  const heed::Status split = splitter->split(text, &sentences);
  if (!split && split.code() != heed::StatusCode::kInvalidArgument) fail("splitting failed: " + split.message());
  const char* previous_end = text.data();
  for (std::string_view sentence : sentences) {
    if (sentence.empty() || sentence.data() < previous_end || sentence.data() + sentence.size() > text.data() + size) {
      fail("invariant broken: a sentence is empty, out of order or outside the text");
    }
    previous_end = sentence.data() + sentence.size();
  }
  translate(aren, text);
  translate(marian, text);

  encode_prompt(stories, text);
  encode_prompt(gpt2, text);
  embed(text);
  return 0;
}
