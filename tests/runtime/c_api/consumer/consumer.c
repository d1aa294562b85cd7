/* A C program built outside heed's tree against an installed heed (libheed-dev): opens a
 * translation model and translates one sentence, lists its 2-best hypotheses with scores and scores
 * the pair (sentence, best translation); given a language model too, it generates from a prompt
 * with a streaming callback. install_test.sh and scripts/clean-root-install.sh compare every line
 * with what the heed command line prints for the same model.
 * usage: consumer MODEL.heed TEXT [LM.heed PROMPT]
 * output: the version; the greedy translation; "nbest RANK SCORE TEXT" per hypothesis (beam 2);
 *         "score TOTAL"; with an LM: "stream TEXT" (the callback's pieces joined) and
 *         "generated TEXT" (the returned text) */
#include <stdio.h>
#include <string.h>

#include "heed/heed.h"

static int print_hypothesis(void* user, size_t rank, const char* text, float score) {
  (void)user;
  printf("nbest %zu %.4f %s\n", rank, score, text);
  return 0;
}

static heed_status translate_all(heed_translator* translator, const char* text) {
  char best[4096];
  size_t length = 0, count = 0;
  float log_probs[512], total = 0.0f;
  heed_decode_options options;
  heed_status s;
  heed_decode_options_init(&options);
  options.beam_size = 1;
  options.max_length = 20; /* the reference's max_new_tokens */
  s = heed_translate_text_with_options(translator, text, &options, best, sizeof best, &length);
  if (s != HEED_OK) return s;
  printf("%s\n", best);
  options.beam_size = 2;
  options.num_hypotheses = 2;
  s = heed_translate_hypotheses(translator, text, &options, print_hypothesis, NULL);
  if (s != HEED_OK) return s;
  s = heed_score_text(translator, text, best, log_probs, sizeof log_probs / sizeof log_probs[0], &count, &total);
  if (s == HEED_OK) printf("score %.4f\n", total);
  return s;
}

typedef struct {
  char text[4096];
  size_t used;
} Stream;

static int collect(void* user, int32_t id, const char* text, size_t length) {
  Stream* stream = (Stream*)user;
  (void)id;
  if (stream->used + length < sizeof stream->text) {
    memcpy(stream->text + stream->used, text, length);
    stream->used += length;
    stream->text[stream->used] = '\0';
  }
  return 0;
}

static int generate(const char* path, const char* prompt) {
  char error[256], out[4096];
  size_t length = 0;
  heed_model* model = NULL;
  heed_generator* generator = NULL;
  heed_generate_options options;
  Stream stream = {{0}, 0};
  heed_status s = heed_model_open(path, &model, error, sizeof error);
  if (s != HEED_OK) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  s = heed_generator_create(model, NULL, &generator);
  heed_generate_options_init(&options);
  options.max_new_tokens = 32;
  if (s == HEED_OK) s = heed_generate_text(generator, prompt, &options, collect, &stream, out, sizeof out, &length);
  if (s == HEED_OK) printf("stream %s\ngenerated %s\n", stream.text, out);
  else fprintf(stderr, "%s\n", generator ? heed_generator_last_error(generator) : heed_model_last_error(model));
  heed_generator_free(generator);
  heed_model_free(model);
  return s == HEED_OK ? 0 : 1;
}

int main(int argc, char** argv) {
  heed_model* model = NULL;
  heed_translator* translator = NULL;
  char error[256];
  heed_translator_options options;
  heed_status s;
  if (argc != 3 && argc != 5) return 2;
  printf("%s\n", heed_version());
  s = heed_model_open(argv[1], &model, error, sizeof error);
  if (s != HEED_OK) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  heed_translator_options_init(&options);
  options.max_source_length = 64; /* the fixture's position table */
  options.max_target_length = 64; /* scoring: the translation read back may take more tokens */
  options.max_beam = 2;
  s = heed_translator_create(model, &options, &translator);
  if (s == HEED_OK) s = translate_all(translator, argv[2]);
  if (s != HEED_OK)
    fprintf(stderr, "%s\n", translator ? heed_translator_last_error(translator) : heed_model_last_error(model));
  heed_translator_free(translator);
  heed_model_free(model);
  if (s != HEED_OK) return 1;
  return argc == 5 ? generate(argv[3], argv[4]) : 0;
}
