// convert_seed [--from FORMAT] SOURCE OUTPUT.heed TYPE [GROUP]: what `heed convert` does, for
// make_seeds.py, so the fuzz build needs only the libraries under test and not the whole command
// line. FORMAT: any of heed convert --from (default ct2).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "convert.h"

int main(int argc, char** argv) {
  namespace convert = heed::convert;
  std::string from = "ct2";
  if (argc > 2 && std::strcmp(argv[1], "--from") == 0) {
    from = argv[2];
    argc -= 2;
    argv += 2;
  }
  const convert::SourceFormat* format = nullptr;
  if (argc < 4 || argc > 5 || !convert::find_format(from, &format).is_ok()) {
    std::fprintf(stderr, "usage: convert_seed [--from %s] SOURCE OUTPUT.heed int8|float16|float32 [GROUP]\n",
                 convert::format_names().c_str());
    return 2;
  }
  convert::ConvertOptions options;
  options.layout = convert::WeightLayout::kRowMajor;  // the seeds stay row-major, as they always were
  heed::Status s = convert::parse_weight_type(argv[3], &options.quantize.type);
  if (s.is_ok() && argc == 5) options.quantize.group_size = static_cast<uint32_t>(std::strtoul(argv[4], nullptr, 10));
  convert::ConvertSummary summary;
  if (s.is_ok()) s = convert::convert_file(*format, argv[1], argv[2], options, &summary);
  if (!s.is_ok()) {
    std::fprintf(stderr, "convert_seed: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}
