// The chat formats of heed/chat.h, each written as its template renders it (the published
// templates' formats in chat_published.cpp).
#include "heed/chat.h"

#include "generator/chat_published.h"

namespace heed {
namespace {

using chat_formats::jinja_trim;

void render_chatml(const ChatTemplate& chat, const std::vector<ChatMessage>& messages, bool prompt, std::string* out) {
  if (chat.has_default_system && messages.front().role != "system") {
    *out += "<|im_start|>system\n" + chat.default_system + "<|im_end|>\n";
  }
  for (const ChatMessage& m : messages) *out += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
  if (prompt) *out += "<|im_start|>assistant\n";
}

void render_llama3(const ChatTemplate& chat, const std::vector<ChatMessage>& messages, bool prompt, std::string* out) {
  if (chat.leading_bos) *out += chat.bos_token;
  for (const ChatMessage& m : messages) {
    *out += "<|start_header_id|>" + m.role + "<|end_header_id|>\n\n" + jinja_trim(m.content) + "<|eot_id|>";
  }
  if (prompt) *out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
}

void render_zephyr(const ChatTemplate& chat, const std::vector<ChatMessage>& messages, bool prompt, std::string* out) {
  for (const ChatMessage& m : messages) *out += "<|" + m.role + "|>\n" + m.content + chat.eos_token + "\n";
  if (prompt) *out += "<|assistant|>\n";
}

// Llama 2 has no generation prompt: a prompt ends with the user's [/INST].
Status render_llama2(const ChatTemplate& chat, const std::vector<ChatMessage>& messages, std::string* out) {
  size_t first = 0;
  std::string system;
  if (messages.front().role == "system") {
    system = messages.front().content;
    first = 1;
  }
  for (size_t i = first; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    const bool user_turn = (i - first) % 2 == 0;
    if (m.role != (user_turn ? "user" : "assistant")) {
      return invalid_argument("Llama 2 chat: message " + std::to_string(i + 1) + " has role '" + m.role +
                              "'; roles must alternate user, assistant, user, ... after an optional system message");
    }
    if (!user_turn) {
      *out += " " + jinja_trim(m.content) + " " + chat.eos_token;
      continue;
    }
    std::string text = m.content;
    if (i == first && !system.empty()) text = "<<SYS>>\n" + system + "\n<</SYS>>\n\n" + text;
    *out += chat.bos_token + "[INST] " + jinja_trim(text) + " [/INST]";
  }
  return Status::success();
}

}  // namespace

const char* chat_format_name(ChatFormat format) {
  switch (format) {
    case ChatFormat::kNone: return "none";
    case ChatFormat::kUnrecognized: return "unrecognized";
    case ChatFormat::kChatML: return "ChatML";
    case ChatFormat::kLlama2: return "Llama 2";
    case ChatFormat::kLlama3: return "Llama 3";
    case ChatFormat::kZephyr: return "Zephyr";
    case ChatFormat::kLlama31: return "Llama 3.1";
    case ChatFormat::kQwen25: return "Qwen2.5";
  }
  return "unknown";
}

Status render_chat(const ChatTemplate& chat, const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                   std::string* out) {
  out->clear();
  if (chat.format == ChatFormat::kNone) {
    return unsupported_model("the model has no chat template (its source had no tokenizer_config.json chat_template)");
  }
  if (chat.format == ChatFormat::kUnrecognized) {
    return unsupported_model("the model's chat template is not one heed renders (ChatML, Llama 2, Llama 3, Zephyr, and the "
                             "templates Llama 3.1/3.2/3.3 Instruct and Qwen2.5 Instruct publish): " +
                             chat.first_line);
  }
  if (messages.empty()) return invalid_argument("a chat needs at least one message");
  switch (chat.format) {
    case ChatFormat::kChatML: render_chatml(chat, messages, add_generation_prompt, out); break;
    case ChatFormat::kLlama3: render_llama3(chat, messages, add_generation_prompt, out); break;
    case ChatFormat::kZephyr: render_zephyr(chat, messages, add_generation_prompt, out); break;
    case ChatFormat::kLlama31: chat_formats::render_llama31(chat, messages, add_generation_prompt, out); break;
    case ChatFormat::kQwen25: return chat_formats::render_qwen25(chat, messages, add_generation_prompt, out);
    default: return render_llama2(chat, messages, out);
  }
  return Status::success();
}

}  // namespace heed
