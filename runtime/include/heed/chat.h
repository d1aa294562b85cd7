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
  std::string role;     // "system", "user", "assistant", "tool" (ChatML, Llama 3, Zephyr take any role)
  std::string content;
};

enum class ChatFormat : uint8_t {
  kNone = 0,          // the file records no chat template
  kUnrecognized = 1,  // the source had one heed cannot render (ChatTemplate::first_line names it)
  kChatML = 2,        // <|im_start|>ROLE\nCONTENT<|im_end|>\n, prompt <|im_start|>assistant\n
  kLlama2 = 3,        // <s>[INST] <<SYS>>\nSYSTEM\n<</SYS>>\n\nUSER [/INST] ASSISTANT </s>
  kLlama3 = 4,        // <|start_header_id|>ROLE<|end_header_id|>\n\nCONTENT<|eot_id|>
  kZephyr = 5,        // <|ROLE|>\nCONTENT</s>\n, prompt <|assistant|>\n
  kLlama31 = 6,       // Llama 3.1/3.2/3.3 Instruct's published template: Llama 3 after a system header
                      // with the dates and the first message when it is a system message
  kQwen25 = 7,        // Qwen2.5 Instruct's published template: ChatML, default system message, tool
                      // messages as a user turn of <tool_response> blocks
};
// "ChatML", "Llama 2", ... (static storage).
const char* chat_format_name(ChatFormat format);

struct ChatTemplate {
  ChatFormat format = ChatFormat::kNone;
  bool has_default_system = false;  // ChatML: the template inserts a system message when none is given,
  std::string default_system;       // this one
  bool leading_bos = false;    // Llama 3, 3.1: the text starts with the start token's text
  std::string first_line;      // kUnrecognized: the source template's first line
  std::string bos_token, eos_token;  // the texts of the model's start and end tokens
  // Llama 3.1: the "Today Date" of the system header. Llama 3.2's template calls strftime_now when
  // it is defined, as transformers defines it: today's date on the local clock (date_from_clock),
  // read at each rendering; 3.1 and 3.3 always write `date` ("26 Jul 2024").
  std::string date;
  bool date_from_clock = false;
};

// The prompt text of `messages`; with `add_generation_prompt`, followed by the text that opens
// the assistant's answer. Errors: no chat format (kNone, kUnrecognized: the message names the
// template), no messages, Llama 2 roles that do not alternate user/assistant after an optional
// system message, Qwen2.5 roles its template writes nothing for (other than system, user,
// assistant, tool). Role "tool" is rendered as the published templates render it: Llama 3.1 as an
// ipython turn of the content as a JSON string, Qwen2.5 as <tool_response> blocks, consecutive
// ones in one user turn.
Status render_chat(const ChatTemplate& chat, const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                   std::string* out);

}  // namespace heed
