#include "argos/reader.h"

#include <sys/stat.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "ct2/reader.h"
#include "heed/tokenizer.h"
#include "source_files.h"

namespace heed::convert::argos {
namespace {

constexpr const char* kModelFolder = "model/";

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

// The package's folder: where model/model.bin is, "" (a flat package) or one top folder "X/".
Status find_prefix(const std::string& path, const ZipArchive& zip, std::string* prefix) {
  std::vector<std::string> found;
  const std::string marker = std::string(kModelFolder) + "model.bin";
  for (const auto& e : zip.entries()) {
    if (!ends_with(e.name, marker)) continue;
    const std::string p = e.name.substr(0, e.name.size() - marker.size());
    if (p.empty() || (p.back() == '/' && p.find('/') == p.size() - 1)) found.push_back(p);
  }
  if (found.empty()) {
    return invalid_file(path + ": no model/model.bin: not an Argos Translate package (expected a top folder with "
                        "metadata.json, sentencepiece.model and model/, a CTranslate2 model)");
  }
  if (found.size() > 1) {
    return invalid_file(path + ": several models (" + found[0] + "model/ and " + found[1] + "model/); an Argos "
                        "package holds one");
  }
  *prefix = found[0];
  return Status::success();
}

Status read_member(const std::string& path, ZipArchive& zip, const std::string& name, const char* what,
                   std::string* bytes) {
  const ZipEntry* e = zip.find(name);
  if (!e) return invalid_file(path + ": no " + name + " (" + what + ")");
  return zip.read(*e, bytes);
}

// metadata.json's fields into the model's metadata. from_code and to_code are required (they are
// what makes a package a language pair); the rest is kept when present.
Status read_metadata(const std::string& path, const std::string& text, NeutralModel* model) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return invalid_file(path + ": metadata.json is not a JSON object");
  auto string_field = [&](const char* key, std::string* value) -> Status {
    value->clear();
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return Status::success();
    if (!it->is_string()) return invalid_file(path + ": metadata.json: '" + key + "' is not a string");
    *value = it->get<std::string>();
    return Status::success();
  };
  std::string type, prefix;
  HEED_RETURN_IF_ERROR(string_field("type", &type));
  if (!type.empty() && type != "translate") {
    return unsupported_model(path + ": an Argos package of type '" + type + "', not a translation model");
  }
  // Multilingual packages steer the decoder with a target prefix token that Argos adds to every
  // translation; heed's translate command does not add it, so such a package would translate wrongly.
  HEED_RETURN_IF_ERROR(string_field("target_prefix", &prefix));
  if (!prefix.empty()) {
    return unsupported_model(path + ": the package needs the target prefix '" + prefix +
                             "' on every translation, which heed does not support yet");
  }
  std::string from, to;
  HEED_RETURN_IF_ERROR(string_field("from_code", &from));
  HEED_RETURN_IF_ERROR(string_field("to_code", &to));
  if (from.empty() || to.empty()) return invalid_file(path + ": metadata.json has no from_code or to_code");
  model->metadata.emplace_back("source_language", from);
  model->metadata.emplace_back("target_language", to);
  for (const char* key : {"from_name", "to_name", "package_version", "argos_version"}) {
    std::string value;
    HEED_RETURN_IF_ERROR(string_field(key, &value));
    if (!value.empty()) model->metadata.emplace_back(std::string("argos.") + key, value);
  }
  return Status::success();
}

}  // namespace

Status read_model(const std::string& path, const PackageLimits& limits, NeutralModel* out) {
  std::unique_ptr<ZipArchive> zip;
  HEED_RETURN_IF_ERROR(ZipArchive::open(path, limits, &zip));
  std::string prefix;
  HEED_RETURN_IF_ERROR(find_prefix(path, *zip, &prefix));
  std::string metadata, sentencepiece;
  HEED_RETURN_IF_ERROR(read_member(path, *zip, prefix + "metadata.json", "the package's languages", &metadata));
  HEED_RETURN_IF_ERROR(
      read_member(path, *zip, prefix + "sentencepiece.model", "the package's SentencePiece model", &sentencepiece));

  // model/'s files (not its subfolders: a CTranslate2 model folder is flat) into a private folder
  // that goes away with `temp` on every return below.
  std::unique_ptr<TempDir> temp;
  HEED_RETURN_IF_ERROR(TempDir::create("heed-argos-", &temp));
  const std::string model_prefix = prefix + kModelFolder;
  for (const auto& e : zip->entries()) {
    if (e.name.compare(0, model_prefix.size(), model_prefix) != 0) continue;
    const std::string rest = e.name.substr(model_prefix.size());
    if (rest.find('/') != std::string::npos) continue;
    HEED_RETURN_IF_ERROR(zip->extract(e, temp->path() + "/" + rest));
  }
  zip.reset();

  NeutralModel model;
  Status status = ct2::read_model(temp->path(), &model);
  if (!status.is_ok()) {
    // The CTranslate2 reader names the temporary folder; the user knows the package.
    std::string message = status.message();
    replace_all(message, temp->path(), path + ":" + model_prefix.substr(0, model_prefix.size() - 1));
    return Status(status.code(), message);
  }
  if (model.config.type != fb::ModelConfig::TransformerEncoderDecoder) {
    return unsupported_model(path + ": the model is not an encoder-decoder (Argos packages translate)");
  }

  // One SentencePiece model splits the source text and joins the target pieces. Loading it now
  // refuses an unusable model at conversion time rather than on the device.
  fb::TokenizerT& tok = model.tokenizer;
  {
    std::unique_ptr<Tokenizer> check;
    TokenizerOptions options;
    options.unk_id = tok.unk_id;
    status = create_sentencepiece_tokenizer(sentencepiece.data(), sentencepiece.size(), tok.target_vocabulary->tokens,
                                            options, &check);
    if (!status.is_ok()) return Status(status.code(), path + ": sentencepiece.model: " + status.message());
  }
  tok.kind = fb::TokenizerKind::SentencePiece;
  tok.source_model.assign(sentencepiece.begin(), sentencepiece.end());
  tok.target_model = tok.source_model;

  for (auto& kv : model.metadata) {
    if (kv.first == "source_format") kv.second = "argos";
  }
  HEED_RETURN_IF_ERROR(read_metadata(path, metadata, &model));
  model.producer.source_format = "argos";
  model.producer.source_name = base_name(path);
  *out = std::move(model);
  return Status::success();
}

bool looks_like_package(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (ends_with(path, ".argosmodel")) return true;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char magic[4] = {0, 0, 0, 0};
  const size_t n = std::fread(magic, 1, 4, f);
  std::fclose(f);
  return n == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
}


Status read_model(const std::string& path, NeutralModel* out) { return read_model(path, PackageLimits{}, out); }

}  // namespace heed::convert::argos
