// `heed convert --from argos`: an Argos Translate package (.argosmodel) as a NeutralModel.
//
// A package is a zip file holding one top folder (or none) with
//   metadata.json        languages and version: from_code, to_code, from_name, to_name,
//                        package_version, argos_version, type ("translate")
//   sentencepiece.model  one SentencePiece model for both languages
//   model/               a CTranslate2 model folder (model.bin, config.json, shared_ or
//                        source_/target_vocabulary .json or .txt)
//   stanza/, README ...  sentence splitting and documentation, not used by heed
// model/ is extracted into a private temporary folder (package_zip.h: zip-slip, zip-bomb and CRC
// checks), read by the CTranslate2 reader (ct2/reader.h), and the folder removed again on every
// path. The SentencePiece model is embedded as both the source and the target tokenizer, so the
// .heed file translates plain text; metadata.json's fields become metadata keys (source_language,
// target_language, argos.*).
#pragma once

#include <string>

#include "argos/package_zip.h"
#include "heed/status.h"
#include "neutral_model.h"

namespace heed::convert::argos {

// True when `path` is a file named *.argosmodel or starting with a zip signature.
bool looks_like_package(const std::string& path);

Status read_model(const std::string& path, NeutralModel* out);
Status read_model(const std::string& path, const PackageLimits& limits, NeutralModel* out);

}  // namespace heed::convert::argos
