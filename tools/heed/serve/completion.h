// One /v1/completions (or /v1/chat/completions) generation on a borrowed Generator: the prompt's text (or chat) encoded, tokens
// generated and their text handed on as it becomes safe to show (stop strings held back), until
// the end token, max_tokens, a stop string, the request's deadline or a reader that is gone.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "heed/generator.h"
#include "session_pool.h"

namespace heed::cli::serve {

struct CompletionRequest {
  std::string prompt;
  bool chat = false;                  // /v1/chat/completions: `messages` in the model's chat format
  std::vector<ChatMessage> messages;
  GenerateOptions options;
  std::vector<std::string> stop;
  size_t max_prompt_tokens = 0;  // --max-request-tokens (0: none): a longer prompt is kLimitExceeded
};

struct CompletionResult {
  std::string finish_reason;  // "stop" (end token or stop string) or "length" (max_tokens, deadline)
  size_t prompt_tokens = 0, completion_tokens = 0;
};

// `on_text` returns false when the text cannot be delivered (the client left): generation stops.
Status run_completion(Generator& generator, const CompletionRequest& request, Clock::time_point deadline,
                      const std::function<bool(std::string_view)>& on_text, CompletionResult* out);

}  // namespace heed::cli::serve
