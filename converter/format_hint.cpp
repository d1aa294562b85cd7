#include "format_hint.h"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "json_fields.h"
#include "source_files.h"

namespace heed::convert {
namespace {

// The Hugging Face model types heed converts, with the files each folder must hold besides
// config.json (what the format's detector looks for).
struct HfFamily {
  const char* model_type;
  const char* format;
  const char* files[2];
};
constexpr HfFamily kHfFamilies[] = {
    {"bert", "hf-bert", {"vocab.txt or tokenizer.json", nullptr}},  // either one: named together
    {"gpt2", "hf-gpt2", {"model.safetensors", nullptr}},
    {"llama", "hf-llama", {"model.safetensors", nullptr}},
    {"marian", "hf-marian", {"source.spm", "vocab.json"}},
    {"mpnet", "hf-mpnet", {"vocab.txt or tokenizer.json", nullptr}},
    {"xlm-roberta", "hf-xlm-roberta", {"tokenizer.json", nullptr}},
};

std::string supported_model_types() {
  std::string types;
  for (const HfFamily& f : kHfFamilies) types += (types.empty() ? "" : ", ") + std::string(f.model_type);
  return types;
}

// Why a folder whose config.json names a family heed reads was not recognized: the first file
// the family needs that is missing, with what was found in its place.
std::string missing_file_hint(const std::string& dir, const HfFamily& family) {
  for (const char* file : family.files) {
    if (file == nullptr || is_file(dir + "/" + file)) continue;
    std::string hint = "'" + dir + "' is a Hugging Face " + family.model_type + " folder (" + family.format +
                       ") without " + file;
    if (std::string(file) == "model.safetensors" && is_file(dir + "/pytorch_model.bin")) {
      hint += " (it has pytorch_model.bin: heed reads safetensors; save the model with safe_serialization)";
    }
    return hint;
  }
  return "'" + dir + "' looks like a Hugging Face " + family.model_type + " folder: pass --from " + family.format;
}

std::string folder_hint(const std::string& dir) {
  const std::string config = dir + "/config.json";
  if (!is_file(config)) {
    return "'" + dir + "' is a folder without model.bin (CTranslate2) or config.json (Hugging Face)";
  }
  nlohmann::json j;
  if (!read_json(config, &j).is_ok() || !j.is_object()) return "'" + config + "' is not a JSON object";
  const auto type = j.find("model_type");
  if (type == j.end() || !type->is_string()) {
    return "'" + config + "' names no model_type (Hugging Face model types heed converts: " +
           supported_model_types() + ")";
  }
  const std::string name = type->get<std::string>();
  for (const HfFamily& f : kHfFamilies) {
    if (name == f.model_type) return missing_file_hint(dir, f);
  }
  return "'" + config + "' says model_type '" + name + "', which heed does not convert (it converts " +
         supported_model_types() + ")";
}

}  // namespace

std::string undetected_format_hint(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "'" + path + "' does not exist";
  if (S_ISDIR(st.st_mode)) return folder_hint(path);
  return "'" + path + "' is a file but neither an Argos package (zip) nor a llama2.c checkpoint";
}

}  // namespace heed::convert
