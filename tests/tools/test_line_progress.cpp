// The progress line's text (line_progress.h): the share of the file, the time left estimated from
// the time the bytes done took, the totals at the end; worked out by hand here.
#include <catch2/catch.hpp>

#include "line_progress.h"

using heed::cli::progress_text;

TEST_CASE("progress text: lines, rate, share and time left", "[cli][progress]") {
  // A quarter of the file in 10 s: three quarters left take 30 s more.
  CHECK(progress_text("heed translate", 120, 10.0, 250, 1000, false) ==
        "heed translate: 120 lines, 12.0 lines/s, 25%, 0:30 left");
  // 1 % in 40 s: 99 % more take 3960 s, 1:06:00.
  CHECK(progress_text("heed embed", 1, 40.0, 10, 1000, false) == "heed embed: 1 line, 0.0 lines/s, 1%, 1:06:00 left");
  // The share rounds down; the time left rounds to the second (2.5 s * 2 / 1 = 5 s at 1/3).
  CHECK(progress_text("heed generate", 7, 2.5, 1, 3, false) == "heed generate: 7 lines, 2.8 lines/s, 33%, 0:05 left");
}

TEST_CASE("progress text without a known size, or nothing done yet", "[cli][progress]") {
  CHECK(progress_text("heed translate", 5, 2.0, 100, 0, false) == "heed translate: 5 lines, 2.5 lines/s");
  CHECK(progress_text("heed translate", 0, 0.0, 0, 1000, false) == "heed translate: 0 lines, 0.0 lines/s, 0%");
  // A file that grew past its size at start: all of it, nothing left.
  CHECK(progress_text("heed embed", 9, 3.0, 1200, 1000, false) == "heed embed: 9 lines, 3.0 lines/s, 100%, 0:00 left");
}

TEST_CASE("progress text: the totals at the end", "[cli][progress]") {
  CHECK(progress_text("heed translate", 300, 75.0, 1000, 1000, true) == "heed translate: 300 lines in 1:15, 4.0 lines/s");
  CHECK(progress_text("heed fill-mask", 1, 0.4, 10, 0, true) == "heed fill-mask: 1 line in 0:00, 2.5 lines/s");
}
