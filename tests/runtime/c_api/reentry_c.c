/* Re-entry and stopping from C99: a callback that calls the translator or generator whose call is
 * running gets HEED_BUSY with a message (not a deadlock, not a reuse of the running call's
 * session), the running call still gives what it gives without the inner call, and a second
 * object may be used from the callback. heed_translator_cancel / heed_generator_cancel from a
 * callback stop the call with HEED_CANCELLED, timeout_ms with HEED_DEADLINE_EXCEEDED (a callback
 * that spins past it), and the next call is unaffected.
 * usage: reentry_c ARABIC_NAMES.heed (aren, float32) STORIES.heed */
#include <stddef.h>
#include <time.h>
#include <stdio.h>
#include <string.h>

#include "heed/heed.h"

static int failures = 0;

#define EXPECT(cond, ...)            \
  do {                               \
    if (!(cond)) {                   \
      printf("FAIL: " __VA_ARGS__);  \
      printf("\n");                  \
      ++failures;                    \
    }                                \
  } while (0)

static const char* const kSource = "\xd9\x85 \xd8\xad \xd9\x85 \xd8\xaf"; /* م ح م د */

/* What the callbacks try, and what they saw. */
typedef struct {
  heed_translator* same_translator;
  heed_translator* other_translator;
  heed_generator* same_generator;
  int calls, busy, other_ok;
  char message[256];
} Reentry;

static void note(Reentry* r, heed_status s, const char* message, heed_status other) {
  r->calls++;
  if (s == HEED_BUSY) r->busy++;
  if (other == HEED_OK) r->other_ok++;
  strncpy(r->message, message, sizeof r->message - 1);
}

static int translate_again(void* user, int32_t id, const char* text, size_t text_length) {
  Reentry* r = (Reentry*)user;
  char out[256];
  size_t length = 0;
  heed_status s = heed_translate_text(r->same_translator, kSource, 1, out, sizeof out, &length);
  const char* message = heed_translator_last_error(r->same_translator);
  note(r, s, message, heed_translate_text(r->other_translator, kSource, 1, out, sizeof out, &length));
  (void)id, (void)text, (void)text_length;
  return 0;
}

static int rank_again(void* user, size_t rank, const char* text, float score) {
  Reentry* r = (Reentry*)user;
  char out[256];
  size_t length = 0;
  heed_status s = heed_translate_stream(r->same_translator, kSource, NULL, NULL, NULL, out, sizeof out, &length);
  note(r, s, heed_translator_last_error(r->same_translator), HEED_BUSY);
  (void)rank, (void)text, (void)score;
  return 0;
}

static int generate_again(void* user, int32_t id, const char* text, size_t text_length) {
  Reentry* r = (Reentry*)user;
  char out[256];
  size_t length = 0;
  heed_status s = heed_generate_text(r->same_generator, "", NULL, NULL, NULL, out, sizeof out, &length);
  note(r, s, heed_generator_last_error(r->same_generator), HEED_BUSY);
  (void)id, (void)text, (void)text_length;
  return 0;
}

/* Stopping: cancel at the second token, or spin 20 ms of CPU time (past a 5 ms timeout). */
typedef struct {
  heed_translator* translator;
  heed_generator* generator;
  int tokens;
} Stopper;

static int cancel_at_second(void* user, int32_t id, const char* text, size_t text_length) {
  Stopper* st = (Stopper*)user;
  if (++st->tokens == 2) {
    if (st->translator) heed_translator_cancel(st->translator);
    if (st->generator) heed_generator_cancel(st->generator);
  }
  (void)id, (void)text, (void)text_length;
  return 0;
}

static int spin(void* user, int32_t id, const char* text, size_t text_length) {
  const clock_t start = clock();
  ((Stopper*)user)->tokens++;
  while ((double)(clock() - start) < 0.02 * CLOCKS_PER_SEC) {
  }
  (void)id, (void)text, (void)text_length;
  return 0;
}

static void check_translator_stops(heed_translator* t, const char* alone) {
  char out[256];
  size_t length = 0;
  Stopper st = {t, NULL, 0};
  heed_decode_options o;
  heed_decode_options_init(&o);
  o.beam_size = 1;
  EXPECT(o.timeout_ms == 0, "no timeout by default");
  EXPECT(heed_translate_stream(t, kSource, &o, cancel_at_second, &st, out, sizeof out, &length) == HEED_CANCELLED &&
             st.tokens == 2, "cancelled at the second token (%d tokens)", st.tokens);
  EXPECT(heed_translate_text(t, kSource, 1, out, sizeof out, &length) == HEED_OK && strcmp(out, alone) == 0,
         "a call after a cancel starts uncancelled");
  EXPECT(heed_translator_cancel(t) == HEED_OK && heed_translator_cancel(NULL) == HEED_INVALID_ARGUMENT, "cancel");
  EXPECT(heed_translate_text(t, kSource, 1, out, sizeof out, &length) == HEED_OK, "a cancel between calls is dropped");
  o.timeout_ms = 5;
  st.tokens = 0;
  // The deadline passes during the first token's callback (it spins 20 ms), or before it on a slow
  // machine (qemu): either way no second token comes.
  EXPECT(heed_translate_stream(t, kSource, &o, spin, &st, out, sizeof out, &length) == HEED_DEADLINE_EXCEEDED &&
             st.tokens <= 1, "deadline by the first token (%d tokens)", st.tokens);
  o.timeout_ms = 60000;
  EXPECT(heed_translate_text_with_options(t, kSource, &o, out, sizeof out, &length) == HEED_OK &&
             strcmp(out, alone) == 0, "a timeout not reached changes nothing");
}

static void check_translator(heed_translator* t, heed_translator* other) {
  char alone[256], streamed[256];
  size_t length = 0;
  Reentry r;
  memset(&r, 0, sizeof r);
  r.same_translator = t;
  r.other_translator = other;
  EXPECT(heed_translate_text(t, kSource, 1, alone, sizeof alone, &length) == HEED_OK, "translate alone");
  EXPECT(heed_translate_stream(t, kSource, NULL, translate_again, &r, streamed, sizeof streamed, &length) == HEED_OK,
         "the stream whose callback re-enters: %s", heed_translator_last_error(t));
  EXPECT(r.calls > 1 && r.busy == r.calls, "every re-entry is HEED_BUSY (%d of %d)", r.busy, r.calls);
  EXPECT(r.other_ok == r.calls, "another translator works from the callback (%d of %d)", r.other_ok, r.calls);
  EXPECT(strstr(r.message, "heed_translate_text: another call on this object is running") != NULL, "message: %s",
         r.message);
  EXPECT(strcmp(alone, streamed) == 0, "the stream gives '%s', alone '%s'", streamed, alone);
  EXPECT(strcmp(heed_status_name(HEED_BUSY), "busy") == 0, "status name");

  heed_decode_options o;
  heed_decode_options_init(&o);
  o.beam_size = 2;
  o.num_hypotheses = 2;
  memset(&r, 0, sizeof r);
  r.same_translator = t;
  EXPECT(heed_translate_hypotheses(t, kSource, &o, rank_again, &r) == HEED_OK, "hypotheses");
  EXPECT(r.calls == 2 && r.busy == 2, "hypotheses' callback re-entering is HEED_BUSY (%d of %d)", r.busy, r.calls);
  EXPECT(heed_translate_text(t, kSource, 1, streamed, sizeof streamed, &length) == HEED_OK &&
             strcmp(alone, streamed) == 0, "the translator serves again after the callbacks");
  check_translator_stops(t, alone);
}

static void check_generator(heed_generator* g) {
  char alone[512], streamed[512];
  size_t length = 0;
  heed_generate_options o;
  heed_generate_options_init(&o);
  o.max_new_tokens = 12;
  Reentry r;
  memset(&r, 0, sizeof r);
  r.same_generator = g;
  EXPECT(heed_generate_text(g, "Once", &o, NULL, NULL, alone, sizeof alone, &length) == HEED_OK, "generate alone");
  EXPECT(heed_generate_text(g, "Once", &o, generate_again, &r, streamed, sizeof streamed, &length) == HEED_OK,
         "generate with a re-entering callback: %s", heed_generator_last_error(g));
  EXPECT(r.calls > 1 && r.busy == r.calls, "every generator re-entry is HEED_BUSY (%d of %d)", r.busy, r.calls);
  EXPECT(strstr(r.message, "heed_generate_text: another call") != NULL, "generator message: %s", r.message);
  EXPECT(strcmp(alone, streamed) == 0, "generation '%s' alone '%s'", streamed, alone);

  Stopper st = {NULL, g, 0};
  EXPECT(heed_generate_text(g, "Once", &o, cancel_at_second, &st, streamed, sizeof streamed, &length) ==
             HEED_CANCELLED && st.tokens == 2, "generation cancelled at the second token (%d)", st.tokens);
  o.timeout_ms = 5;
  st.tokens = 0;
  EXPECT(heed_generate_text(g, "Once", &o, spin, &st, streamed, sizeof streamed, &length) == HEED_DEADLINE_EXCEEDED &&
             st.tokens <= 1, "generation deadline by the first token (%d)", st.tokens);
  o.timeout_ms = 0;
  EXPECT(heed_generate_text(g, "Once", &o, NULL, NULL, streamed, sizeof streamed, &length) == HEED_OK &&
             strcmp(alone, streamed) == 0, "the generator serves again");
}

int main(int argc, char** argv) {
  heed_model *names = NULL, *stories = NULL;
  heed_translator *t = NULL, *other = NULL;
  heed_generator* g = NULL;
  char error[256];
  if (argc != 3) {
    printf("usage: reentry_c ARABIC_NAMES.heed STORIES.heed\n");
    return 2;
  }
  if (heed_model_open(argv[1], &names, error, sizeof error) != HEED_OK ||
      heed_translator_create(names, NULL, &t) != HEED_OK || heed_translator_create(names, NULL, &other) != HEED_OK ||
      heed_model_open(argv[2], &stories, error, sizeof error) != HEED_OK ||
      heed_generator_create(stories, NULL, &g) != HEED_OK) {
    printf("FAIL: open %s / %s: %s\n", argv[1], argv[2], error);
    return 1;
  }
  check_translator(t, other);
  check_generator(g);
  heed_generator_free(g);
  heed_translator_free(other);
  heed_translator_free(t);
  heed_model_free(stories);
  heed_model_free(names);
  if (failures == 0) printf("reentry_c: all passed\n");
  return failures == 0 ? 0 : 1;
}
