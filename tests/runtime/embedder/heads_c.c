/* BERT's task heads from C99 with heed.h only. `heads_c classify MODEL < lines` prints each line's
 * best label and its score ("label score"); `heads_c fill-mask MODEL < lines` each mask's top-1
 * token id and probability ("id score", one line per mask), so heads_cli_test.sh can compare them
 * with transformers' answers. Both also check the id-level call against the text one and the error
 * paths (a model without the head, a too-small buffer, bad arguments).
 * usage: heads_c classify|fill-mask MODEL.heed < texts.txt */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "c_check.h"
#include "heed/heed.h"

static void chomp(char* line) {
  size_t len = strlen(line);
  if (len && line[len - 1] == '\n') line[--len] = '\0';
}

static int classify(heed_model* model) {
  heed_classifier* c = NULL;
  heed_mask_filler* wrong = NULL;
  heed_embedder_options options;
  char line[4096];
  float scores[64], again[64];
  size_t n, i, best;
  heed_embedder_options_init(&options);
  options.max_batch = 2;
  CHECK(heed_mask_filler_create(model, &options, &wrong) == HEED_UNSUPPORTED_MODEL, heed_model_last_error(model));
  if (heed_classifier_create(model, &options, &c) != HEED_OK) {
    fprintf(stderr, "heed_classifier_create: %s\n", heed_model_last_error(model));
    return 1;
  }
  n = heed_classifier_num_labels(c);
  CHECK(n > 0 && n <= 64, "labels");
  CHECK(heed_classifier_label(c, n) == NULL, "label out of range");
  CHECK(heed_classify_text(c, "x", scores, n - 1) == HEED_BUFFER_TOO_SMALL, heed_classifier_last_error(c));
  while (fgets(line, sizeof line, stdin)) {
    chomp(line);
    if (heed_classify_text(c, line, scores, 64) != HEED_OK) {
      fprintf(stderr, "heed_classify_text: %s\n", heed_classifier_last_error(c));
      return 1;
    }
    for (best = 0, i = 1; i < n; ++i) best = scores[i] > scores[best] ? i : best;
    printf("%s %.9g\n", heed_classifier_label(c, best), (double)scores[best]);
  }
  {
    const int32_t ids[] = {2, 3}; /* [CLS] [SEP] */
    const size_t offsets[] = {0, 2};
    CHECK(heed_classify_text(c, "", again, 64) == HEED_OK, heed_classifier_last_error(c));
    CHECK(heed_classify_ids(c, ids, offsets, 1, 0, scores, 64) == HEED_OK, heed_classifier_last_error(c));
    CHECK(memcmp(scores, again, n * sizeof(float)) == 0, "ids and text give the same scores");
    CHECK(heed_classify_ids(c, ids, offsets, 1, 0, NULL, 64) == HEED_INVALID_ARGUMENT, "null out");
  }
  heed_classifier_free(c);
  return 0;
}

static int fill_mask(heed_model* model) {
  heed_mask_filler* f = NULL;
  heed_classifier* wrong = NULL;
  heed_mask_candidate top[5 * 16], again[5];
  char line[4096];
  size_t masks, m;
  CHECK(heed_classifier_create(model, NULL, &wrong) == HEED_UNSUPPORTED_MODEL, heed_model_last_error(model));
  if (heed_mask_filler_create(model, NULL, &f) != HEED_OK) {
    fprintf(stderr, "heed_mask_filler_create: %s\n", heed_model_last_error(model));
    return 1;
  }
  CHECK(strcmp(heed_mask_filler_token(f, heed_mask_filler_mask_id(f)), "[MASK]") == 0, "mask token");
  CHECK(heed_mask_filler_token(f, -1) == NULL, "token out of range");
  while (fgets(line, sizeof line, stdin)) {
    chomp(line);
    if (heed_fill_mask_text(f, line, 5, top, 5 * 16, &masks) != HEED_OK) {
      fprintf(stderr, "heed_fill_mask_text: %s\n", heed_mask_filler_last_error(f));
      return 1;
    }
    for (m = 0; m < masks; ++m) printf("%d %.9g\n", (int)top[m * 5].id, (double)top[m * 5].score);
  }
  {
    const int32_t ids[] = {2, heed_mask_filler_mask_id(f), heed_mask_filler_mask_id(f), 3};
    const size_t offsets[] = {0, 4};
    CHECK(heed_fill_mask_ids(f, ids, offsets, 1, 5, again, 5, &masks) == HEED_BUFFER_TOO_SMALL,
          heed_mask_filler_last_error(f));
    CHECK(masks == 2, "masks counted when the buffer is too small");
    CHECK(heed_fill_mask_ids(f, ids, offsets, 1, 5, top, 10, &masks) == HEED_OK, heed_mask_filler_last_error(f));
    CHECK(heed_fill_mask_text(f, "[MASK] [MASK]", 5, again, 5, &masks) == HEED_BUFFER_TOO_SMALL, "text too small");
    CHECK(heed_fill_mask_ids(f, ids, offsets, 1, 0, top, 10, &masks) == HEED_INVALID_ARGUMENT, "top_k 0");
  }
  heed_mask_filler_free(f);
  return 0;
}

int main(int argc, char** argv) {
  heed_model* model = NULL;
  char error[256];
  int rc;
  if (argc != 3 || (strcmp(argv[1], "classify") != 0 && strcmp(argv[1], "fill-mask") != 0)) {
    fprintf(stderr, "usage: heads_c classify|fill-mask MODEL.heed < texts.txt\n");
    return 2;
  }
  if (heed_model_open(argv[2], &model, error, sizeof error) != HEED_OK) {
    fprintf(stderr, "cannot open %s: %s\n", argv[2], error);
    return 1;
  }
  rc = strcmp(argv[1], "classify") == 0 ? classify(model) : fill_mask(model);
  heed_model_free(model);
  return rc != 0 ? rc : failures != 0;
}
