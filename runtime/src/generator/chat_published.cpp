#include "generator/chat_published.h"

#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

namespace heed::chat_formats {
namespace {

bool is_jinja_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Today's date on the local clock as strftime("%d %b %Y") writes it in the C locale ("05 Mar
// 2025"), the month spelled here so that a program's locale cannot change it.
std::string today_date() {
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  if (localtime_r(&now, &local) == nullptr) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%02d %s %d", local.tm_mday, kMonths[local.tm_mon % 12], local.tm_year + 1900);
  return text;
}

// A string as transformers' `tojson` filter writes it (json.dumps, ensure_ascii=False): quoted,
// the quote, backslash and control characters escaped, everything else as it is (nlohmann-json's
// dump escapes the same set the same way; bytes that are not UTF-8 become U+FFFD).
std::string json_string(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void llama3_turn(const std::string& role, const std::string& text, std::string* out) {
  *out += "<|start_header_id|>" + role + "<|end_header_id|>\n\n" + text + "<|eot_id|>";
}

void chatml_turn(const std::string& role, const std::string& text, std::string* out) {
  *out += "<|im_start|>" + role + "\n" + text + "<|im_end|>\n";
}

}  // namespace

std::string jinja_trim(const std::string& s) {
  size_t begin = 0, end = s.size();
  while (begin < end && is_jinja_space(s[begin])) ++begin;
  while (end > begin && is_jinja_space(s[end - 1])) --end;
  return s.substr(begin, end - begin);
}

// The system header comes first whether or not a system message is given (then empty); a string
// is "iterable" to Jinja, so a tool message's content goes through tojson.
void render_llama31(const ChatTemplate& chat, const std::vector<ChatMessage>& messages, bool prompt, std::string* out) {
  if (chat.leading_bos) *out += chat.bos_token;
  size_t first = 0;
  std::string system;
  if (messages.front().role == "system") {
    system = jinja_trim(messages.front().content);
    first = 1;
  }
  const std::string date = chat.date_from_clock ? today_date() : chat.date;
  llama3_turn("system", "Cutting Knowledge Date: December 2023\nToday Date: " + date + "\n\n" + system, out);
  for (size_t i = first; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    if (m.role == "tool" || m.role == "ipython") llama3_turn("ipython", json_string(m.content), out);
    else llama3_turn(m.role, jinja_trim(m.content), out);
  }
  if (prompt) *out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
}

// The system turn is messages[0] when it is one, else the default; a later system message is a
// turn of its own.
Status render_qwen25(const ChatTemplate& chat, const std::vector<ChatMessage>& messages, bool prompt, std::string* out) {
  const bool first_is_system = messages.front().role == "system";
  chatml_turn("system", first_is_system ? messages.front().content : chat.default_system, out);
  for (size_t i = first_is_system ? 1 : 0; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    if (m.role == "user" || m.role == "system" || m.role == "assistant") {
      chatml_turn(m.role, m.content, out);
    } else if (m.role == "tool") {
      if (i == 0 || messages[i - 1].role != "tool") *out += "<|im_start|>user";
      *out += "\n<tool_response>\n" + m.content + "\n</tool_response>";
      if (i + 1 == messages.size() || messages[i + 1].role != "tool") *out += "<|im_end|>\n";
    } else {
      return invalid_argument("Qwen2.5 chat: message " + std::to_string(i + 1) + " has role '" + m.role +
                              "', which the template writes nothing for (it renders system, user, assistant and tool)");
    }
  }
  if (prompt) *out += "<|im_start|>assistant\n";
  return Status::success();
}

}  // namespace heed::chat_formats
