/* The heed C API used from C99 with heed.h only: translates the Marian fixture's sentences as text
 * and as ids and compares them with the transformers library's greedy outputs, then checks the
 * error paths (missing file, too-small buffers and arena, bad beam).
 * usage: heed_c_api_translate MODEL.heed DATA_DIR MAX_NEW_TOKENS EOS_ID
 * DATA_DIR holds source.txt, greedy.txt, source_ids.txt, greedy_ids.txt (one sentence a line). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heed/heed.h"

#define MAX_SENTENCES 64
#define MAX_LINE 4096
#define MAX_IDS 8192

static int failures = 0;

#define CHECK(cond, ...)                                    \
  do {                                                      \
    if (!(cond)) {                                          \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                         \
      fputc('\n', stderr);                                  \
      ++failures;                                           \
    }                                                       \
  } while (0)

/* Reads up to MAX_SENTENCES lines of `name` in `dir` into lines[] (newline removed). */
static size_t read_lines(const char* dir, const char* name, char lines[][MAX_LINE]) {
  char path[1024];
  FILE* f;
  size_t n = 0;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  while (n < MAX_SENTENCES && fgets(lines[n], MAX_LINE, f)) {
    size_t len = strlen(lines[n]);
    if (len && lines[n][len - 1] == '\n') lines[n][len - 1] = '\0';
    ++n;
  }
  fclose(f);
  return n;
}

/* Parses space-separated numbers of each line into ids, sentence i at ids[offsets[i]..offsets[i+1]). */
static void parse_ids(char lines[][MAX_LINE], size_t n, int32_t* ids, size_t* offsets) {
  size_t i, count = 0;
  offsets[0] = 0;
  for (i = 0; i < n; ++i) {
    char* p = lines[i];
    char* end;
    for (;;) {
      long v = strtol(p, &end, 10);
      if (end == p) break;
      if (count == MAX_IDS) {
        fprintf(stderr, "too many ids\n");
        exit(1);
      }
      ids[count++] = (int32_t)v;
      p = end;
    }
    offsets[i + 1] = count;
  }
}

static char sources[MAX_SENTENCES][MAX_LINE];
static char expected[MAX_SENTENCES][MAX_LINE];
static char id_lines[MAX_SENTENCES][MAX_LINE];
static int32_t source_ids[MAX_IDS], expected_ids[MAX_IDS], out_ids[MAX_IDS];
static size_t source_offsets[MAX_SENTENCES + 1], expected_offsets[MAX_SENTENCES + 1], out_offsets[MAX_SENTENCES + 1];

int main(int argc, char** argv) {
  const char* model_path;
  const char* data;
  size_t max_new_tokens, n, i, arena_size = 0, length = 0;
  int32_t eos;
  char error[256];
  char out[MAX_LINE];
  heed_model* model = NULL;
  heed_model* missing = NULL;
  heed_translator* translator = NULL;
  heed_translator* small = NULL;
  heed_translator_options options;
  heed_status s;
  unsigned char* arena_block;
  void* arena;

  if (argc != 5) {
    fprintf(stderr, "usage: %s MODEL.heed DATA_DIR MAX_NEW_TOKENS EOS_ID\n", argv[0]);
    return 2;
  }
  model_path = argv[1];
  data = argv[2];
  max_new_tokens = (size_t)strtoul(argv[3], NULL, 10);
  eos = (int32_t)strtol(argv[4], NULL, 10);

  n = read_lines(data, "source.txt", sources);
  CHECK(read_lines(data, "greedy.txt", expected) == n, "greedy.txt and source.txt differ in length");
  CHECK(read_lines(data, "source_ids.txt", id_lines) == n, "source_ids.txt");
  parse_ids(id_lines, n, source_ids, source_offsets);
  CHECK(read_lines(data, "greedy_ids.txt", id_lines) == n, "greedy_ids.txt");
  parse_ids(id_lines, n, expected_ids, expected_offsets);

  CHECK(heed_version() != NULL && heed_version()[0] >= '0' && heed_version()[0] <= '9', "version '%s'",
        heed_version());

  /* A missing file: a status, a message in the caller's buffer, no handle. */
  error[0] = '\0';
  s = heed_model_open("/nonexistent/model.heed", &missing, error, sizeof error);
  CHECK(s == HEED_IO_ERROR, "missing file gave status %d (%s)", (int)s, heed_status_name(s));
  CHECK(missing == NULL, "no handle for a missing file");
  CHECK(strstr(error, "/nonexistent/model.heed") != NULL, "message '%s' names the file", error);
  /* A tiny message buffer is truncated, still NUL-terminated. */
  s = heed_model_open("/nonexistent/model.heed", &missing, error, 4);
  CHECK(s != HEED_OK && strlen(error) == 3, "truncated message '%s'", error);

  s = heed_model_open(model_path, &model, error, sizeof error);
  if (s != HEED_OK) {
    fprintf(stderr, "FAIL: cannot open %s: %s\n", model_path, error);
    return 1;
  }

  /* The session memory is the caller's: query its size, align it, hand it over. */
  heed_translator_options_init(&options);
  options.max_batch = 16;
  options.max_beam = 4;
  options.max_source_length = 64; /* the fixture's max_position_embeddings */
  options.max_target_length = max_new_tokens;
  s = heed_translator_arena_size(model, &options, &arena_size);
  CHECK(s == HEED_OK && arena_size > 0, "arena size: %s", heed_model_last_error(model));
  { /* An options struct whose size was never set (no init call) is refused, with a message. */
    heed_translator_options unset = options;
    heed_translator* none = NULL;
    unset.struct_size = 0;
    CHECK(heed_translator_create(model, &unset, &none) == HEED_INVALID_ARGUMENT && none == NULL &&
              strstr(heed_model_last_error(model), "struct_size") != NULL,
          "translator options without struct_size: %s", heed_model_last_error(model));
  }
  arena_block = (unsigned char*)malloc(arena_size + 64);
  if (!arena_block) return 1;
  arena = arena_block + (64 - (uintptr_t)arena_block % 64) % 64;

  /* Too small an arena is refused with a message. */
  options.arena = arena;
  options.arena_size = arena_size / 2;
  s = heed_translator_create(model, &options, &small);
  CHECK(s == HEED_INVALID_ARGUMENT && small == NULL, "half arena: status %d", (int)s);
  CHECK(heed_model_last_error(model)[0] != '\0', "half arena: no message");

  options.arena_size = arena_size;
  s = heed_translator_create(model, &options, &translator);
  if (s != HEED_OK) {
    fprintf(stderr, "FAIL: cannot create a translator: %s\n", heed_model_last_error(model));
    return 1;
  }

  /* Text in, text out, greedy: the library's greedy_text. */
  for (i = 0; i < n; ++i) {
    s = heed_translate_text(translator, sources[i], 1, out, sizeof out, &length);
    CHECK(s == HEED_OK, "'%s': %s", sources[i], heed_translator_last_error(translator));
    if (s != HEED_OK) continue;
    CHECK(strcmp(out, expected[i]) == 0, "'%s' -> '%s', expected '%s'", sources[i], out, expected[i]);
    CHECK(length == strlen(out), "'%s': length %lu", sources[i], (unsigned long)length);
  }

  /* Too small an output buffer: the needed length, and a message. */
  for (i = 0; i < n && strlen(expected[i]) < 2; ++i) {
  }
  if (i < n) {
    length = 0;
    s = heed_translate_text(translator, sources[i], 1, out, 2, &length);
    CHECK(s == HEED_BUFFER_TOO_SMALL, "small buffer: status %d", (int)s);
    CHECK(length == strlen(expected[i]), "small buffer: needed %lu, expected %lu", (unsigned long)length,
          (unsigned long)strlen(expected[i]));
    CHECK(heed_translator_last_error(translator)[0] != '\0', "small buffer: no message");
    s = heed_translate_text(translator, sources[i], 1, out, length + 1, &length);
    CHECK(s == HEED_OK && strcmp(out, expected[i]) == 0, "exact buffer: '%s'", out);
    CHECK(heed_translator_last_error(translator)[0] == '\0', "a success clears the message");
  }

  /* Ids in, ids out, all sentences in one batch: generate()'s greedy ids, final </s> left out. */
  s = heed_translate_ids(translator, source_ids, source_offsets, n, 1, out_ids, MAX_IDS, out_offsets);
  CHECK(s == HEED_OK, "translate_ids: %s", heed_translator_last_error(translator));
  if (s == HEED_OK) {
    for (i = 0; i < n; ++i) {
      size_t first = expected_offsets[i], last = expected_offsets[i + 1];
      if (last > first && expected_ids[last - 1] == eos) --last;
      CHECK(out_offsets[i + 1] - out_offsets[i] == last - first &&
                memcmp(out_ids + out_offsets[i], expected_ids + first, (last - first) * sizeof(int32_t)) == 0,
            "ids of '%s' differ from generate()'s", sources[i]);
    }
    {
      const size_t needed = out_offsets[n];
      s = heed_translate_ids(translator, source_ids, source_offsets, n, 1, out_ids, needed - 1, out_offsets);
      CHECK(s == HEED_BUFFER_TOO_SMALL, "ids: small buffer status %d", (int)s);
      CHECK(out_offsets[n] == needed, "ids: needed %lu, reported %lu", (unsigned long)needed,
            (unsigned long)out_offsets[n]);
    }
  }

  /* Bad arguments: a status and a message, never a crash. */
  s = heed_translate_text(translator, sources[0], 0, out, sizeof out, &length);
  CHECK(s == HEED_LIMIT_EXCEEDED && heed_translator_last_error(translator)[0], "beam 0: %d", (int)s);
  s = heed_translate_text(translator, sources[0], 5, out, sizeof out, &length);
  CHECK(s == HEED_LIMIT_EXCEEDED, "beam 5 above max_beam 4: %d", (int)s);
  s = heed_translate_text(translator, NULL, 1, out, sizeof out, &length);
  CHECK(s == HEED_INVALID_ARGUMENT, "null text: %d", (int)s);

  /* Each float32 GEMM backend gives generate()'s greedy ids; an unknown backend is refused. */
  {
    const heed_backend backends[2] = {HEED_BACKEND_HEED, HEED_BACKEND_XNNPACK};
    size_t b;
    for (b = 0; b < 2; ++b) {
      heed_translator* other = NULL;
      options.arena = NULL;
      options.arena_size = 0;
      options.backend = backends[b];
      s = heed_translator_create(model, &options, &other);
      if (s != HEED_OK && backends[b] == HEED_BACKEND_XNNPACK && strstr(heed_model_last_error(model), "without XNNPACK")) {
        continue; /* built with HEED_WITH_XNNPACK=OFF */
      }
      CHECK(s == HEED_OK, "backend %d: %s", (int)backends[b], heed_model_last_error(model));
      if (s != HEED_OK) continue;
      s = heed_translate_ids(other, source_ids, source_offsets, n, 1, out_ids, MAX_IDS, out_offsets);
      CHECK(s == HEED_OK, "backend %d translate_ids: %s", (int)backends[b], heed_translator_last_error(other));
      for (i = 0; s == HEED_OK && i < n; ++i) {
        size_t first = expected_offsets[i], last = expected_offsets[i + 1];
        if (last > first && expected_ids[last - 1] == eos) --last;
        CHECK(out_offsets[i + 1] - out_offsets[i] == last - first &&
                  memcmp(out_ids + out_offsets[i], expected_ids + first, (last - first) * sizeof(int32_t)) == 0,
              "backend %d: ids of '%s' differ from generate()'s", (int)backends[b], sources[i]);
      }
      heed_translator_free(other);
    }
    options.backend = 7;
    s = heed_translator_create(model, &options, &small);
    CHECK(s == HEED_INVALID_ARGUMENT && small == NULL && strstr(heed_model_last_error(model), "backend"),
          "backend 7: status %d (%s)", (int)s, heed_model_last_error(model));
  }

  heed_translator_free(translator);
  heed_model_free(model);
  free(arena_block);
  if (failures == 0) printf("translate_c: all passed (%lu sentences)\n", (unsigned long)n);
  return failures == 0 ? 0 : 1;
}
