// heed._heed.Generator: a heed Generator (one session) for python/heed/generator.py. Streaming
// calls a Python callable per token with the GIL taken back; the rest runs without the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "errors.h"
#include "heed/generator.h"
#include "model_handle.h"
#include "sampling_args.h"

namespace nb = nanobind;

namespace heed::python {
namespace {

using Ids = std::vector<int32_t>;

struct GenerateArgs : SamplingArgs {
  size_t max_length = 512;
};

// The streaming callback's state: the Python callable, the generator (for the token's log-prob)
// and whether the callable raised.
struct Stream {
  nb::callable* callback;
  const Generator* generator;
  bool failed = false;
};

bool forward(void* user, int32_t id, std::string_view text) {
  Stream& s = *static_cast<Stream*>(user);
  nb::gil_scoped_acquire acquire;
  try {
    // Bytes: a token's piece may be part of a UTF-8 character (byte-level BPE, byte tokens).
    return nb::cast<bool>((*s.callback)(id, nb::bytes(text.data(), text.size()), s.generator->token_log_prob()));
  } catch (nb::python_error& e) {  // the callable raised: stop, and raise it after the generation
    e.restore();
    s.failed = true;
    return false;
  } catch (const std::exception& e) {  // e.g. a result that is not a bool
    PyErr_SetString(PyExc_TypeError, e.what());
    s.failed = true;
    return false;
  }
}

// Sequences of ids as one TokenBatch (the storage it views).
struct Flat {
  explicit Flat(const std::vector<Ids>& sequences) : size(sequences.size()) {
    offsets.push_back(0);
    for (const Ids& s : sequences) {
      ids.insert(ids.end(), s.begin(), s.end());
      offsets.push_back(ids.size());
    }
  }
  TokenBatch batch() const { return TokenBatch{ids.data(), offsets.data(), size}; }
  Ids ids;
  std::vector<size_t> offsets;
  size_t size;
};

class PyGenerator {
 public:
  PyGenerator(const ModelHandle& model, size_t threads, uint32_t spin_microseconds, size_t max_batch, size_t max_context)
      : model_(model.model) {
    GeneratorOptions o;
    o.threads = threads;
    o.spin_microseconds = spin_microseconds;
    o.max_batch = max_batch;
    o.max_context = max_context;
    nb::gil_scoped_release release;
    check_released(Generator::create(*model_, o, &generator_));
  }

  // (ids, log_prob, end_id, end_log_prob) of one prompt (end_id -1 when no end token finished it);
  // `callback(id, text, log_prob) -> bool` per token, the end token excluded.
  std::tuple<Ids, float, int32_t, float> generate(const Ids& prompt, const GenerateArgs& a, nb::object callback) {
    GenerateOptions o;
    ControlTokenIds ids;
    options(a, &o, &ids);
    Generation g;
    Status s;
    nb::callable cb;
    Stream stream{nullptr, generator_.get()};
    if (!callback.is_none()) {
      cb = nb::borrow<nb::callable>(callback);
      stream.callback = &cb;
    }
    {
      nb::gil_scoped_release release;
      s = generator_->generate(prompt.data(), prompt.size(), o, stream.callback ? forward : nullptr, &stream, &g);
    }
    if (stream.failed) throw nb::python_error();
    check(s);
    return {Ids(g.ids, g.ids + g.length), g.log_prob, g.end_id, g.end_log_prob};
  }

  std::vector<std::tuple<Ids, float>> generate_batch(const std::vector<Ids>& prompts, const GenerateArgs& a) {
    GenerateOptions o;
    ControlTokenIds ids;
    options(a, &o, &ids);
    const Flat flat(prompts);
    std::vector<Generation> out(prompts.size());
    Status s;
    {
      nb::gil_scoped_release release;
      s = generator_->generate_batch(flat.batch(), o, out.data());
    }
    check(s);
    std::vector<std::tuple<Ids, float>> result;
    for (const Generation& g : out) result.emplace_back(Ids(g.ids, g.ids + g.length), g.log_prob);
    return result;
  }

  // The log-prob of every token after each sequence's first (CTranslate2's score_batch: the end
  // token's, which heed's score() adds last, is left out).
  std::vector<std::vector<float>> score(const std::vector<Ids>& sequences) {
    const Flat flat(sequences);
    ScoreOutput out;
    Status s;
    {
      nb::gil_scoped_release release;
      s = generator_->score(flat.batch(), &out);
    }
    check(s);
    std::vector<std::vector<float>> result;
    for (size_t i = 0; i < out.batch; ++i) result.emplace_back(out.sentence(i), out.sentence(i) + out.length(i) - 1);
    return result;
  }

  Ids encode(const std::string& text) const {
    Ids ids;
    check(generator_->encode(text, &ids));
    return ids;
  }
  // A chat's prompt ids (heed/chat.h): (role, content) pairs rendered in the file's chat format.
  Ids encode_chat(const std::vector<std::pair<std::string, std::string>>& messages) const {
    Ids ids;
    check(generator_->encode_chat(chat_messages(messages), &ids));
    return ids;
  }
  std::string render_chat(const std::vector<std::pair<std::string, std::string>>& messages,
                          bool add_generation_prompt) const {
    std::string text;
    check(heed::render_chat(generator_->chat_template(), chat_messages(messages), add_generation_prompt, &text));
    return text;
  }
  static std::vector<ChatMessage> chat_messages(const std::vector<std::pair<std::string, std::string>>& pairs) {
    std::vector<ChatMessage> out;
    for (const auto& [role, content] : pairs) out.push_back({role, content});
    return out;
  }
  std::string token(int32_t id) const {
    if (id < 0 || static_cast<size_t>(id) >= generator_->vocab_size()) throw nb::index_error("token id out of range");
    return generator_->token(id);
  }
  int32_t token_id(const std::string& token) const { return generator_->token_id(token); }
  // Bytes: a piece may be part of a UTF-8 character; the caller joins them before decoding.
  nb::bytes piece(int32_t previous, int32_t id) const {
    const std::string_view p = generator_->piece(previous, id);
    return nb::bytes(p.data(), p.size());
  }
  int32_t bos_id() const { return generator_->bos_id(); }
  int32_t eos_id() const { return generator_->eos_id(); }
  int32_t unk_id() const { return generator_->unk_id(); }
  size_t max_context() const { return generator_->max_context(); }

 private:
  static void check_released(const Status& s) {
    if (s.ok()) return;
    nb::gil_scoped_acquire acquire;
    check(s);
  }
  void options(const GenerateArgs& a, GenerateOptions* o, ControlTokenIds* ids) const {
    const DecodeOptions& d = a.decode;
    o->max_new_tokens = a.max_length;
    const bool greedy = d.sampling_top_k == 1;
    o->temperature = greedy ? 0.0f : d.sampling_temperature;
    o->top_k = d.sampling_top_k;
    o->top_p = d.sampling_top_p;
    o->seed = d.seed;
    o->controls = d.controls;
    const auto to_id = [this](const std::string& t) { return generator_->token_id(t); };
    check(ids->map(a.suppress_sequences, a.end_token, to_id, "suppress_sequences", "end_token"));
    ids->bind(&o->controls);
  }

  std::shared_ptr<const Model> model_;  // outlives the generator
  std::unique_ptr<Generator> generator_;
};

}  // namespace

void bind_generator(nb::module_& m) {
  nb::class_<GenerateArgs> generate_args(m, "GenerateArgs");
  bind_sampling_args(generate_args).def(nb::init<>()).def_rw("max_length", &GenerateArgs::max_length);
  nb::class_<PyGenerator>(m, "Generator")
      .def(nb::init<const ModelHandle&, size_t, uint32_t, size_t, size_t>(), nb::arg("model"), nb::arg("threads"),
           nb::arg("spin_microseconds"), nb::arg("max_batch"), nb::arg("max_context"))
      .def("generate", &PyGenerator::generate, nb::arg("prompt"), nb::arg("args"), nb::arg("callback").none())
      .def("generate_batch", &PyGenerator::generate_batch)
      .def("score", &PyGenerator::score, nb::arg("sequences"))
      .def("encode", &PyGenerator::encode)
      .def("encode_chat", &PyGenerator::encode_chat)
      .def("render_chat", &PyGenerator::render_chat, nb::arg("messages"), nb::arg("add_generation_prompt"))
      .def("token", &PyGenerator::token)
      .def("token_id", &PyGenerator::token_id)
      .def("piece", &PyGenerator::piece)
      .def("bos_id", &PyGenerator::bos_id)
      .def("eos_id", &PyGenerator::eos_id)
      .def("unk_id", &PyGenerator::unk_id)
      .def("max_context", &PyGenerator::max_context);
}

}  // namespace heed::python
