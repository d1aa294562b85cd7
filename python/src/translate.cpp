// heed._heed.Translator: a heed Translator (one session) with the model's text tokenizers, for
// python/heed/translator.py. Sessions are planned for a batch, beam and lengths on a shared
// heed._heed.Model; the Python layer replaces its session by a larger one when a call needs more.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "errors.h"
#include "heed/text_translator.h"
#include "heed/translator.h"
#include "model_handle.h"
#include "sampling_args.h"

namespace nb = nanobind;

namespace heed::python {
namespace {

using Tokens = std::vector<std::string>;

// One hypothesis as the Python layer reads it: tokens, score, log-probs, attention rows.
using PyHypothesis = std::tuple<Tokens, float, std::vector<float>, std::vector<std::vector<float>>>;

// The decoding arguments of translate_batch: the decoding options (CTranslate2's translate
// defaults, max_decoding_length 256) and the attention wanted.
struct TranslateArgs : SamplingArgs {
  TranslateArgs() {
    decode = translation_defaults();
    decode.max_length = 256;
  }
  bool return_attention = false;
};

// The decoding options of `a`, with the ids its controls point to (kept in `ids`).
DecodeOptions decode_options(const TranslateArgs& a, const Translator& t, ControlTokenIds* ids) {
  DecodeOptions d = a.decode;
  const auto to_id = [&t](const std::string& token) { return t.target_vocabulary().id(token); };
  check(ids->map(a.suppress_sequences, a.end_token, to_id, "suppress_sequences", "end_token"));
  ids->bind(&d.controls);
  return d;
}

// Attention rows of a hypothesis: per target token (EOS left out), the last layer's heads averaged
// over the source positions.
std::vector<std::vector<float>> attention_rows(const TranslationHypothesis& h) {
  const std::vector<float> flat = last_layer_attention(h);
  std::vector<std::vector<float>> rows;
  const size_t len = h.attention_source_len;
  for (size_t t = 0; len > 0 && t < flat.size() / len; ++t) rows.emplace_back(flat.begin() + t * len, flat.begin() + (t + 1) * len);
  return rows;
}

// translate_batch's callback (greedy search): callback(batch_id, step, token_id) -> bool (go on),
// called with the GIL taken back; an exception stops the sentence and is raised afterwards.
struct Callback {
  nb::callable callable;
  bool failed = false;
};

bool forward_step(void* user, size_t sentence, size_t step, int32_t token, float) {
  Callback& c = *static_cast<Callback*>(user);
  nb::gil_scoped_acquire acquire;
  if (c.failed) return false;
  try {
    return nb::cast<bool>(c.callable(sentence, step, token));
  } catch (nb::python_error& e) {
    e.restore();
    c.failed = true;
    return false;
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
    c.failed = true;
    return false;
  }
}

class PyTranslator {
 public:
  PyTranslator(const ModelHandle& model, size_t threads, uint32_t spin_microseconds, size_t max_batch, size_t max_beam,
               size_t max_source, size_t max_target, bool attention)
      : model_(model.model) {
    TranslatorOptions o;
    o.limits = StepModelLimits{max_batch, max_beam, max_source, max_target};
    o.limits.capture_attention = attention;
    o.threads = threads;
    o.spin_microseconds = spin_microseconds;
    Status s;
    {
      nb::gil_scoped_release release;
      s = Translator::create(*model_, o, &translator_);
    }
    check(s);
  }

  std::vector<std::vector<PyHypothesis>> translate(const std::vector<Tokens>& sources,
                                                   const std::optional<std::vector<Tokens>>& prefixes,
                                                   const TranslateArgs& a, nb::object callback) {
    ControlTokenIds ids;
    DecodeOptions d = decode_options(a, *translator_, &ids);
    Callback cb;
    if (!callback.is_none()) {
      cb.callable = nb::borrow<nb::callable>(callback);
      d.on_token = forward_step;
      d.on_token_user = &cb;
    }
    std::vector<std::vector<TranslationHypothesis>> out;
    Status s;
    {
      nb::gil_scoped_release release;
      s = translator_->translate_tokens(sources, d, prefixes ? &*prefixes : nullptr, &out);
    }
    if (cb.failed) throw nb::python_error();
    check(s);
    std::vector<std::vector<PyHypothesis>> result(out.size());
    for (size_t i = 0; i < out.size(); ++i)
      for (const TranslationHypothesis& h : out[i])
        result[i].emplace_back(h.tokens, h.score, h.token_log_probs, attention_rows(h));
    return result;
  }

  // Plain text through the runtime's text path (heed/text_translator.h), as heed translate and
  // heed_translate_text: the best translation of each text. A line that fails raises ValueError.
  std::vector<std::string> translate_text(const std::vector<std::string>& texts, const TranslateArgs& a, bool split,
                                          const std::string& source_language) {
    ControlTokenIds ids;
    const DecodeOptions d = decode_options(a, *translator_, &ids);
    TextTranslator& text = text_translator(split, source_language);
    const std::vector<std::string_view> views(texts.begin(), texts.end());
    std::vector<TextTranslation> out;
    Status s;
    {
      nb::gil_scoped_release release;
      s = text.translate(views, d, nullptr, &out);
    }
    check(s);
    std::vector<std::string> result;
    for (size_t i = 0; i < out.size(); ++i) {
      for (const TextLineIssue& e : out[i].errors) {
        check(Status(e.status.code(), "text " + std::to_string(i) + ", line " + std::to_string(e.line + 1) + ": " +
                                          e.status.message()));
      }
      result.push_back(std::move(out[i].texts.front()));
    }
    return result;
  }

  std::vector<std::vector<float>> score(const std::vector<Tokens>& sources, const std::vector<Tokens>& targets) {
    std::vector<std::vector<float>> out;
    Status s;
    {
      nb::gil_scoped_release release;
      s = translator_->score_tokens(sources, targets, &out);
    }
    check(s);
    return out;
  }

  size_t max_source_tokens() const { return translator_->max_source_tokens(); }
  size_t max_target_length() const { return translator_->limits().max_target_len; }
  std::string target_token(int32_t id) const {
    if (id < 0 || static_cast<size_t>(id) >= translator_->target_vocabulary().size()) {
      throw nb::index_error("token id out of range");
    }
    return translator_->target_vocabulary().token(id);
  }
  int32_t eos_id() const { return translator_->conventions().eos_id; }
  int32_t unk_id() const { return translator_->conventions().unk_id; }

 private:
  // The text path for these options, kept while calls ask for the same (its tokenizers load once).
  TextTranslator& text_translator(bool split, const std::string& source_language) {
    if (!text_ || text_options_.split_sentences != split || text_options_.source_language != source_language) {
      text_.reset();
      text_options_.split_sentences = split;
      text_options_.source_language = source_language;
      check(TextTranslator::create(*model_, *translator_, text_options_, &text_));
    }
    return *text_;
  }

  std::shared_ptr<const Model> model_;  // outlives the translator and the text path built on it
  std::unique_ptr<Translator> translator_;
  std::unique_ptr<TextTranslator> text_;
  TextTranslatorOptions text_options_;
};

}  // namespace

void bind_translator(nb::module_& m) {
  nb::class_<TranslateArgs> translate_args(m, "TranslateArgs");
  bind_sampling_args(translate_args)
      .def(nb::init<>())
      .def_rw("return_attention", &TranslateArgs::return_attention);
  nb::class_<PyTranslator>(m, "Translator")
      .def(nb::init<const ModelHandle&, size_t, uint32_t, size_t, size_t, size_t, size_t, bool>(), nb::arg("model"),
           nb::arg("threads"), nb::arg("spin_microseconds"), nb::arg("max_batch"), nb::arg("max_beam"), nb::arg("max_source"),
           nb::arg("max_target"), nb::arg("attention"))
      .def("translate", &PyTranslator::translate, nb::arg("sources"), nb::arg("prefixes").none(), nb::arg("args"),
           nb::arg("callback").none())
      .def("max_target_length", &PyTranslator::max_target_length)
      .def("target_token", &PyTranslator::target_token)
      .def("eos_id", &PyTranslator::eos_id)
      .def("unk_id", &PyTranslator::unk_id)
      .def("score", &PyTranslator::score)
      .def("translate_text", &PyTranslator::translate_text, nb::arg("texts"), nb::arg("args"), nb::arg("split"),
           nb::arg("source_language"))
      .def("max_source_tokens", &PyTranslator::max_source_tokens);
}

}  // namespace heed::python
