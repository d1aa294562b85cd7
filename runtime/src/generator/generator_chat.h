// The chat format a file records (schema/heed.fbs, ChatTemplate) as heed/chat.h's ChatTemplate.
#pragma once

#include <string>

#include "heed/chat.h"
#include "heed/model.h"

namespace heed::generation {

// kNone when the file has no chat template; the token texts are the model's start and end tokens.
ChatTemplate chat_template_of(const Model& model, const std::string& bos_token, const std::string& eos_token);

}  // namespace heed::generation
