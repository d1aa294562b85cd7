// The models `heed serve` was started with, each with its fixed pool of sessions created at start
// (every arena planned then: a request only borrows a session). Requests name models by their id
// (the file name without .heed) or, for translation, by language pair; nothing else is reachable.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "heed/embedder.h"
#include "heed/generator.h"
#include "heed/model.h"
#include "serve_options.h"
#include "session_pool.h"
#include "translation_session.h"

namespace heed::cli::serve {

enum class Task { kTranslation, kGeneration, kEmbedding };

struct ServedModel {
  std::string id;  // the file name without its .heed extension
  std::string path;  // the file, as given
  Task task = Task::kTranslation;
  std::string source_language, target_language;  // translation models
  std::string source_name, target_name;          // the languages' names when the package has them
  std::unique_ptr<Model> model;                  // outlives its sessions (declared first)
  std::unique_ptr<SessionPool<TranslationSession>> translators;
  std::unique_ptr<SessionPool<Generator>> generators;
  std::unique_ptr<SessionPool<Embedder>> embedders;
};

class ModelSet {
 public:
  // Opens every model and creates its sessions; the error names the model.
  static Status load(const ServeOptions& options, std::unique_ptr<ModelSet>* out);

  const std::vector<std::unique_ptr<ServedModel>>& models() const { return models_; }
  // The translation model from `source` to `target`; null when none.
  ServedModel* translation(const std::string& source, const std::string& target) const;
  // The model with this id doing `task`; null when none.
  ServedModel* find(const std::string& id, Task task) const;

 private:
  std::vector<std::unique_ptr<ServedModel>> models_;
};

const char* task_name(Task task);

}  // namespace heed::cli::serve
