/* Generation through the C API from C99, linked with the C linker against libheed.so.1: the
 * llama2.c stories260K model (float32) continues "Once upon a time" as its authors' run does,
 * streaming to a callback that can stop it, with stop strings; the OpenNMT-py language model with
 * disable_unk never produces <unk>; a translation model is refused as HEED_UNSUPPORTED_MODEL.
 * usage: generate_c STORIES.heed ONMT_LM.heed TRANSLATION_MODEL.heed */
#include <stdio.h>
#include <string.h>

#include "c_expect.h"
#include "heed/heed.h"


typedef struct {
  char text[512];
  size_t calls;
  size_t stop_after; /* 0: never */
} Collected;

static int collect(void* user, int32_t id, const char* text, size_t length) {
  Collected* c = (Collected*)user;
  size_t used = strlen(c->text);
  (void)id;
  if (used + length < sizeof c->text) {
    memcpy(c->text + used, text, length);
    c->text[used + length] = '\0';
  }
  ++c->calls;
  return c->stop_after != 0 && c->calls >= c->stop_after;
}

static heed_generator* open_generator(const char* path, heed_model** model) {
  char error[256];
  heed_generator* g = NULL;
  if (heed_model_open(path, model, error, sizeof error) != HEED_OK) {
    printf("FAIL: open %s: %s\n", path, error);
    return NULL;
  }
  if (heed_generator_create(*model, NULL, &g) != HEED_OK) printf("FAIL: generator: %s\n", heed_model_last_error(*model));
  return g;
}

/* The model's tokenizer: the prompt's ids read back as the prompt, and generating from those ids
 * gives the continuation generating from the text gave. */
static void check_tokenizer(heed_model* model, heed_generator* g) {
  heed_generate_options o;
  int32_t prompt_ids[32], more[64];
  size_t n = 0, m = 0, length = 0;
  char out[512];
  EXPECT(strcmp(heed_model_family(model), "TransformerDecoderOnly") == 0, "family %s", heed_model_family(model));
  EXPECT(heed_model_metadata(model, "no-such-key") == NULL, "metadata of a missing key");
  EXPECT(heed_tokenize(model, HEED_SOURCE, "Once upon a time", prompt_ids, 32, &n) == HEED_OK && n > 1, "tokenize");
  EXPECT(heed_detokenize(model, HEED_TARGET, prompt_ids, n, out, sizeof out, &length) == HEED_OK &&
             strcmp(out, "Once upon a time") == 0,
         "detokenize: '%s'", out);
  EXPECT(heed_tokenize(model, HEED_SOURCE, "Once upon a time", prompt_ids, 1, &m) == HEED_BUFFER_TOO_SMALL && m == n,
         "tokenize into a small buffer");
  heed_generate_options_init(&o);
  o.max_new_tokens = 10;
  EXPECT(heed_generate_ids(g, prompt_ids, n, &o, NULL, NULL, more, 64, &m) == HEED_OK && m > 0, "generate from ids");
  /* The continuation's first piece keeps its leading space only after a prompt: detokenize the
   * prompt and the continuation together and compare with the whole text. */
  {
    int32_t all[96];
    memcpy(all, prompt_ids, n * sizeof(int32_t));
    memcpy(all + n, more, m * sizeof(int32_t));
    EXPECT(heed_detokenize(model, HEED_TARGET, all, n + m, out, sizeof out, &length) == HEED_OK &&
               strcmp(out, "Once upon a time, there was a little girl named Lily") == 0,
           "prompt and continuation from ids: '%s'", out);
  }
}

static void stories(const char* path) {
  heed_model* model = NULL;
  heed_generator* g = open_generator(path, &model);
  heed_generate_options o;
  char out[512];
  size_t length = 0;
  Collected c;
  const int32_t prompt[] = {403, 407};
  int32_t ids[16];
  const char* stop[] = {"Lily"};
  if (!g) {
    ++failures;
    return;
  }
  heed_generate_options_init(&o);
  o.max_new_tokens = 10;
  memset(&c, 0, sizeof c);
  EXPECT(heed_generate_text(g, "Once upon a time", &o, collect, &c, out, sizeof out, &length) == HEED_OK, "%s",
         heed_generator_last_error(g));
  EXPECT(strcmp(out, ", there was a little girl named Lily") == 0, "greedy text: '%s'", out);
  EXPECT(strcmp(c.text, out) == 0 && c.calls >= 8, "streamed '%s' in %zu calls", c.text, c.calls);

  memset(&c, 0, sizeof c);
  c.stop_after = 3;
  EXPECT(heed_generate_ids(g, prompt, 2, &o, collect, &c, ids, 16, &length) == HEED_OK && length == 3 &&
             ids[0] == 261 && ids[1] == 378 && ids[2] == 432,
         "ids stopped by the callback after 3: %zu", length);

  o.max_new_tokens = 40;
  o.stop = stop;
  o.num_stop = 1;
  EXPECT(heed_generate_text(g, "Once upon a time", &o, NULL, NULL, out, sizeof out, &length) == HEED_OK &&
             strcmp(out, ", there was a little girl named ") == 0,
         "stop string: '%s'", out);
  EXPECT(heed_generate_text(g, "Once upon a time", &o, NULL, NULL, out, 4, &length) == HEED_BUFFER_TOO_SMALL &&
             length == strlen(", there was a little girl named "),
         "small buffer: %zu", length);
  check_tokenizer(model, g);
  heed_generator_free(g);
  heed_model_free(model);
}

static void onmt_lm(const char* path) {
  heed_model* model = NULL;
  heed_generator* g = open_generator(path, &model);
  heed_generate_options o;
  char out[512];
  size_t length = 0;
  if (!g) {
    ++failures;
    return;
  }
  heed_generate_options_init(&o);
  o.max_new_tokens = 20;
  EXPECT(heed_generate_text(g, "The dispute focuses on the width of", &o, NULL, NULL, out, sizeof out, &length) ==
             HEED_OK && strstr(out, "<unk>") != NULL,
         "without disable_unk the model says <unk> here: '%s'", out);
  o.disable_unk = 1;
  EXPECT(heed_generate_text(g, "The dispute focuses on the width of", &o, NULL, NULL, out, sizeof out, &length) ==
             HEED_OK && length > 0 && strstr(out, "<unk>") == NULL,
         "disable_unk: '%s'", out);
  heed_generator_free(g);
  heed_model_free(model);
}

int main(int argc, char** argv) {
  heed_model* model = NULL;
  heed_generator* g = NULL;
  char error[256];
  if (argc != 4) return 2;
  stories(argv[1]);
  onmt_lm(argv[2]);
  if (heed_model_open(argv[3], &model, error, sizeof error) == HEED_OK) {
    EXPECT(heed_generator_create(model, NULL, &g) == HEED_UNSUPPORTED_MODEL && g == NULL,
           "a generator over a translation model: %s", heed_model_last_error(model));
    heed_model_free(model);
  } else {
    EXPECT(0, "open %s: %s", argv[3], error);
  }
  if (failures == 0) printf("generate_c: all passed\n");
  return failures == 0 ? 0 : 1;
}
