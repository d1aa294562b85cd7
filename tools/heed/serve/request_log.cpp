#include "request_log.h"

#include <cstdio>
#include <ctime>
#include <mutex>

#include "http_json.h"

namespace heed::cli::serve {

namespace {

std::string utc_now() {
  char text[40];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

RequestRecord& current_request() {
  thread_local RequestRecord record;
  return record;
}

void begin_request() {
  RequestRecord& r = current_request();
  r.start = std::chrono::steady_clock::now();
  r.tokens = 0;
  r.model.clear();
  r.text.clear();
}

std::string log_line(const httplib::Request& req, const httplib::Response& res) {
  const RequestRecord& r = current_request();
  const auto elapsed = std::chrono::steady_clock::now() - r.start;
  json line{{"time", utc_now()},
            {"endpoint", req.method + " " + req.path},
            {"status", res.status},
            {"tokens", r.tokens},
            {"ms", std::chrono::duration<double, std::milli>(elapsed).count()}};
  if (!r.model.empty()) line["model"] = r.model;
  if (!r.text.empty()) line["text"] = r.text;
  return dump(line);
}

void write_log(const std::string& line) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace heed::cli::serve
