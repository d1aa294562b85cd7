// Fuzz target: arbitrary bytes as a .heed file given to `heed inspect` (the command's own code,
// linked in process), once mapped and printed as JSON, once read into memory and printed as text,
// and once listing the vocabularies (--vocab, both sides: escaped token text). The file is a memfd reached through /proc/self/fd, so Model::open runs unchanged.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "command.h"

namespace {

const heed::cli::Command* inspect = nullptr;
FILE* report = nullptr;  // the real stderr, for this fuzzer's own messages
int file_fd = -1;
std::string file_path;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const auto& c : heed::cli::commands()) {
    if (std::string(c.name) == "inspect") inspect = &c;
  }
  if (!inspect) {
    std::fprintf(stderr, "fuzz_heed_inspect: the inspect command did not register\n");
    std::abort();
  }
  file_fd = ::memfd_create("heed-fuzz-inspect", MFD_CLOEXEC);
  if (file_fd < 0) {
    std::perror("fuzz_heed_inspect: memfd_create");
    std::abort();
  }
  file_path = "/proc/self/fd/" + std::to_string(file_fd);
  // The report and the one-line errors are not checked, only that producing them is safe: send
  // them nowhere. The sanitizers and libFuzzer write to file descriptor 2 or their own copy of the
  // stream, so crash reports still appear.
  if (!std::freopen("/dev/null", "w", stdout)) std::abort();
  report = stderr;
  stderr = std::fopen("/dev/null", "w");
  if (!stderr) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (::ftruncate(file_fd, 0) != 0) std::abort();
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pwrite(file_fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  const int a = inspect->run({"--json", file_path});
  const int b = inspect->run({"--no-mmap", file_path});
  // Exit codes: 0 success, 1 a refused file; 2 (usage) would mean the arguments were misread.
  if (a != b || a < 0 || a > 1) {
    std::fprintf(report, "fuzz_heed_inspect: exit codes %d (mmap) and %d (read) differ or are unexpected\n", a, b);
    std::abort();
  }
  // A file that opens lists its vocabularies (a side the model lacks is a one-line error, exit 1).
  for (const char* side : {"source", "target"}) {
    const int v = inspect->run({"--vocab", "--side", side, file_path});
    if (v < 0 || v > 1 || (a == 1 && v != 1)) {
      std::fprintf(report, "fuzz_heed_inspect: --vocab --side %s exit code %d (the file gave %d)\n", side, v, a);
      std::abort();
    }
  }
  std::fflush(stdout);
  return 0;
}
