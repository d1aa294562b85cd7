// Chat messages -> a chat model's prompt text, in the chat format its file records (`heed convert`
// recognizes tokenizer_config.json's chat_template as one of these; heed runs no Jinja). The text
// is what the template renders with Jinja (transformers' apply_chat_template, tokenize=False);
// Generator::encode_chat tokenizes it with the special tokens recognized.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heed/status.h"

namespace heed {

struct ChatMessage {
  std::string role;     // "system", "user", "assistant" (ChatML, Llama 3, Zephyr take any role)
  std::string content;
};

enum class ChatFormat : uint8_t {
  kNone = 0,          // the file records no chat template
  kUnrecognized = 1,  // the source had one heed cannot render (ChatTemplate::first_line names it)
  kChatML = 2,        // <|im_start|>ROLE\nCONTENT<|im_end|>\n, prompt <|im_start|>assistant\n
  kLlama2 = 3,        // <s>[INST] <<SYS>>\nSYSTEM\n<</SYS>>\n\nUSER [/INST] ASSISTANT </s>
  kLlama3 = 4,        // <|start_header_id|>ROLE<|end_header_id|>\n\nCONTENT<|eot_id|>
  kZephyr = 5,        // <|ROLE|>\nCONTENT</s>\n, prompt <|assistant|>\n
};
// "ChatML", "Llama 2", ... (static storage).
const char* chat_format_name(ChatFormat format);

struct ChatTemplate {
  ChatFormat format = ChatFormat::kNone;
  bool has_default_system = false;  // ChatML: the template inserts a system message when none is given,
  std::string default_system;       // this one
  bool leading_bos = false;    // Llama 3: the text starts with the start token's text
  std::string first_line;      // kUnrecognized: the source template's first line
  std::string bos_token, eos_token;  // the texts of the model's start and end tokens
};

// The prompt text of `messages`; with `add_generation_prompt`, followed by the text that opens
// the assistant's answer. Errors: no chat format (kNone, kUnrecognized: the message names the
// template), no messages, Llama 2 roles that do not alternate user/assistant after an optional
// system message.
Status render_chat(const ChatTemplate& chat, const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                   std::string* out);

}  // namespace heed
