#include "model_set.h"

#include <string_view>

#include "heed/model_description.h"

namespace heed::cli::serve {

namespace {

Status fail(const std::string& path, const Status& st) { return Status(st.code(), path + ": " + st.message()); }

std::string model_id(const std::string& path) {
  std::string id = path.substr(path.find_last_of('/') + 1);
  const std::string ext = ".heed";
  if (id.size() > ext.size() && id.compare(id.size() - ext.size(), ext.size(), ext) == 0) id.resize(id.size() - ext.size());
  return id;
}

Status task_of(const Model& model, Task* task) {
  const std::string_view family = model.family_name();
  if (family == "TransformerEncoderDecoder" || family == "RnnSeq2Seq") {
    *task = Task::kTranslation;
  } else if (family == "TransformerDecoderOnly") {
    *task = Task::kGeneration;
  } else if (family == "TransformerEncoderOnly") {
    *task = Task::kEmbedding;
  } else {
    return Status(StatusCode::kUnsupportedModel, "a model of family '" + std::string(family) + "' cannot be served");
  }
  return Status::success();
}

std::string metadata_or(const Model& model, std::string_view key, const std::string& fallback) {
  const char* value = model.metadata(key);
  return value != nullptr ? value : fallback;
}

// The languages from --lang SRC-TGT when given, else the file's metadata (Argos and Marian
// conversions record them).
Status set_languages(const std::string& lang, ServedModel* m) {
  const Model& model = *m->model;
  if (!lang.empty()) {
    const size_t dash = lang.find('-');
    if (dash == 0 || dash == std::string::npos || dash + 1 == lang.size()) {
      return Status(StatusCode::kInvalidArgument, "--lang wants SRC-TGT (e.g. en-de), got '" + lang + "'");
    }
    m->source_language = lang.substr(0, dash);
    m->target_language = lang.substr(dash + 1);
  } else {
    m->source_language = metadata_or(model, "source_language", "");
    m->target_language = metadata_or(model, "target_language", "");
    if (m->source_language.empty() || m->target_language.empty()) {
      return Status(StatusCode::kInvalidArgument, "the file names no languages: give them with --lang SRC-TGT");
    }
  }
  m->source_name = metadata_or(model, "argos.from_name", m->source_language);
  m->target_name = metadata_or(model, "argos.to_name", m->target_language);
  return Status::success();
}

// Each pool's sessions, all created now.
template <typename Session, typename Create>
Status make_pool(const ServeOptions& options, Create create, std::unique_ptr<SessionPool<Session>>* out) {
  std::vector<std::unique_ptr<Session>> sessions(options.sessions);
  for (auto& s : sessions) HEED_RETURN_IF_ERROR(create(&s));
  *out = std::make_unique<SessionPool<Session>>(std::move(sessions), options.max_queue);
  return Status::success();
}

Status create_sessions(const ServeOptions& options, ServedModel* m) {
  const Model& model = *m->model;
  switch (m->task) {
    case Task::kTranslation: {
      TranslatorOptions t;
      // Room for LibreTranslate's alternatives: each is a hypothesis of a beam that wide.
      t.limits = StepModelLimits{8, std::max<size_t>(2, options.max_alternatives + 1), 0, options.max_tokens};
      t.limits.backend = options.backend;
      t.threads = options.threads;
      t.spin_microseconds = options.spin_microseconds;
      return make_pool(options, [&](auto* s) { return TranslationSession::create(model, t, options, s); }, &m->translators);
    }
    case Task::kGeneration: {
      GeneratorOptions g;
      g.threads = options.threads;
      g.spin_microseconds = options.spin_microseconds;
      g.backend = options.backend;
      return make_pool(options, [&](auto* s) { return Generator::create(model, g, s); }, &m->generators);
    }
    case Task::kEmbedding: {
      EmbedderOptions e;
      e.threads = options.threads;
      e.spin_microseconds = options.spin_microseconds;
      return make_pool(options, [&](auto* s) { return Embedder::create(model, e, s); }, &m->embedders);
    }
  }
  return Status::success();
}

// A model must be reachable: ids are unique, and so are translation models' language pairs (a
// request names a pair, so a second model for it could never be asked for).
Status check_unique(const ModelSet& set, const ServedModel& m) {
  for (const auto& other : set.models()) {
    if (other->id == m.id) return Status(StatusCode::kInvalidArgument, m.path + ": a second model named '" + m.id + "'");
    if (m.task == Task::kTranslation && other->task == Task::kTranslation &&
        other->source_language == m.source_language && other->target_language == m.target_language) {
      return Status(StatusCode::kInvalidArgument, other->path + " and " + m.path + " both translate " +
                                                      m.source_language + "-" + m.target_language +
                                                      ": serve one model per language pair");
    }
  }
  return Status::success();
}

}  // namespace

const char* task_name(Task task) {
  switch (task) {
    case Task::kTranslation: return "translation";
    case Task::kGeneration: return "generation";
    case Task::kEmbedding: return "embeddings";
  }
  return "";
}

Status ModelSet::load(const ServeOptions& options, std::unique_ptr<ModelSet>* out) {
  auto set = std::make_unique<ModelSet>();
  size_t translation_models = 0;
  for (const std::string& path : options.model_paths) {
    auto m = std::make_unique<ServedModel>();
    m->id = model_id(path);
    m->path = path;
    Status st = Model::open(path, options.load, &m->model);
    if (st) st = task_of(*m->model, &m->task);
    if (st && m->task == Task::kTranslation) {
      const size_t i = translation_models++;
      st = set_languages(i < options.languages.size() ? options.languages[i] : "", m.get());
      if (st && options.use_vmap && !describe(*m->model).has_vocab_map) {
        st = invalid_argument("--use-vmap: the model has no vocabulary map (convert it with heed convert --vmap FILE)");
      }
    }
    if (st) st = create_sessions(options, m.get());
    if (!st) return fail(path, st);
    HEED_RETURN_IF_ERROR(check_unique(*set, *m));
    set->models_.push_back(std::move(m));
  }
  if (!options.languages.empty() && options.languages.size() != translation_models) {
    return Status(StatusCode::kInvalidArgument, std::to_string(options.languages.size()) + " --lang for " +
                                                    std::to_string(translation_models) + " translation models");
  }
  *out = std::move(set);
  return Status::success();
}

ServedModel* ModelSet::translation(const std::string& source, const std::string& target) const {
  for (const auto& m : models_) {
    if (m->task == Task::kTranslation && m->source_language == source && m->target_language == target) return m.get();
  }
  return nullptr;
}

ServedModel* ModelSet::find(const std::string& id, Task task) const {
  for (const auto& m : models_) {
    if (m->task == task && m->id == id) return m.get();
  }
  return nullptr;
}

}  // namespace heed::cli::serve
