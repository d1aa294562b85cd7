/* The embedding C API used from C99 with heed.h only: embeds each stdin line (mean pooling, as
 * text) and prints it as heed embed does ({"embedding":[...]} lines), so embed_cli_test.sh can
 * compare it with the transformers library's values; then checks the id-level call against the
 * text one and the error paths (missing file, too-small buffer, a non-embedding pooling value).
 * usage: heed_embed_c MODEL.heed < sentences.txt */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "c_check.h"
#include "heed/heed.h"

int main(int argc, char** argv) {
  heed_model* model = NULL;
  heed_embedder* embedder = NULL;
  heed_embedder_options options;
  char error[256];
  char line[4096];
  float v[1024], w[1024];
  size_t dim, i;
  if (argc != 2) {
    fprintf(stderr, "usage: heed_embed_c MODEL.heed < sentences.txt\n");
    return 2;
  }
  CHECK(heed_model_open("/nonexistent.heed", &model, error, sizeof error) == HEED_IO_ERROR, error);
  if (heed_model_open(argv[1], &model, error, sizeof error) != HEED_OK) {
    fprintf(stderr, "cannot open %s: %s\n", argv[1], error);
    return 1;
  }
  heed_embedder_options_init(&options);
  options.max_batch = 2;
  if (heed_embedder_create(model, &options, &embedder) != HEED_OK) {
    fprintf(stderr, "heed_embedder_create: %s\n", heed_model_last_error(model));
    return 1;
  }
  dim = heed_embedder_dimension(embedder);
  CHECK(dim > 0 && dim <= 1024, "dimension");
  while (fgets(line, sizeof line, stdin)) {
    size_t len = strlen(line);
    if (len && line[len - 1] == '\n') line[--len] = '\0';
    if (heed_embed_text(embedder, line, HEED_POOLING_MEAN, 0, v, 1024) != HEED_OK) {
      fprintf(stderr, "heed_embed_text: %s\n", heed_embedder_last_error(embedder));
      return 1;
    }
    printf("{\"embedding\":[");
    for (i = 0; i < dim; ++i) printf(i ? ",%.9g" : "%.9g", (double)v[i]);
    printf("]}\n");
  }

  /* Ids: [CLS] x [SEP] with the text's own ids gives the text's embedding. */
  {
    /* "x": heed_embed_text's tokenization of it, recovered through the id call's agreement. */
    CHECK(heed_embed_text(embedder, "", HEED_POOLING_CLS, 1, v, 1024) == HEED_OK, heed_embedder_last_error(embedder));
    {
      int32_t ids[2];
      size_t offsets[2] = {0, 2};
      /* [CLS] and [SEP] are ids 2 and 3 in the fixture's vocab.txt. */
      ids[0] = 2;
      ids[1] = 3;
      CHECK(heed_embed_ids(embedder, ids, offsets, 1, HEED_POOLING_CLS, 1, w, 1024) == HEED_OK,
            heed_embedder_last_error(embedder));
      for (i = 0; i < dim; ++i) CHECK(v[i] == w[i], "ids and text differ");
      CHECK(heed_embed_ids(embedder, ids, offsets, 1, HEED_POOLING_CLS, 1, w, dim - 1) == HEED_BUFFER_TOO_SMALL,
            "small buffer");
      CHECK(heed_embed_ids(embedder, ids, offsets, 1, 7, 1, w, 1024) == HEED_INVALID_ARGUMENT,
            "bad pooling");
      ids[1] = 1 << 30;
      CHECK(heed_embed_ids(embedder, ids, offsets, 1, HEED_POOLING_MEAN, 0, w, 1024) == HEED_INVALID_ARGUMENT,
            "id outside the vocabulary");
      CHECK(strstr(heed_embedder_last_error(embedder), "vocabulary") != NULL, heed_embedder_last_error(embedder));
    }
    CHECK(heed_embed_text(embedder, "hello", HEED_POOLING_MEAN, 0, v, dim - 1) == HEED_BUFFER_TOO_SMALL, "small buffer");
  }
  heed_embedder_free(embedder);
  heed_model_free(model);
  return failures ? 1 : 0;
}
