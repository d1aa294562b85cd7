#include "completion.h"

namespace heed::cli::serve {

namespace {

struct Stream {
  StopStrings stop{{}};
  const std::function<bool(std::string_view)>* on_text = nullptr;
  Clock::time_point deadline;
  std::string ready;
  bool stopped = false;  // a stop string appeared
  size_t tokens = 0;
};

// Where a UTF-8 sequence that the next bytes may complete starts at the end of `text` (text.size()
// when none): a streamed piece ends before it, so each character reaches the client whole and a
// stream's text equals the whole answer's, invalid bytes replaced the same way.
size_t before_incomplete_sequence(std::string_view text) {
  for (size_t back = 1; back <= 3 && back <= text.size(); ++back) {
    const auto byte = static_cast<unsigned char>(text[text.size() - back]);
    if ((byte & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const size_t length = byte >= 0xF0 && byte <= 0xF4 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC2 ? 2 : 1;
    return length > back && byte < 0xF5 ? text.size() - back : text.size();
  }
  return text.size();
}

bool on_token(void* user, int32_t, std::string_view text) {
  Stream& s = *static_cast<Stream*>(user);
  ++s.tokens;
  s.stopped = s.stop.feed(text, &s.ready);
  const size_t whole = s.stopped ? s.ready.size() : before_incomplete_sequence(s.ready);
  if (whole > 0) {
    if (!(*s.on_text)(std::string_view(s.ready).substr(0, whole))) return false;
    s.ready.erase(0, whole);
  }
  return !s.stopped && Clock::now() < s.deadline;
}

}  // namespace

Status run_completion(Generator& generator, const CompletionRequest& request, Clock::time_point deadline,
                      const std::function<bool(std::string_view)>& on_text, CompletionResult* out) {
  std::vector<int32_t> ids;
  HEED_RETURN_IF_ERROR(request.chat ? generator.encode_chat(request.messages, &ids) : generator.encode(request.prompt, &ids));
  out->prompt_tokens = ids.size();
  if (request.max_prompt_tokens > 0 && ids.size() > request.max_prompt_tokens) {
    return Status(StatusCode::kLimitExceeded, std::to_string(ids.size()) + " prompt tokens, more than --max-request-tokens allows (" +
                                                  std::to_string(request.max_prompt_tokens) + ")");
  }
  Stream s;
  s.stop = StopStrings(request.stop);
  s.on_text = &on_text;
  s.deadline = deadline;
  Generation result;
  HEED_RETURN_IF_ERROR(generator.generate(ids.data(), ids.size(), request.options, &on_token, &s, &result));
  if (!s.stopped) s.stop.flush(&s.ready);
  if (!s.ready.empty()) on_text(s.ready);  // a sequence the generation left incomplete, too
  out->completion_tokens = s.tokens;
  out->finish_reason = s.stopped || result.finished_with_eos ? "stop" : "length";
  return Status::success();
}

}  // namespace heed::cli::serve
