// The chat formats of templates as model authors publish them (heed/chat.h: kLlama31, kQwen25),
// each written as its template renders it without tools (heed passes none), and Jinja's `trim`,
// which every Llama renderer applies.
#pragma once

#include <string>
#include <vector>

#include "heed/chat.h"

namespace heed::chat_formats {

// Jinja's `trim` filter (Python's str.strip(), ASCII whitespace as the templates' texts need).
std::string jinja_trim(const std::string& s);

void render_llama31(const ChatTemplate& chat, const std::vector<ChatMessage>& messages, bool prompt, std::string* out);

// Refuses a role the template writes nothing for.
Status render_qwen25(const ChatTemplate& chat, const std::vector<ChatMessage>& messages, bool prompt, std::string* out);

}  // namespace heed::chat_formats
