#include "chat_messages.h"

#include <cstdio>

#include "json_output.h"
#include "line_reader.h"

namespace heed::cli {

Status chat_messages(const nlohmann::json& list, std::vector<ChatMessage>* out) {
  out->clear();
  if (!list.is_array()) return invalid_argument("a chat is a JSON array of {\"role\": ..., \"content\": ...} objects");
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& m = list[i];
    const std::string where = "message " + std::to_string(i + 1);
    if (!m.is_object()) return invalid_argument(where + " is not a JSON object");
    const auto role = m.find("role"), content = m.find("content");
    if (role == m.end() || !role->is_string()) return invalid_argument(where + " has no string \"role\"");
    if (content == m.end() || !content->is_string()) return invalid_argument(where + " has no string \"content\"");
    out->push_back({role->get<std::string>(), content->get<std::string>()});
  }
  return Status::success();
}

Status parse_chat_messages(std::string_view json_text, std::vector<ChatMessage>* out) {
  const nlohmann::json list = nlohmann::json::parse(json_text, nullptr, false);
  if (list.is_discarded()) return invalid_argument("not JSON (a chat is a JSON array of messages)");
  return chat_messages(list, out);
}

Status encode_prompt(const Generator& generator, std::string_view text, bool chat, std::vector<int32_t>* ids) {
  if (!chat) return generator.encode(text, ids);
  std::vector<ChatMessage> messages;
  HEED_RETURN_IF_ERROR(parse_chat_messages(text, &messages));
  return generator.encode_chat(messages, ids);
}

int print_chat_texts(const Generator& generator, int fd) {
  LineReader reader(fd);
  std::string line;
  size_t number = 0, failures = 0;
  while (reader.next(&line)) {
    ++number;
    std::vector<ChatMessage> messages;
    std::string text, json;
    Status st = parse_chat_messages(line, &messages);
    if (st) st = generator.render_chat_prompt(messages, &text);
    if (!st) {
      std::fprintf(stderr, "heed generate: line %zu: %s\n", number, st.message().c_str());
      ++failures;
      text.clear();
    }
    json_text(nlohmann::json(text), &json).ok();
    std::printf("%s\n", json.c_str());
  }
  std::fflush(stdout);
  return failures == 0 ? 0 : 1;
}

}  // namespace heed::cli
