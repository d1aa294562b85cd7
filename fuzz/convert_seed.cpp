// convert_seed CT2_FOLDER OUTPUT.heed TYPE [GROUP]: what `heed convert --from ct2` does, for
// make_seeds.py, so the fuzz build needs only the libraries under test and not the whole command
// line.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ct2/reader.h"
#include "heed_writer.h"
#include "quantize.h"

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: convert_seed CT2_FOLDER OUTPUT.heed int8|float16|float32 [GROUP]\n");
    return 2;
  }
  namespace convert = heed::convert;
  convert::QuantizeOptions options;
  heed::Status s = convert::parse_weight_type(argv[3], &options.type);
  if (s.is_ok() && argc == 5) options.group_size = static_cast<uint32_t>(std::strtoul(argv[4], nullptr, 10));
  convert::NeutralModel model;
  if (s.is_ok()) s = convert::ct2::read_model(argv[1], &model);
  if (s.is_ok()) s = convert::quantize_model(&model, options, nullptr);
  if (s.is_ok()) s = convert::write_heed(model, argv[2]);
  if (!s.is_ok()) {
    std::fprintf(stderr, "convert_seed: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}
