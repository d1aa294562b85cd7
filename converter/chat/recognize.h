// tokenizer_config.json's chat_template -> one of heed's chat formats (schema/heed.fbs,
// ChatTemplate) with the parameters it carries, by comparing its shape (jinja_shape.h) with the
// shapes of the templates each format is published with. Strict: a template of another shape is
// Unrecognized (its first line kept for messages), never guessed.
#pragma once

#include <string>

#include "heed_generated.h"

namespace heed::convert::chat {

fb::ChatTemplateT recognize_chat_template(const std::string& jinja);

// DIR/tokenizer_config.json's chat_template, when there is one: *found false otherwise (no file,
// no key). A template that is not recognized gets a warning on stderr naming its first line.
bool read_chat_template(const std::string& dir, fb::ChatTemplateT* out);

}  // namespace heed::convert::chat
