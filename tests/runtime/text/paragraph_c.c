/* heed_translate_text on paragraphs, from C with heed.h only.
 * usage: heed_paragraph_c MODEL.heed FILE MAX_NEW_TOKENS MAX_BATCH MODE
 *   MODE "text":  FILE (its final newline removed) is one text; prints its translation and a newline.
 *   MODE "lines": each line of FILE is one text translated with no_sentence_split set; prints one
 *                 line per line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heed/heed.h"

#define MAX_TEXT 65536

static char text[MAX_TEXT], out[MAX_TEXT];

int main(int argc, char** argv) {
  heed_model* model = NULL;
  heed_translator* translator = NULL;
  heed_translator_options options;
  char error[256];
  size_t length = 0, n;
  int lines, rc = 0;
  FILE* f;
  if (argc != 6) {
    fprintf(stderr, "usage: %s MODEL.heed FILE MAX_NEW_TOKENS MAX_BATCH text|lines\n", argv[0]);
    return 2;
  }
  lines = strcmp(argv[5], "lines") == 0;
  if (heed_model_open(argv[1], &model, error, sizeof error) != HEED_OK) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  heed_translator_options_init(&options);
  options.max_source_length = 64; /* the fixture's position table */
  options.max_target_length = (size_t)atoi(argv[3]);
  options.max_batch = (size_t)atoi(argv[4]);
  options.no_sentence_split = lines;
  if (heed_translator_create(model, &options, &translator) != HEED_OK) {
    fprintf(stderr, "%s\n", heed_model_last_error(model));
    heed_model_free(model);
    return 1;
  }
  f = fopen(argv[2], "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", argv[2]);
    rc = 1;
  } else if (lines) {
    while (rc == 0 && fgets(text, sizeof text, f)) {
      n = strlen(text);
      if (n && text[n - 1] == '\n') text[n - 1] = '\0';
      if (heed_translate_text(translator, text, 1, out, sizeof out, &length) != HEED_OK) {
        fprintf(stderr, "%s\n", heed_translator_last_error(translator));
        rc = 1;
      } else {
        printf("%s\n", out);
      }
    }
    fclose(f);
  } else {
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    if (n && text[n - 1] == '\n') --n;
    text[n] = '\0';
    if (heed_translate_text(translator, text, 1, out, sizeof out, &length) != HEED_OK) {
      fprintf(stderr, "%s\n", heed_translator_last_error(translator));
      rc = 1;
    } else {
      printf("%s\n", out);
    }
  }
  heed_translator_free(translator);
  heed_model_free(model);
  return rc;
}
