// LineReader against what std::getline returns for the same bytes (and the bytes it counts as
// taken), and its ready() answer on a pipe: false while the writer is quiet, true once a line, a
// partial line or the end is there.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <thread>
#include <sstream>
#include <string>
#include <vector>

#include "line_reader.h"

namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() { REQUIRE(::pipe(fd) == 0); }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void write_all(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd[1], bytes.data() + done, bytes.size() - done);
      REQUIRE(n > 0);
      done += static_cast<size_t>(n);
    }
  }
  void close_writer() {
    ::close(fd[1]);
    fd[1] = -1;
  }
};

std::vector<std::string> getline_lines(const std::string& bytes) {
  std::istringstream in(bytes);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Reads `bytes` back through a LineReader over a temporary file (no pipe capacity limit).
std::vector<std::string> reader_lines(const std::string& bytes) {
  char path[] = "/tmp/heed_line_reader_XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::unlink(path);
  REQUIRE(::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  REQUIRE(::lseek(fd, 0, SEEK_SET) == 0);
  heed::cli::LineReader reader(fd);
  std::vector<std::string> lines;
  uint64_t taken = 0;  // the bytes up to the end of each line: its '\n', or the end of the input
  for (std::string line; reader.next(&line);) {
    lines.push_back(line);
    taken = std::min<uint64_t>(taken + line.size() + 1, bytes.size());
    CHECK(reader.consumed() == taken);
  }
  CHECK(reader.consumed() == bytes.size());
  CHECK(reader.error().empty());
  CHECK(reader.ready());  // at the end: next() does not wait
  ::close(fd);
  return lines;
}

}  // namespace

TEST_CASE("LineReader returns the lines std::getline returns", "[cli][line_reader]") {
  for (const std::string bytes : {"", "\n", "a", "a\n", "a\nb", "a\n\nb\n", "\n\n\n", "x\r\ny\r\n"}) {
    INFO("input '" << bytes << "'");
    CHECK(reader_lines(bytes) == getline_lines(bytes));
  }
  // Lines longer than one read (64 KiB), many short ones, random bytes and newlines.
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::string bytes;
    const size_t size = std::uniform_int_distribution<size_t>(0, 300000)(rng);
    const int newline_every = std::uniform_int_distribution<int>(1, 200000)(rng);
    for (size_t i = 0; i < size; ++i) {
      bytes += std::uniform_int_distribution<int>(0, newline_every)(rng) == 0
                   ? '\n'
                   : static_cast<char>(std::uniform_int_distribution<int>(1, 255)(rng));
    }
    INFO("round " << round << ", " << size << " bytes");
    CHECK(reader_lines(bytes) == getline_lines(bytes));
  }
}

TEST_CASE("LineReader::ready is false only while the next line would be waited for", "[cli][line_reader]") {
  Pipe p;
  heed::cli::LineReader reader(p.fd[0]);
  CHECK_FALSE(reader.ready());  // nothing written yet
  p.write_all("one\ntwo\n");
  CHECK(reader.ready());
  std::string line;
  REQUIRE(reader.next(&line));
  CHECK(line == "one");
  CHECK(reader.ready());  // "two" is already buffered
  REQUIRE(reader.next(&line));
  CHECK(line == "two");
  CHECK_FALSE(reader.ready());  // the writer is quiet
  p.write_all("thr");
  CHECK(reader.ready());  // bytes to read (the rest of the line is on its way)
  p.write_all("ee\nlast");
  REQUIRE(reader.next(&line));
  CHECK(line == "three");
  CHECK_FALSE(reader.ready());  // "last" is buffered but has no end yet, and the pipe is quiet
  p.close_writer();
  CHECK(reader.ready());
  REQUIRE(reader.next(&line));
  CHECK(line == "last");
  CHECK_FALSE(reader.next(&line));
  CHECK(reader.error().empty());
}

TEST_CASE("LineReader reports a read error", "[cli][line_reader]") {
  heed::cli::LineReader reader(-1);  // not a descriptor: read(2) fails with EBADF
  std::string line;
  CHECK_FALSE(reader.next(&line));
  CHECK_FALSE(reader.error().empty());
}

TEST_CASE("a line over the limit comes back empty, marked, and the next line is read", "[cli]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const std::string text = "short\n" + std::string(100000, 'x') + "\nafter\n" + std::string(50, 'y');
  std::thread writer([&] {
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fds[1], text.data() + done, std::min<size_t>(4096, text.size() - done));
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  heed::cli::LineReader reader(fds[0], 40);
  std::string line;
  REQUIRE(reader.next(&line));
  CHECK(line == "short");
  CHECK_FALSE(reader.too_long());
  REQUIRE(reader.next(&line));
  CHECK(line.empty());
  CHECK(reader.too_long());
  CHECK(reader.consumed() == 6 + 100001);  // a dropped line's bytes count as taken
  REQUIRE(reader.next(&line));
  CHECK(line == "after");
  CHECK_FALSE(reader.too_long());
  REQUIRE(reader.next(&line));  // the last line, without '\n', over the limit too
  CHECK(reader.too_long());
  CHECK_FALSE(reader.next(&line));
  CHECK(reader.consumed() == text.size());
  writer.join();
  ::close(fds[0]);
}
