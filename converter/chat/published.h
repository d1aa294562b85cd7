// Chat templates as model authors publish them (tokenizer_config.json's chat_template), recognized
// by the SHA-256 of their shape (jinja_shape.h). heed keeps only each template's digest, the name
// of the models that publish it and the format heed renders it in: none of the templates' text.
// A digest names one whole template, so a template that differs from a published one anywhere in
// its shape (a character of its text, a condition) is not recognized here; the parameters a
// recognized template carries (its fallback date, its default system message) are read out of its
// own shape.
#pragma once

#include <string>

#include "heed_generated.h"

namespace heed::convert::chat {

// The hex SHA-256 of `shape`.
std::string shape_digest(const std::string& shape);

// Whether `shape` is a published template heed knows; *out then holds its format and parameters.
bool recognize_published(const std::string& shape, fb::ChatTemplateT* out);

}  // namespace heed::convert::chat
