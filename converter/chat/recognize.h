// tokenizer_config.json's chat_template -> one of heed's chat formats (schema/heed.fbs,
// ChatTemplate) with the parameters it carries, by comparing its shape (jinja_shape.h) with the
// shapes of the templates each format is published with: the published templates of Llama 3.1/3.2/
// 3.3 and Qwen2.5 Instruct by their shapes' digests (published.h), the layouts of ChatML, Llama 2,
// Llama 3 and Zephyr by their shapes. Strict: a template of another shape is Unrecognized (its
// first line kept for messages), never guessed.
#pragma once

#include <string>

#include "heed_generated.h"

namespace heed::convert::chat {

fb::ChatTemplateT recognize_chat_template(const std::string& jinja);

// DIR/tokenizer_config.json's chat_template, when there is one: *found false otherwise (no file,
// no key). A template that is not recognized gets a warning on stderr naming its first line.
bool read_chat_template(const std::string& dir, fb::ChatTemplateT* out);

}  // namespace heed::convert::chat
