/* heed_translate_attention from C99: prints the best translation's attention matrix of each text
 * given on the command line, as "rows cols" and then one line of weights per target token, for
 * attention_test.py to compare with the NumPy reference's. Also checks its refusals: a translator
 * created without capture_attention, a buffer too small (rows and cols still set), null pointers.
 * usage: attention_c MODEL.heed TEXT... */
#include <stddef.h>
#include <stdio.h>

#include "heed/heed.h"

static int failures = 0;

static void expect_status(const char* what, heed_status got, heed_status expected) {
  if (got != expected) {
    printf("FAIL: %s: %s, expected %s\n", what, heed_status_name(got), heed_status_name(expected));
    ++failures;
  }
}

static void check_refusals(heed_model* model, heed_translator* capturing, const char* text,
                           const heed_decode_options* o) {
  heed_translator* plain = NULL;
  float weights[4];
  size_t rows = 0, cols = 0;
  expect_status("create without capture", heed_translator_create(model, NULL, &plain), HEED_OK);
  if (plain) {
    expect_status("without capture_attention", heed_translate_attention(plain, text, o, weights, 4, &rows, &cols),
                  HEED_INVALID_ARGUMENT);
    heed_translator_free(plain);
  }
  expect_status("buffer too small", heed_translate_attention(capturing, text, o, weights, 4, &rows, &cols),
                HEED_BUFFER_TOO_SMALL);
  if (rows == 0 || cols == 0) {
    printf("FAIL: buffer too small: rows %zu cols %zu not set\n", rows, cols);
    ++failures;
  }
  expect_status("null rows", heed_translate_attention(capturing, text, o, weights, 4, NULL, &cols),
                HEED_INVALID_ARGUMENT);
}

int main(int argc, char** argv) {
  heed_model* model = NULL;
  heed_translator* translator = NULL;
  char error[512];
  heed_translator_options options;
  heed_decode_options greedy;
  static float weights[256 * 256];
  int i;
  if (argc < 3) {
    fprintf(stderr, "usage: attention_c MODEL.heed TEXT...\n");
    return 2;
  }
  if (heed_model_open(argv[1], &model, error, sizeof error) != HEED_OK) {
    printf("FAIL: open: %s\n", error);
    return 1;
  }
  heed_translator_options_init(&options);
  options.capture_attention = 1;
  if (heed_translator_create(model, &options, &translator) != HEED_OK) {
    printf("FAIL: create: %s\n", heed_model_last_error(model));
    return 1;
  }
  heed_decode_options_init(&greedy);
  greedy.beam_size = 1;  /* the reference's decoding: greedy */
  for (i = 2; i < argc; ++i) {
    size_t rows = 0, cols = 0, r, c;
    heed_status s = heed_translate_attention(translator, argv[i], &greedy, weights, sizeof weights / sizeof weights[0],
                                             &rows, &cols);
    if (s != HEED_OK) {
      printf("FAIL: %s: %s: %s\n", argv[i], heed_status_name(s), heed_translator_last_error(translator));
      ++failures;
      continue;
    }
    printf("%zu %zu\n", rows, cols);
    for (r = 0; r < rows; ++r) {
      for (c = 0; c < cols; ++c) printf(c ? " %.7f" : "%.7f", weights[r * cols + c]);
      printf("\n");
    }
  }
  check_refusals(model, translator, argv[2], &greedy);
  heed_translator_free(translator);
  heed_model_free(model);
  return failures > 0;
}
