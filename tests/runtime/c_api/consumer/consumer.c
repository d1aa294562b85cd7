/* Opens a model with the installed heed and translates one sentence given on the command line.
 * usage: consumer MODEL.heed TEXT  (prints the version, then the translation) */
#include <stdio.h>

#include "heed/heed.h"

int main(int argc, char** argv) {
  heed_model* model = NULL;
  heed_translator* translator = NULL;
  char error[256], out[4096];
  size_t length = 0;
  heed_translator_options options;
  heed_status s;
  if (argc != 3) return 2;
  printf("%s\n", heed_version());
  s = heed_model_open(argv[1], &model, error, sizeof error);
  if (s != HEED_OK) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  heed_translator_options_init(&options);
  options.max_source_length = 64; /* the fixture's position table */
  options.max_target_length = 20; /* the reference's max_new_tokens */
  s = heed_translator_create(model, &options, &translator);
  if (s == HEED_OK) s = heed_translate_text(translator, argv[2], 1, out, sizeof out, &length);
  if (s == HEED_OK) printf("%s\n", out);
  else fprintf(stderr, "%s\n", translator ? heed_translator_last_error(translator) : heed_model_last_error(model));
  heed_translator_free(translator);
  heed_model_free(model);
  return s == HEED_OK ? 0 : 1;
}
