// `heed serve`'s request framing, without a server: the strict header parser (one framing, field
// limits) and the chunked decoder (body limit before a byte is read, fed a byte at a time).
#include <catch2/catch.hpp>

#include <string>

#include "serve/chunked_body.h"
#include "serve/http_head.h"

using namespace heed::cli::serve;

namespace {

int status_of(const std::string& head, size_t max_fields = 64) {
  RequestHead parsed;
  return parse_head(head, max_fields, &parsed).status;
}

}  // namespace

TEST_CASE("serve head: framing is one and unambiguous", "[serve]") {
  CHECK(status_of("GET / HTTP/1.1\r\nHost: a") == 0);
  CHECK(status_of("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5") == 0);
  CHECK(status_of("POST / HTTP/1.1\r\nContent-Length: 5, 5") == 0);
  CHECK(status_of("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6") == 400);
  CHECK(status_of("POST / HTTP/1.1\r\nContent-Length: 5, 6") == 400);
  CHECK(status_of("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked") == 400);
  CHECK(status_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5") == 400);
  CHECK(status_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked") == 501);
  CHECK(status_of("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked") == 501);
  CHECK(status_of("POST / HTTP/1.0\r\nTransfer-Encoding: chunked") == 400);
  CHECK(status_of("POST / HTTP/1.1\r\nContent-Length: -1") == 400);
  CHECK(status_of("POST / HTTP/1.1\r\nContent-Length : 5") == 400);
  CHECK(status_of("POST / HTTP/1.1\r\nHost: a\r\n folded") == 400);
  CHECK(status_of("POST / HTTP/1.1\r\nX: a\nContent-Length: 5") == 400);  // a bare LF is no line break
  CHECK(status_of("GET /a\x01 HTTP/1.1") == 400);
  CHECK(status_of("GET / HTTP/2.0") == 505);
  CHECK(status_of("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3", 2) == 431);
  CHECK(status_of("GET /" + std::string(9000, 'a') + " HTTP/1.1") == 414);
}

TEST_CASE("serve head: httplib gets one Content-Length and no Expect", "[serve]") {
  RequestHead head;
  REQUIRE(parse_head("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue", 64, &head)
              .status == 0);
  CHECK(head.chunked);
  CHECK(head.expect_continue);
  CHECK(reframed_head(head, 3) == "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n");
}

TEST_CASE("serve chunked body: decoded, limited, resumable", "[serve]") {
  const std::string body = "3\r\nabc\r\n4;ext=1\r\ndefg\r\n0\r\nTrailer: 1\r\n\r\nNEXT";
  ChunkedBody whole(10, 100);
  size_t pos = 0;
  REQUIRE(whole.feed(body, &pos) == ChunkedBody::Result::kDone);
  CHECK(whole.body() == "abcdefg");
  CHECK(body.substr(pos) == "NEXT");  // the next pipelined request stays

  ChunkedBody trickled(10, 100);  // a byte at a time, the consumed bytes dropped as the server does
  std::string buffer;
  ChunkedBody::Result r = ChunkedBody::Result::kNeedMore;
  for (size_t i = 0; i < body.size() && r == ChunkedBody::Result::kNeedMore; ++i) {
    buffer += body[i];
    size_t used = 0;
    r = trickled.feed(buffer, &used);
    buffer.erase(0, used);
  }
  CHECK(r == ChunkedBody::Result::kDone);
  CHECK(trickled.body() == "abcdefg");

  ChunkedBody limited(6, 100);
  pos = 0;
  CHECK(limited.feed(body, &pos) == ChunkedBody::Result::kTooLarge);  // at the second chunk's size line
  ChunkedBody huge(1 << 20, 100);
  pos = 0;
  CHECK(huge.feed("7fffffffffffffff\r\n", &pos) == ChunkedBody::Result::kTooLarge);
  for (const char* bad : {"x\r\n", "3\r\nabcX\r\n", "3 \r\nabc\r\n"}) {
    ChunkedBody malformed(10, 100);
    pos = 0;
    CHECK(malformed.feed(bad, &pos) == ChunkedBody::Result::kMalformed);
  }
  ChunkedBody trailer(10, 8);
  pos = 0;
  CHECK(trailer.feed("0\r\nTrailer-Field: much too long\r\n\r\n", &pos) == ChunkedBody::Result::kMalformed);
}
