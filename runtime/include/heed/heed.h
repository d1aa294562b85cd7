/* The heed C API: open a .heed translation model and translate text or token ids, or an
 * encoder-only model and embed, classify or fill masks in sentences, from C (or any language with a C foreign-function
 * interface).
 *
 * - Handles are opaque; no C++ type crosses this boundary.
 * - Every function returns a heed_status; HEED_OK is 0.
 * - Error messages are kept per handle (heed_model_last_error, heed_translator_last_error) or, for
 *   functions that have no handle yet, written to an optional caller buffer. There is no global
 *   mutable error state: different handles may be used from different threads at once. One handle
 *   must not be used by two threads at the same time, with one exception: a heed_model may be
 *   shared, read-only, by translators and embedders on several threads, and they may be created
 *   from it on several threads at once (tests/runtime/c_api/test_c_api_threads.cpp runs this
 *   under ThreadSanitizer).
 * - A callback (token, hypothesis) may call other handles, but a call on the translator or
 *   generator that is running the callback returns HEED_BUSY (tests/runtime/c_api/reentry_c.c).
 * - A translator plans its session memory once, when it is created; translating allocates only for
 *   the text layer (tokenizing and detokenizing), never inside the model session.
 */
#ifndef HEED_HEED_H_
#define HEED_HEED_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Mirrors heed::StatusCode (the values are the same), plus HEED_BUFFER_TOO_SMALL and HEED_BUSY. */
typedef enum heed_status {
  HEED_OK = 0,
  HEED_INVALID_ARGUMENT = 1,     /* unusable arguments (null pointers, sizes, ids) */
  HEED_IO_ERROR = 2,             /* the operating system refused (open, read, mmap) */
  HEED_INVALID_FILE = 3,         /* the model file is corrupt or inconsistent */
  HEED_UNSUPPORTED_VERSION = 4,  /* a .heed file written by a newer format version */
  HEED_UNSUPPORTED_MODEL = 5,    /* a model heed cannot run (e.g. not a translation model) */
  HEED_LIMIT_EXCEEDED = 6,       /* input larger than the translator's limits */
  HEED_OUT_OF_MEMORY = 7,
  HEED_INTERNAL = 8,
  HEED_CANCELLED = 9,            /* decoding stopped: the caller cancelled it (C++ DecodeOptions::cancel) */
  HEED_DEADLINE_EXCEEDED = 10,   /* decoding stopped: the caller's deadline passed */
  HEED_BUFFER_TOO_SMALL = 100,   /* an output buffer is too small; the needed size is reported */
  HEED_BUSY = 101                /* a translator or generator called while a call on it is running: from
                                  * a callback of that call (re-entry), or from another thread */
} heed_status;

typedef struct heed_model heed_model;
typedef struct heed_translator heed_translator;

/* The library version, "MAJOR.MINOR.PATCH" (static storage). */
const char* heed_version(void);
/* A short name of a status code ("ok", "invalid argument", ...; static storage). */
const char* heed_status_name(heed_status status);

/* Opens (memory-maps) and validates a .heed file. On failure *out_model is null and, when
 * error != NULL and error_capacity > 0, the message is written there (truncated, NUL-terminated). */
heed_status heed_model_open(const char* path, heed_model** out_model, char* error, size_t error_capacity);
/* The message of the last failed call on this model ("" if none; a call that succeeds leaves it).
 * Valid until the next failed call on this model; with several threads creating from one model,
 * read it before another of them can fail. */
const char* heed_model_last_error(const heed_model* model);
/* Frees the model; every translator made from it must be freed first. NULL is accepted. */
void heed_model_free(heed_model* model);

/* What the file says about the model: its family ("TransformerEncoderDecoder",
 * "TransformerDecoderOnly", "TransformerEncoderOnly", "RnnSeq2Seq"; "" for NULL) and a metadata
 * value by key (converters record e.g. "source_language"/"target_language" for Argos and Marian
 * models; NULL when absent). Both valid while the model is open. */
const char* heed_model_family(const heed_model* model);
const char* heed_model_metadata(const heed_model* model, const char* key);

/* The model's tokenizer. `side` is HEED_SOURCE or HEED_TARGET (models with one vocabulary, such as
 * language models and encoders, use it for either). heed_tokenize writes the ids of `text` (no
 * start or end token added); heed_detokenize the text of `ids` (special tokens left out),
 * NUL-terminated. Counts and lengths are reported also on HEED_BUFFER_TOO_SMALL. */
enum { HEED_SOURCE = 0, HEED_TARGET = 1 };
heed_status heed_tokenize(heed_model* model, int side, const char* text, int32_t* ids, size_t capacity,
                          size_t* count);
heed_status heed_detokenize(heed_model* model, int side, const int32_t* ids, size_t count, char* out,
                            size_t capacity, size_t* length);

/* The GEMM backend of float32 layers (heed::Backend). int8 and float16 models always run heed's
 * own kernels, which measured faster than XNNPACK's there. */
typedef enum heed_backend {
  HEED_BACKEND_AUTO = 0,    /* XNNPACK where it runs (it measured faster), heed's kernels elsewhere */
  HEED_BACKEND_HEED = 1,    /* heed's kernels only */
  HEED_BACKEND_XNNPACK = 2  /* XNNPACK for every float32 layer; HEED_INVALID_ARGUMENT without it */
} heed_backend;

typedef struct heed_translator_options {
  size_t struct_size;        /* sizeof(heed_translator_options) of the caller (heed_translator_options_init) */
  size_t max_batch;          /* sentences per heed_translate_ids call (0: 8) */
  size_t max_beam;           /* largest beam size (0: 4) */
  size_t max_source_length;  /* source tokens, end token included (0: 256, or the model's positions if fewer) */
  size_t max_target_length;  /* target tokens, end token included (0: 256, or the model's positions if fewer) */
  /* Optional caller-provided session memory (kept alive by the caller until the translator is
   * freed): NULL lets the translator allocate it. heed_translator_arena_size gives the size. */
  void* arena;
  size_t arena_size;
  /* Worker threads of the translator's session (1 after heed_translator_options_init; 0: one per
   * core; at most 256). Results are the same for every thread count. */
  size_t threads;
  /* 0 (the default): heed_translate_text splits each line of the text into sentences by the model's
   * source language (heed/sentence_splitter.h) and translates them; nonzero: each line is
   * translated as one sentence. */
  int no_sentence_split;
  /* The GEMM backend of float32 layers: a heed_backend value (HEED_BACKEND_AUTO after
   * heed_translator_options_init). An int, not the enum type, so that an unknown value is refused
   * with HEED_INVALID_ARGUMENT instead of being undefined behaviour to read in C++.
   * Fields are only ever added at the end. */
  int backend;
  /* Nonzero: the session records the decoder's cross-attention, for heed_translate_attention
   * (it costs memory and a little time; 0 after heed_translator_options_init). */
  int capture_attention;
  /* Microseconds an idle worker thread spins waiting for the next piece of work before it sleeps
   * (100 after heed_translator_options_init; at most 1000000; 0: sleep at once, for machines whose
   * cores are busy with other work). Only a speed setting: results are the same. */
  uint32_t spin_microseconds;
} heed_translator_options;

/* Fills *options with the defaults (struct_size, threads 1, backend HEED_BACKEND_AUTO,
 * spin_microseconds 100, every other
 * field 0 / NULL: sentences are split). Options structs are read up to the caller's struct_size, so
 * a program built against an older heed.h keeps working with a newer libheed.so.1. */
void heed_translator_options_init(heed_translator_options* options);
/* The session memory a translator with these options needs, in bytes. */
heed_status heed_translator_arena_size(heed_model* model, const heed_translator_options* options, size_t* out_size);
/* Builds a translator over `model` (which must outlive it). options may be NULL (defaults). On
 * failure *out_translator is null and the message is the model's last error. */
heed_status heed_translator_create(heed_model* model, const heed_translator_options* options,
                                   heed_translator** out_translator);
/* The message of the last failed call on this translator ("" if none). Valid until the next call. */
const char* heed_translator_last_error(const heed_translator* translator);
/* Stops the call running on `translator`, from another thread or from that call's callback: it
 * returns HEED_CANCELLED (its outputs are then unset) at its next decoder step. Each call starts
 * uncancelled, so a cancel with no call running does nothing. The one function that may be called
 * on a translator another thread is using. */
heed_status heed_translator_cancel(heed_translator* translator);
/* NULL is accepted. */
void heed_translator_free(heed_translator* translator);

/* Translates UTF-8 text through the model's tokenizers with beam size `beam` (1: greedy) and writes
 * the best translation, NUL-terminated, to out: the runtime's text path (heed/text_translator.h),
 * the same as `heed translate`, `heed serve` and Python's translate_text. Each line of the text is a
 * paragraph: it is split into sentences by the model's source language (unless the options'
 * no_sentence_split is set), which are translated in batches of similar length (max_batch at a
 * time, so text with more sentences takes several passes), and the line's translation is its
 * sentences' translations separated as the sentences were (one space where nothing was); line
 * breaks ('\n') are kept, an empty or blank line stays empty. *out_length receives the
 * translation's length in bytes (without the NUL) on success and on HEED_BUFFER_TOO_SMALL, when
 * out_capacity < *out_length + 1 (nothing useful is then written to out). A line that cannot be
 * translated fails the call with a message naming it ("line 3: ..."): not valid UTF-8
 * (HEED_INVALID_ARGUMENT), a sentence longer than max_source_length tokens (HEED_LIMIT_EXCEEDED). A
 * beam outside 1..max_beam is HEED_LIMIT_EXCEEDED. Models whose tokenizer is 'whitespace' read and
 * write space-separated tokens (each line is one sentence: tokens are not prose). */
heed_status heed_translate_text(heed_translator* translator, const char* text, size_t beam, char* out,
                                size_t out_capacity, size_t* out_length);

/* Token-id level: translates `batch` sources given as ids (sentence i is
 * ids[offsets[i] .. offsets[i+1]), exactly as given: no end token is added). The best hypothesis of
 * sentence i is written to out_ids[out_offsets[i] .. out_offsets[i+1]) (end token excluded);
 * out_offsets has batch + 1 entries. HEED_BUFFER_TOO_SMALL when out_capacity ids do not fit them
 * all (out_offsets[batch] then gives the number needed). */
heed_status heed_translate_ids(heed_translator* translator, const int32_t* ids, const size_t* offsets, size_t batch,
                               size_t beam, int32_t* out_ids, size_t out_capacity, size_t* out_offsets);

/* Decoding options of the *_with_options calls (docs/decoding.md has each with its CTranslate2
 * name). Call heed_decode_options_init first: it sets struct_size, which lets a newer heed read an
 * older caller's shorter struct (fields it lacks keep their defaults), and the defaults, which are
 * CTranslate2's translate_batch defaults: beam 2, length penalty 1, patience 1, min length 1, max
 * length 0 (the translator's max_target_length), greedy (top-k 1), no control. The arrays are
 * read during the call only. */
typedef struct heed_decode_options {
  size_t struct_size;           /* sizeof(heed_decode_options) of the caller */
  size_t beam_size;             /* 1: greedy or sampling, > 1: beam search (within max_beam) */
  float length_penalty;
  float patience;
  size_t min_length;            /* target tokens before the end token may come */
  size_t max_length;            /* decoder steps, end token included; 0: the translator's limit */
  size_t sampling_top_k;        /* beam 1: 1 greedy, 0 the whole vocabulary, K the K best */
  float sampling_top_p;
  float sampling_temperature;
  uint64_t seed;
  int disable_unk;              /* nonzero: the unknown token is never produced */
  float repetition_penalty;     /* 1: off */
  size_t no_repeat_ngram_size;  /* 0: off */
  const char* const* suppress_sequences;  /* sequences of space-separated target tokens */
  size_t num_suppress_sequences;
  const char* const* end_tokens;          /* target tokens that end a translation (none: </s>) */
  size_t num_end_tokens;
  size_t num_hypotheses;        /* heed_translate_hypotheses: hypotheses per text (n-best, 1) */
  int return_alternatives;      /* nonzero: CTranslate2's return_alternatives (beam_size 1) */
  /* heed_translate_hypotheses and heed_translate_stream only (the others refuse it): the
   * translation starts with this target text (the model's target tokenizer; space-separated tokens
   * for models without one), CTranslate2's target_prefix. NULL or "": none. */
  const char* target_prefix;
  /* nonzero: CTranslate2's use_vmap, each batch decodes over its vocabulary shortlist (a model
   * converted with `heed convert --vmap`; HEED_INVALID_ARGUMENT for a model without a map). */
  int use_vmap;
  /* Nonzero: the call stops with HEED_DEADLINE_EXCEEDED once it has run this many milliseconds
   * (looked at before each batch and each decoder step). 0: no limit. */
  uint64_t timeout_ms;
} heed_decode_options;

void heed_decode_options_init(heed_decode_options* options);

/* heed_translate_text / heed_translate_ids with every decoding option. A token of
 * suppress_sequences or end_tokens outside the target vocabulary is HEED_INVALID_ARGUMENT naming
 * it; options out of range as in heed_translate_text. */
heed_status heed_translate_text_with_options(heed_translator* translator, const char* text,
                                             const heed_decode_options* options, char* out, size_t out_capacity,
                                             size_t* out_length);
heed_status heed_translate_ids_with_options(heed_translator* translator, const int32_t* ids, const size_t* offsets,
                                            size_t batch, const heed_decode_options* options, int32_t* out_ids,
                                            size_t out_capacity, size_t* out_offsets);

/* n-best: translates `text` as one sentence (no sentence splitting; the translator's
 * max_beam bounds num_hypotheses) and calls `on_hypothesis` for each hypothesis, best first, with
 * its rank (0-based), its text (NUL-terminated, valid during the call) and score (the sum of its
 * token log-probs after any prefix / length^length_penalty, as CTranslate2 scores). Returning
 * nonzero stops the calls. */
typedef int (*heed_hypothesis_callback)(void* user, size_t rank, const char* text, float score);
heed_status heed_translate_hypotheses(heed_translator* translator, const char* text,
                                      const heed_decode_options* options, heed_hypothesis_callback on_hypothesis,
                                      void* user);

/* Attention weights (CTranslate2's return_attention): translates `text` as one sentence with
 * `options` (required, as for heed_translate_hypotheses) and writes the best hypothesis's attention over the source into
 * weights, row-major: one row per target token (the end token excluded) of *cols weights, one per
 * source token as the model reads it (an end token the model adds included), each row the last
 * decoder layer's cross-attention averaged over its heads. *rows and *cols are set on success and
 * on HEED_BUFFER_TOO_SMALL (capacity < rows x cols). The translator must have been created with
 * capture_attention set (else HEED_INVALID_ARGUMENT); heed_translator_create refuses
 * capture_attention for a model without cross-attention (an RNN with score "none"). */
heed_status heed_translate_attention(heed_translator* translator, const char* text, const heed_decode_options* options,
                                     float* weights, size_t capacity, size_t* rows, size_t* cols);

/* Streaming: translates `text` as one sentence with greedy search or sampling (options' beam_size
 * must be 1; NULL options: greedy) and calls `on_token` (heed_token_callback, below) for each
 * target token, target_prefix tokens included and the end token excluded, with its id and the
 * text it adds; returning nonzero stops the translation after that token. The whole translation
 * is written to out as heed_translate_text writes it (HEED_BUFFER_TOO_SMALL likewise). */
typedef int (*heed_token_callback)(void* user, int32_t id, const char* text, size_t text_length);
heed_status heed_translate_stream(heed_translator* translator, const char* text, const heed_decode_options* options,
                                  heed_token_callback on_token, void* user, char* out, size_t out_capacity,
                                  size_t* out_length);

/* Scoring (`heed score`): the log-prob of each token of `target` given `source` (both UTF-8 text,
 * tokenized by the model; the end token's log-prob last) into log_probs; *count is their number
 * (also on HEED_BUFFER_TOO_SMALL) and *total their sum. */
heed_status heed_score_text(heed_translator* translator, const char* source, const char* target, float* log_probs,
                            size_t capacity, size_t* count, float* total);

/* ---- generation (decoder-only models: llama2.c, GPT-2, Llama, OpenNMT language models) ------- */

typedef struct heed_generator heed_generator;

/* Call heed_generator_options_init first (struct_size and defaults, as for heed_decode_options). */
typedef struct heed_generator_options {
  size_t struct_size;
  size_t max_context;  /* positions per generation: start token + prompt + new tokens (0: the
                        * model's limit, or 1024 when it has none) */
  size_t threads;      /* 1 after init; 0: one per core */
  int backend;         /* a heed_backend value */
  uint32_t spin_microseconds; /* idle workers' spin before sleeping, as for translators (100 after init) */
} heed_generator_options;

void heed_generator_options_init(heed_generator_options* options);
/* A generator over `model` (which must outlive it); options may be NULL. A model that is not a
 * decoder-only language model is HEED_UNSUPPORTED_MODEL (message in the model). */
heed_status heed_generator_create(heed_model* model, const heed_generator_options* options,
                                  heed_generator** out_generator);
const char* heed_generator_last_error(const heed_generator* generator);
/* As heed_translator_cancel: the running generation returns HEED_CANCELLED. */
heed_status heed_generator_cancel(heed_generator* generator);
void heed_generator_free(heed_generator* generator);

/* Decoding of one generation. Call heed_generate_options_init first: struct_size, 256 new tokens,
 * greedy (temperature 0), top_k 0 (all), top_p 1, seed 0, no control, no stop string. The arrays
 * are read during the call only; tokens are the model's vocabulary entries. */
typedef struct heed_generate_options {
  size_t struct_size;
  size_t max_new_tokens;        /* generated tokens, the end token included; clipped to the context */
  float temperature;            /* 0: greedy; > 0: sampling at this temperature */
  size_t top_k;                 /* sampling among the K most likely tokens (0: all) */
  float top_p;
  uint64_t seed;                /* the same seed gives the same text on every platform */
  int disable_unk;
  float repetition_penalty;     /* 1: off */
  size_t no_repeat_ngram_size;  /* 0: off */
  const char* const* suppress_sequences;
  size_t num_suppress_sequences;
  const char* const* end_tokens;  /* tokens that end the generation (none: the model's end token) */
  size_t num_end_tokens;
  const char* const* stop;      /* text-level stop strings (heed_generate_text only): the text
                                 * stops before the first one that appears */
  size_t num_stop;
  uint64_t timeout_ms;          /* nonzero: HEED_DEADLINE_EXCEEDED after this many milliseconds */
} heed_generate_options;

void heed_generate_options_init(heed_generate_options* options);

/* Streaming (heed_token_callback, declared with heed_translate_stream): called for each generated
 * token (the end token excluded) with its id and the text it adds (`text_length` bytes, not
 * NUL-terminated; may be empty while a possible stop string is held back; text still held back when
 * the generation ends comes in a last call with id -1). Return 0 to go on, anything else to stop
 * the generation after this token. */

/* Continues UTF-8 `prompt` (tokenized with the model's tokenizer; "" starts from the start token)
 * and writes the continuation, NUL-terminated, to out; *out_length as for heed_translate_text
 * (HEED_BUFFER_TOO_SMALL when it does not fit). `on_token` may be NULL. */
heed_status heed_generate_text(heed_generator* generator, const char* prompt, const heed_generate_options* options,
                               heed_token_callback on_token, void* user, char* out, size_t out_capacity,
                               size_t* out_length);
/* One message of a chat: UTF-8 role ("system", "user", "assistant", ...) and content. */
typedef struct heed_chat_message {
  const char* role;
  const char* content;
} heed_chat_message;

/* The assistant's answer to `messages` (`count` of them): rendered in the chat format the model
 * file records (heed convert recognizes tokenizer_config.json's chat_template as ChatML, Llama 2,
 * Llama 3 or Zephyr, or as the templates Llama 3.1/3.2/3.3 Instruct and Qwen2.5 Instruct publish;
 * heed runs no Jinja), followed by the text that opens the answer, tokenized
 * with the special tokens recognized, then generated as heed_generate_text generates. A model
 * without a chat format, or with a template heed cannot render, is HEED_UNSUPPORTED_MODEL (the
 * message names the template). */
heed_status heed_generate_chat(heed_generator* generator, const heed_chat_message* messages, size_t count,
                               const heed_generate_options* options, heed_token_callback on_token, void* user,
                               char* out, size_t out_capacity, size_t* out_length);
/* Token-id level: `prompt` ids (no start token), the generated ids (end token excluded) to
 * out_ids; *out_length is their number (also on HEED_BUFFER_TOO_SMALL). stop is not used here. */
heed_status heed_generate_ids(heed_generator* generator, const int32_t* prompt, size_t prompt_length,
                              const heed_generate_options* options, heed_token_callback on_token, void* user,
                              int32_t* out_ids, size_t out_capacity, size_t* out_length);

/* ---- sentence embeddings (encoder-only models: `heed convert --from hf-bert`) ---------------- */

typedef struct heed_embedder heed_embedder;

typedef enum heed_pooling {
  HEED_POOLING_DEFAULT = 0,  /* the model's (metadata embedding.pooling), else mean */
  HEED_POOLING_MEAN = 1,     /* average of the last hidden states over the sentence's tokens */
  HEED_POOLING_CLS = 2       /* the [CLS] token's last hidden state */
} heed_pooling;

typedef struct heed_embedder_options {
  size_t struct_size; /* sizeof(heed_embedder_options) of the caller (heed_embedder_options_init) */
  size_t max_batch;   /* sentences per heed_embed_ids call (0: 8) */
  size_t max_length;  /* tokens per sentence, [CLS] and [SEP] included (0: the model's position table) */
  void* arena;        /* optional caller-provided session memory, as for translators */
  size_t arena_size;
  size_t threads;     /* 1 after heed_embedder_options_init; 0: one per core */
  uint32_t spin_microseconds; /* idle workers' spin before sleeping, as for translators (100 after init) */
} heed_embedder_options;

void heed_embedder_options_init(heed_embedder_options* options);
/* Builds an embedder over `model` (which must outlive it); options may be NULL. A model that is
 * not an encoder-only Transformer is refused (HEED_UNSUPPORTED_MODEL, message in the model). */
heed_status heed_embedder_create(heed_model* model, const heed_embedder_options* options,
                                 heed_embedder** out_embedder);
const char* heed_embedder_last_error(const heed_embedder* embedder);
void heed_embedder_free(heed_embedder* embedder);
/* Numbers per embedding (the model's d_model); 0 for NULL. */
size_t heed_embedder_dimension(const heed_embedder* embedder);

/* `pooling` is a heed_pooling value (an int, so that any value a caller passes is defined).
 * Embeds one sentence of UTF-8 text (BERT WordPiece tokenization, [CLS] ... [SEP], truncated to
 * max_length) into out[0 .. dimension). normalize != 0 divides it by its L2 norm.
 * HEED_BUFFER_TOO_SMALL when out_capacity < dimension. Tokenizing allocates; the session does not. */
heed_status heed_embed_text(heed_embedder* embedder, const char* text, int pooling, int normalize,
                            float* out, size_t out_capacity);
/* Token-id level, no allocation: sentence i is ids[offsets[i] .. offsets[i+1]) ([CLS] and [SEP]
 * included); writes batch x dimension floats to out (HEED_BUFFER_TOO_SMALL when out_capacity is
 * smaller). */
heed_status heed_embed_ids(heed_embedder* embedder, const int32_t* ids, const size_t* offsets, size_t batch,
                           int pooling, int normalize, float* out, size_t out_capacity);

/* ---- BERT task heads (`heed convert --from hf-bert` of BertForSequenceClassification and
 * BertForMaskedLM folders): text classification and fill-mask -------------------------------- */

typedef struct heed_classifier heed_classifier;
typedef struct heed_mask_filler heed_mask_filler;

/* A classifier or a mask filler over `model` (which must outlive it), with the embedder's options
 * (the same session limits: max_batch, max_length, arena, threads; NULL for the defaults). A model
 * without a sequence classification / masked-LM head is HEED_UNSUPPORTED_MODEL (message in the
 * model). Each handle keeps its last error; free with its _free function (NULL is accepted). */
heed_status heed_classifier_create(heed_model* model, const heed_embedder_options* options,
                                   heed_classifier** out_classifier);
heed_status heed_mask_filler_create(heed_model* model, const heed_embedder_options* options,
                                    heed_mask_filler** out_filler);
const char* heed_classifier_last_error(const heed_classifier* classifier);
const char* heed_mask_filler_last_error(const heed_mask_filler* filler);
void heed_classifier_free(heed_classifier* classifier);
void heed_mask_filler_free(heed_mask_filler* filler);

/* The number of labels (0 for NULL) and the name of label `id` (id2label; NULL when out of range),
 * valid while the classifier exists. */
size_t heed_classifier_num_labels(const heed_classifier* classifier);
const char* heed_classifier_label(const heed_classifier* classifier, size_t id);
/* One text (UTF-8; BERT WordPiece, [CLS] ... [SEP], truncated to max_length): out[0 .. num_labels)
 * gets each label's score (the logits through softmax, sigmoid or nothing, as the model's config
 * chose, like transformers' text-classification pipeline). HEED_BUFFER_TOO_SMALL when capacity <
 * num_labels. Tokenizing allocates; the session does not. */
heed_status heed_classify_text(heed_classifier* classifier, const char* text, float* out, size_t capacity);
/* Token-id level, no allocation: sentence i is ids[offsets[i] .. offsets[i+1]); batch x num_labels
 * scores (raw logits when `logits` != 0) to out. */
heed_status heed_classify_ids(heed_classifier* classifier, const int32_t* ids, const size_t* offsets, size_t batch,
                              int logits, float* out, size_t capacity);

/* The [MASK] token's id (-1 for NULL) and the vocabulary entry of an id (NULL when out of range). */
int32_t heed_mask_filler_mask_id(const heed_mask_filler* filler);
const char* heed_mask_filler_token(const heed_mask_filler* filler, int32_t id);

typedef struct heed_mask_candidate {
  int32_t id;  /* vocabulary id */
  float score; /* probability: a softmax over the vocabulary at the masked position */
} heed_mask_candidate;

/* Every [MASK] of `text` (in order) gets its top_k candidates, most likely first, at
 * out[m * top_k ..] (transformers' fill-mask pipeline). *masks is the number of masks (also on
 * HEED_BUFFER_TOO_SMALL, when capacity < masks x top_k). top_k from 1 to the vocabulary size. */
heed_status heed_fill_mask_text(heed_mask_filler* filler, const char* text, size_t top_k, heed_mask_candidate* out,
                                size_t capacity, size_t* masks);
/* Token-id level, no allocation: the masks of a batch (sentence i is ids[offsets[i] ..
 * offsets[i+1])), sentence by sentence. */
heed_status heed_fill_mask_ids(heed_mask_filler* filler, const int32_t* ids, const size_t* offsets, size_t batch,
                               size_t top_k, heed_mask_candidate* out, size_t capacity, size_t* masks);

#ifdef __cplusplus
}
#endif

#endif /* HEED_HEED_H_ */
