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

bool on_token(void* user, int32_t, std::string_view text) {
  Stream& s = *static_cast<Stream*>(user);
  ++s.tokens;
  s.stopped = s.stop.feed(text, &s.ready);
  if (!s.ready.empty()) {
    if (!(*s.on_text)(s.ready)) return false;
    s.ready.clear();
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
  if (!s.stopped) {
    s.stop.flush(&s.ready);
    if (!s.ready.empty()) on_text(s.ready);
  }
  out->completion_tokens = s.tokens;
  out->finish_reason = s.stopped || result.finished_with_eos ? "stop" : "length";
  return Status::success();
}

}  // namespace heed::cli::serve
