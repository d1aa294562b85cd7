// `heed generate --chat` (and `heed serve`'s chat completions): a chat given as JSON, a list of
// {"role": ..., "content": ...} objects, into heed::ChatMessage values, and a chat's prompt ids.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "heed/chat.h"
#include "heed/generator.h"
#include "heed/status.h"

namespace heed::cli {

// The messages of a JSON array of objects with string "role" and "content" (other members are
// ignored); an error naming the first fault otherwise.
Status chat_messages(const nlohmann::json& list, std::vector<ChatMessage>* out);
// The same from JSON text (one line of `heed generate --chat`'s input).
Status parse_chat_messages(std::string_view json_text, std::vector<ChatMessage>* out);

// A prompt's ids: the text tokenized, or with `chat` the chat JSON rendered in the model's chat
// format first (Generator::encode_chat).
Status encode_prompt(const Generator& generator, std::string_view text, bool chat, std::vector<int32_t>* ids);

// `heed generate --chat --chat-text`: each stdin line's chat rendered, written as one JSON string
// per line (an error line on stderr and an empty JSON string for a chat that cannot be). Exit code.
int print_chat_texts(const Generator& generator, int fd);

}  // namespace heed::cli
