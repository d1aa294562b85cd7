// Generator's chat layer: the file's chat format (schema/heed.fbs, ChatTemplate) and the prompt
// ids of a list of messages.
#include "generator/generator_chat.h"

#include "heed/generator.h"
#include "loader/model_index.h"
#include "tokenizer/token_pieces.h"

namespace heed {
namespace generation {

ChatTemplate chat_template_of(const Model& model, const std::string& bos_token, const std::string& eos_token) {
  ChatTemplate chat;
  const fb::ChatTemplate* stored = file_index(model).chat_template();
  if (stored == nullptr) return chat;
  switch (stored->format()) {
    case fb::ChatFormat::ChatML: chat.format = ChatFormat::kChatML; break;
    case fb::ChatFormat::Llama2: chat.format = ChatFormat::kLlama2; break;
    case fb::ChatFormat::Llama3: chat.format = ChatFormat::kLlama3; break;
    case fb::ChatFormat::Zephyr: chat.format = ChatFormat::kZephyr; break;
    case fb::ChatFormat::Llama31: chat.format = ChatFormat::kLlama31; break;
    case fb::ChatFormat::Qwen25: chat.format = ChatFormat::kQwen25; break;
    default: chat.format = ChatFormat::kUnrecognized; break;  // a format of a newer heed too
  }
  chat.has_default_system = stored->default_system() != nullptr;
  if (chat.has_default_system) chat.default_system = stored->default_system()->str();
  chat.leading_bos = stored->leading_bos();
  if (stored->date()) chat.date = stored->date()->str();
  chat.date_from_clock = stored->date_from_clock();
  chat.first_line = stored->first_line() ? stored->first_line()->str() : "(a chat format of a newer heed)";
  chat.bos_token = bos_token;
  chat.eos_token = eos_token;
  return chat;
}

}  // namespace generation

Status Generator::render_chat_prompt(const std::vector<ChatMessage>& messages, std::string* text) const {
  return render_chat(chat_, messages, true, text);
}

Status Generator::encode_chat(const std::vector<ChatMessage>& messages, std::vector<int32_t>* ids) const {
  std::string text;
  HEED_RETURN_IF_ERROR(render_chat_prompt(messages, &text));
  std::string_view rest = text;
  // generate() feeds the start token first: the rendering's own copy of it would be a second one.
  if (model_bos_ >= 0 && !chat_.bos_token.empty() && rest.substr(0, chat_.bos_token.size()) == chat_.bos_token) {
    rest.remove_prefix(chat_.bos_token.size());
  }
  return encode(rest, ids);
}

}  // namespace heed
