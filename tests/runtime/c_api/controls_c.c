/* The decoding options of the C API from C99 (heed_translate_text_with_options and
 * heed_translate_ids_with_options) on the aren-transliteration model, against the outputs
 * CTranslate2 gives for the same options (tests/runtime/decoding/fixtures/aren_ct2_controls.txt).
 * Also: a translator over a language model is HEED_UNSUPPORTED_MODEL, as heed.h documents.
 * And use_vmap on the demo model converted with numbers_vmap.txt: a map holding the whole
 * vocabulary's tokens gives its translation, one without "und" translates without it.
 * usage: controls_c MODEL.heed LANGUAGE_MODEL.heed NUMBERS.heed NUMBERS_VMAP.heed
 *        (the demo model, float32, without and with the map) */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "heed/heed.h"

static int failures = 0;

static void expect(const char* what, const char* got, const char* expected) {
  if (strcmp(got, expected) != 0) {
    printf("FAIL: %s: got '%s', expected '%s'\n", what, got, expected);
    ++failures;
  }
}

static void translate(heed_translator* t, const char* what, const char* source, const heed_decode_options* o,
                      const char* expected) {
  char out[256];
  size_t length = 0;
  heed_status s = heed_translate_text_with_options(t, source, o, out, sizeof out, &length);
  if (s != HEED_OK) {
    printf("FAIL: %s: %s: %s\n", what, heed_status_name(s), heed_translator_last_error(t));
    ++failures;
    return;
  }
  expect(what, out, expected);
}

typedef struct {
  char text[4][128];
  float score[4];
  size_t count;
} Hypotheses;

static int keep(void* user, size_t rank, const char* text, float score) {
  Hypotheses* h = (Hypotheses*)user;
  if (rank < 4) {
    strncpy(h->text[rank], text, sizeof h->text[rank] - 1);
    h->score[rank] = score;
  }
  h->count = rank + 1;
  return 0;
}

static int close_to(float a, float b) { return a - b < 2e-5f && b - a < 2e-5f; }

/* n-best with scores, alternatives and scoring, against CTranslate2's translate_batch and
 * score_batch on the same model (values printed by the ctranslate2 package). */
static void check_hypotheses_and_scores(heed_translator* t) {
  heed_decode_options o;
  Hypotheses h;
  float log_probs[16], total = 0;
  size_t count = 0;
  const char* best[3] = {"a t z m o n", "a t z u m o n", "a t z m u n"};
  const float best_scores[3] = {-0.15167f, -0.26603f, -0.33511f};
  const char* alternatives[3] = {"a t z m o n", "e t z m o n", "u t z m o n"};
  const float alternative_scores[3] = {-0.26527f, -3.06324f, -4.15429f};
  size_t k;
  heed_decode_options_init(&o);
  o.beam_size = 4;
  o.num_hypotheses = 3;
  memset(&h, 0, sizeof h);
  if (heed_translate_hypotheses(t, "آ ت ز م و ن", &o, keep, &h) != HEED_OK || h.count != 3) {
    printf("FAIL: n-best: %s (%zu hypotheses)\n", heed_translator_last_error(t), h.count);
    ++failures;
  }
  for (k = 0; k < 3 && k < h.count; ++k) {
    expect("n-best hypothesis", h.text[k], best[k]);
    if (!close_to(h.score[k], best_scores[k])) {
      printf("FAIL: n-best score %zu: %f, expected %f\n", k, h.score[k], best_scores[k]);
      ++failures;
    }
  }
  heed_decode_options_init(&o);
  o.beam_size = 1;
  o.num_hypotheses = 3;
  o.return_alternatives = 1;
  memset(&h, 0, sizeof h);
  if (heed_translate_hypotheses(t, "آ ت ز م و ن", &o, keep, &h) != HEED_OK || h.count != 3) {
    printf("FAIL: alternatives: %s (%zu)\n", heed_translator_last_error(t), h.count);
    ++failures;
  }
  for (k = 0; k < 3 && k < h.count; ++k) {
    expect("alternative", h.text[k], alternatives[k]);
    if (!close_to(h.score[k], alternative_scores[k])) {
      printf("FAIL: alternative score %zu: %f, expected %f\n", k, h.score[k], alternative_scores[k]);
      ++failures;
    }
  }
  if (heed_score_text(t, "آ ت ز م و ن", "a t z m o n", log_probs, 16, &count, &total) != HEED_OK || count != 7 ||
      !close_to(total, -1.0617495f) || !close_to(log_probs[3], -0.44795f)) {
    printf("FAIL: score: %s (%zu values, total %f)\n", heed_translator_last_error(t), count, total);
    ++failures;
  }
  if (heed_score_text(t, "آ ت ز م و ن", "a t z m o n", log_probs, 3, &count, &total) != HEED_BUFFER_TOO_SMALL ||
      count != 7) {
    printf("FAIL: score into a small buffer\n");
    ++failures;
  }
}

static void check_refusals(heed_translator* t) {
  heed_decode_options o;
  char out[64];
  size_t length = 0;
  const char* unknown[] = {"zzz-not-a-token"};
  heed_decode_options_init(&o);
  o.suppress_sequences = unknown;
  o.num_suppress_sequences = 1;
  if (heed_translate_text_with_options(t, "آ ز ا", &o, out, sizeof out, &length) != HEED_INVALID_ARGUMENT ||
      strstr(heed_translator_last_error(t), "zzz-not-a-token") == NULL) {
    printf("FAIL: an unknown suppressed token: %s\n", heed_translator_last_error(t));
    ++failures;
  }
  heed_decode_options_init(&o);
  o.repetition_penalty = 0.0f;
  if (heed_translate_text_with_options(t, "آ ز ا", &o, out, sizeof out, &length) != HEED_INVALID_ARGUMENT) {
    printf("FAIL: repetition penalty 0 was accepted\n");
    ++failures;
  }
  o.struct_size = 0;
  if (heed_translate_text_with_options(t, "آ ز ا", &o, out, sizeof out, &length) != HEED_INVALID_ARGUMENT) {
    printf("FAIL: an options struct without its size was accepted\n");
    ++failures;
  }
  heed_decode_options_init(&o);
  o.use_vmap = 1;
  if (heed_translate_text_with_options(t, "آ ز ا", &o, out, sizeof out, &length) != HEED_INVALID_ARGUMENT ||
      strstr(heed_translator_last_error(t), "no vocabulary map") == NULL) {
    printf("FAIL: use_vmap without a map: %s\n", heed_translator_last_error(t));
    ++failures;
  }
}

typedef struct {
  char text[256];
  size_t calls, stop_after; /* stop_after 0: never */
} Streamed;

static int stream_piece(void* user, int32_t id, const char* text, size_t length) {
  Streamed* s = (Streamed*)user;
  size_t used = strlen(s->text);
  (void)id;
  if (used + length < sizeof s->text) {
    memcpy(s->text + used, text, length);
    s->text[used + length] = '\0';
  }
  ++s->calls;
  return s->stop_after != 0 && s->calls >= s->stop_after;
}

/* heed_translate_stream on the aren model: the pieces join to the greedy translation CTranslate2
 * gives (the model's test: a t z m o n), one call per token; returning nonzero stops it; beam
 * search is refused. */
static void check_stream(heed_translator* t) {
  Streamed s;
  char out[128];
  size_t length = 0;
  heed_decode_options o;
  memset(&s, 0, sizeof s);
  if (heed_translate_stream(t, "آ ت ز م و ن", NULL, stream_piece, &s, out, sizeof out, &length) != HEED_OK) {
    printf("FAIL: stream: %s\n", heed_translator_last_error(t));
    ++failures;
  }
  expect("streamed pieces", s.text, "a t z m o n");
  expect("streamed translation", out, "a t z m o n");
  if (s.calls != 6) {
    printf("FAIL: stream: %zu calls for 6 tokens\n", s.calls);
    ++failures;
  }
  memset(&s, 0, sizeof s);
  s.stop_after = 2;
  if (heed_translate_stream(t, "آ ت ز م و ن", NULL, stream_piece, &s, out, sizeof out, &length) != HEED_OK) ++failures;
  expect("stopped stream", out, "a t");
  heed_decode_options_init(&o);
  o.beam_size = 4;
  if (heed_translate_stream(t, "آ ت ز م و ن", &o, stream_piece, &s, out, sizeof out, &length) != HEED_INVALID_ARGUMENT) {
    printf("FAIL: stream with beam 4 was accepted\n");
    ++failures;
  }
}

/* Streaming with a target prefix: CTranslate2's greedy translation with the prefix (CONFIG 1 1 1.0 1
 * 256 1.0 1, sentence 1), the prefix's tokens streamed too. */
static void check_stream_with_prefix(heed_translator* t, const char* source) {
  const char* want = "acht hundert sieben und sechzig tausend zwei hundert fünf und zwanzig";
  Streamed s;
  char out[256];
  size_t length = 0;
  heed_decode_options o;
  heed_decode_options_init(&o);
  o.beam_size = 1;
  o.target_prefix = "acht hundert";
  memset(&s, 0, sizeof s);
  if (heed_translate_stream(t, source, &o, stream_piece, &s, out, sizeof out, &length) != HEED_OK) {
    printf("FAIL: stream with a prefix: %s\n", heed_translator_last_error(t));
    ++failures;
  }
  expect("streamed with a prefix", s.text, want);
  expect("stream with a prefix", out, want);
}

/* target_prefix on the demo model (demo/numbers-en-de, float32): CTranslate2's 2-best with the
 * prefix "acht hundert" (tests/runtime/decoding/fixtures/numbers_ct2_decoding.txt, CONFIG 2 2 1.0 0
 * 256 1.0 1, sentence 1); the calls that split text or take batches refuse a prefix. */
static void check_target_prefix(const char* path) {
  heed_model* model = NULL;
  heed_translator* t = NULL;
  heed_decode_options o;
  Hypotheses h;
  char error[256], out[256];
  size_t k, length = 0;
  const char* source = "eight hundred sixty seven thousand two hundred twenty five";
  const char* want[2] = {"acht hundert sieben und sechzig tausend zwei hundert fünf und zwanzig",
                         "acht hundert sieben und fünfzig tausend zwei hundert fünf und zwanzig"};
  const float want_scores[2] = {-0.000015f, -0.900005f};
  if (heed_model_open(path, &model, error, sizeof error) != HEED_OK ||
      heed_translator_create(model, NULL, &t) != HEED_OK) {
    printf("FAIL: open %s: %s %s\n", path, error, model ? heed_model_last_error(model) : "");
    ++failures;
    heed_model_free(model);
    return;
  }
  heed_decode_options_init(&o);
  o.beam_size = 2;
  o.num_hypotheses = 2;
  o.min_length = 0;
  o.target_prefix = "acht hundert";
  memset(&h, 0, sizeof h);
  if (heed_translate_hypotheses(t, source, &o, keep, &h) != HEED_OK || h.count != 2) {
    printf("FAIL: target_prefix: %s (%zu hypotheses)\n", heed_translator_last_error(t), h.count);
    ++failures;
  }
  for (k = 0; k < 2 && k < h.count; ++k) {
    expect("target_prefix hypothesis", h.text[k], want[k]);
    if (!close_to(h.score[k], want_scores[k])) {
      printf("FAIL: target_prefix score %zu: %f, expected %f\n", k, h.score[k], want_scores[k]);
      ++failures;
    }
  }
  if (heed_translate_text_with_options(t, source, &o, out, sizeof out, &length) != HEED_INVALID_ARGUMENT ||
      strstr(heed_translator_last_error(t), "target_prefix") == NULL) {
    printf("FAIL: heed_translate_text_with_options took a target_prefix: %s\n", heed_translator_last_error(t));
    ++failures;
  }
  check_stream_with_prefix(t, source);
  heed_translator_free(t);
  heed_model_free(model);
}

/* numbers_vmap.txt maps twenty -> zwanzig und, one -> ein eins, forty -> vierzig, two -> zwei. */
static void check_use_vmap(const char* plain_path, const char* vmap_path) {
  heed_model *plain = NULL, *mapped = NULL;
  heed_translator *whole = NULL, *t = NULL;
  heed_decode_options o;
  char error[256], want[256];
  size_t length = 0;
  if (heed_model_open(plain_path, &plain, error, sizeof error) != HEED_OK ||
      heed_translator_create(plain, NULL, &whole) != HEED_OK ||
      heed_model_open(vmap_path, &mapped, error, sizeof error) != HEED_OK ||
      heed_translator_create(mapped, NULL, &t) != HEED_OK) {
    printf("FAIL: open %s / %s: %s\n", plain_path, vmap_path, error);
    ++failures;
  } else {
    heed_decode_options_init(&o);
    o.beam_size = 2;
    if (heed_translate_text_with_options(whole, "twenty one", &o, want, sizeof want, &length) != HEED_OK) {
      printf("FAIL: whole vocabulary: %s\n", heed_translator_last_error(whole));
      ++failures;
    }
    expect("whole vocabulary, twenty one", want, "ein und zwanzig");
    o.use_vmap = 1;
    translate(t, "use_vmap, the map holds every token", "twenty one", &o, want);
    /* The whole vocabulary says "zwei und vierzig"; the candidates of "forty two" are vierzig,
     * zwei and the special tokens only. */
    if (heed_translate_text_with_options(t, "forty two", &o, want, sizeof want, &length) != HEED_OK ||
        strncmp(want, "zwei", 4) != 0 || strstr(want, "und") != NULL) {
      printf("FAIL: use_vmap, the map lacks und: '%s' %s\n", want, heed_translator_last_error(t));
      ++failures;
    }
    for (char* word = strtok(want, " "); word != NULL; word = strtok(NULL, " ")) {
      if (strcmp(word, "zwei") != 0 && strcmp(word, "vierzig") != 0) {
        printf("FAIL: use_vmap: '%s' is not a candidate of forty two\n", word);
        ++failures;
      }
    }
  }
  heed_translator_free(t);
  heed_translator_free(whole);
  heed_model_free(mapped);
  heed_model_free(plain);
}

int main(int argc, char** argv) {
  heed_model* model = NULL;
  heed_translator* t = NULL;
  heed_decode_options o;
  char error[256];
  const char* suppress_a[] = {"a"};
  const char* end_m[] = {"m"};
  if (argc != 5) return 2;
  if (heed_model_open(argv[1], &model, error, sizeof error) != HEED_OK) {
    printf("FAIL: open: %s\n", error);
    return 1;
  }
  if (heed_translator_create(model, NULL, &t) != HEED_OK) {
    printf("FAIL: translator: %s\n", heed_model_last_error(model));
    return 1;
  }

  heed_decode_options_init(&o);
  o.beam_size = 1;
  o.suppress_sequences = suppress_a;
  o.num_suppress_sequences = 1;
  translate(t, "suppress a, greedy", "آ ت ز م و ن", &o, "e t z m o n");

  heed_decode_options_init(&o);
  o.beam_size = 4;
  o.repetition_penalty = 1.5f;
  translate(t, "repetition penalty 1.5, beam 4", "م ح م د", &o, "m u h a m e d");

  heed_decode_options_init(&o);
  o.beam_size = 1;
  o.max_length = 20;
  o.end_tokens = end_m;
  o.num_end_tokens = 1;
  translate(t, "end token m", "آ ت ز م و ن", &o, "a t z");
  /* A caller built against an older heed.h whose struct ended before end_tokens: they keep their
   * default (none), whatever the bytes after its struct hold. */
  o.struct_size = offsetof(heed_decode_options, end_tokens);
  translate(t, "shorter struct", "آ ت ز م و ن", &o, "a t z m o n");

  check_hypotheses_and_scores(t);
  check_stream(t);
  /* What the file records (the CTranslate2 reader writes its binary version and conventions). */
  expect("family", heed_model_family(model), "TransformerEncoderDecoder");
  expect("metadata", heed_model_metadata(model, "ct2.binary_version") ? heed_model_metadata(model, "ct2.binary_version") : "(none)", "2");
  expect("metadata add_source_eos", heed_model_metadata(model, "add_source_eos") ? heed_model_metadata(model, "add_source_eos") : "(none)", "false");
  check_refusals(t);
  heed_translator_free(t);
  heed_model_free(model);

  if (heed_model_open(argv[2], &model, error, sizeof error) != HEED_OK) {
    printf("FAIL: open %s: %s\n", argv[2], error);
    return 1;
  }
  t = NULL;
  if (heed_translator_create(model, NULL, &t) != HEED_UNSUPPORTED_MODEL || t != NULL) {
    printf("FAIL: a translator over a language model: %s\n", heed_model_last_error(model));
    ++failures;
  }
  heed_model_free(model);
  check_target_prefix(argv[3]);
  check_use_vmap(argv[3], argv[4]);
  if (failures == 0) printf("controls_c: all passed\n");
  return failures == 0 ? 0 : 1;
}
