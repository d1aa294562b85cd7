/* JNI glue between org.heed.Translator (Java) and heed's C API. It uses heed/heed.h only, so it
 * builds with any C compiler against the installed or embedded heed runtime (NDK or host JDK).
 * Text crosses as UTF-8 byte arrays (Java encodes and decodes them), failures as
 * org.heed.HeedException carrying the heed_status and the handle's message. */
#include <jni.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heed/heed.h"

/* What a Java Translator's `handle` points to. */
typedef struct heed_jni_translator {
  heed_model* model;
  heed_translator* translator;
  char* out; /* the translation buffer, grown when a translation does not fit */
  size_t capacity;
} heed_jni_translator;

static void throw_heed(JNIEnv* env, heed_status status, const char* message) {
  jclass type = (*env)->FindClass(env, "org/heed/HeedException");
  jmethodID init;
  jstring text;
  jobject error;
  char line[1024];
  if (type == NULL) return; /* NoClassDefFoundError is pending */
  init = (*env)->GetMethodID(env, type, "<init>", "(ILjava/lang/String;)V");
  if (init == NULL) return;
  snprintf(line, sizeof line, "%s: %s", heed_status_name(status), message && message[0] ? message : "(no message)");
  text = (*env)->NewStringUTF(env, line); /* heed's messages are ASCII or UTF-8 without NUL */
  if (text == NULL) return;
  error = (*env)->NewObject(env, type, init, (jint)status, text);
  if (error != NULL) (*env)->Throw(env, (jthrowable)error);
}

static void throw_java(JNIEnv* env, const char* class_name, const char* message) {
  jclass type = (*env)->FindClass(env, class_name);
  if (type != NULL) (*env)->ThrowNew(env, type, message);
}

/* The bytes of `array` followed by a NUL, in memory the caller frees; NULL after throwing. */
static char* nul_terminated(JNIEnv* env, jbyteArray array) {
  jsize n;
  char* s;
  if (array == NULL) {
    throw_java(env, "java/lang/NullPointerException", "null text");
    return NULL;
  }
  n = (*env)->GetArrayLength(env, array);
  s = (char*)malloc((size_t)n + 1);
  if (s == NULL) {
    throw_java(env, "java/lang/OutOfMemoryError", "heed_jni: no memory for the text");
    return NULL;
  }
  (*env)->GetByteArrayRegion(env, array, 0, n, (jbyte*)s);
  s[n] = '\0';
  return s;
}

static size_t non_negative(jint v) { return v > 0 ? (size_t)v : 0; }

JNIEXPORT jstring JNICALL Java_org_heed_Translator_version(JNIEnv* env, jclass type) {
  (void)type;
  return (*env)->NewStringUTF(env, heed_version());
}

JNIEXPORT jlong JNICALL Java_org_heed_Translator_nativeOpen(JNIEnv* env, jclass type, jbyteArray path_bytes,
                                                            jint max_batch, jint max_beam, jint max_source_length,
                                                            jint max_target_length, jint threads,
                                                            jboolean split_sentences) {
  char error[512];
  heed_translator_options options;
  heed_jni_translator* h;
  heed_status status;
  char* path;
  (void)type;
  if (max_batch < 0 || max_beam < 0 || max_source_length < 0 || max_target_length < 0 || threads < 0) {
    throw_java(env, "java/lang/IllegalArgumentException", "translator options must not be negative");
    return 0;
  }
  path = nul_terminated(env, path_bytes);
  if (path == NULL) return 0;
  h = (heed_jni_translator*)calloc(1, sizeof *h);
  if (h == NULL) {
    free(path);
    throw_java(env, "java/lang/OutOfMemoryError", "heed_jni: no memory for the translator");
    return 0;
  }
  status = heed_model_open(path, &h->model, error, sizeof error);
  free(path);
  if (status != HEED_OK) {
    free(h);
    throw_heed(env, status, error);
    return 0;
  }
  heed_translator_options_init(&options);
  options.max_batch = non_negative(max_batch);
  options.max_beam = non_negative(max_beam);
  options.max_source_length = non_negative(max_source_length);
  options.max_target_length = non_negative(max_target_length);
  options.threads = non_negative(threads);
  options.no_sentence_split = split_sentences ? 0 : 1;
  status = heed_translator_create(h->model, &options, &h->translator);
  if (status != HEED_OK) {
    throw_heed(env, status, heed_model_last_error(h->model));
    heed_model_free(h->model);
    free(h);
    return 0;
  }
  /* Room for most translations: a longer one is translated again into a buffer of its size. */
  h->capacity = 4096;
  h->out = (char*)malloc(h->capacity);
  if (h->out == NULL) h->capacity = 0;
  return (jlong)(intptr_t)h;
}

JNIEXPORT jbyteArray JNICALL Java_org_heed_Translator_nativeTranslate(JNIEnv* env, jclass type, jlong handle,
                                                                      jbyteArray text_bytes, jint beam) {
  heed_jni_translator* h = (heed_jni_translator*)(intptr_t)handle;
  size_t length = 0;
  heed_status status;
  jbyteArray result;
  char* text;
  (void)type;
  if (h == NULL) {
    throw_java(env, "java/lang/IllegalStateException", "the translator is closed");
    return NULL;
  }
  if (beam < 1) {
    throw_heed(env, HEED_INVALID_ARGUMENT, "beam must be at least 1");
    return NULL;
  }
  text = nul_terminated(env, text_bytes);
  if (text == NULL) return NULL;
  status = heed_translate_text(h->translator, text, (size_t)beam, h->out, h->capacity, &length);
  if (status == HEED_BUFFER_TOO_SMALL) {
    /* The needed size is known now: grow the buffer once and translate again. */
    char* bigger = (char*)realloc(h->out, length + 1);
    if (bigger == NULL) {
      free(text);
      throw_java(env, "java/lang/OutOfMemoryError", "heed_jni: no memory for the translation");
      return NULL;
    }
    h->out = bigger;
    h->capacity = length + 1;
    status = heed_translate_text(h->translator, text, (size_t)beam, h->out, h->capacity, &length);
  }
  free(text);
  if (status != HEED_OK) {
    throw_heed(env, status, heed_translator_last_error(h->translator));
    return NULL;
  }
  if (length > (size_t)INT_MAX) {
    throw_heed(env, HEED_LIMIT_EXCEEDED, "the translation is larger than a Java array");
    return NULL;
  }
  result = (*env)->NewByteArray(env, (jsize)length);
  if (result == NULL) return NULL; /* OutOfMemoryError is pending */
  (*env)->SetByteArrayRegion(env, result, 0, (jsize)length, (const jbyte*)h->out);
  return result;
}

JNIEXPORT void JNICALL Java_org_heed_Translator_nativeClose(JNIEnv* env, jclass type, jlong handle) {
  heed_jni_translator* h = (heed_jni_translator*)(intptr_t)handle;
  (void)env;
  (void)type;
  if (h == NULL) return;
  heed_translator_free(h->translator);
  heed_model_free(h->model);
  free(h->out);
  free(h);
}

/* A Java byte[] holding `length` bytes of `data`; NULL with an exception pending. */
static jbyteArray to_bytes(JNIEnv* env, const char* data, size_t length) {
  jbyteArray a;
  if (length > (size_t)INT_MAX) {
    throw_heed(env, HEED_LIMIT_EXCEEDED, "the text is larger than a Java array");
    return NULL;
  }
  a = (*env)->NewByteArray(env, (jsize)length);
  if (a != NULL && length > 0) (*env)->SetByteArrayRegion(env, a, 0, (jsize)length, (const jbyte*)data);
  return a;
}

/* ---- n-best --------------------------------------------------------------------------------- */

typedef struct {
  JNIEnv* env;
  jobjectArray texts; /* byte[][] of `count` slots */
  jfloatArray scores;
  size_t count;
} heed_jni_hypotheses;

static int keep_hypothesis(void* user, size_t rank, const char* text, float score) {
  heed_jni_hypotheses* h = (heed_jni_hypotheses*)user;
  JNIEnv* env = h->env;
  jbyteArray bytes;
  if (rank >= h->count) return 1;
  bytes = to_bytes(env, text, strlen(text));
  if (bytes == NULL) return 1;
  (*env)->SetObjectArrayElement(env, h->texts, (jsize)rank, bytes);
  (*env)->DeleteLocalRef(env, bytes);
  (*env)->SetFloatArrayRegion(env, h->scores, (jsize)rank, 1, &score);
  return (*env)->ExceptionCheck(env) ? 1 : 0;
}

JNIEXPORT jobjectArray JNICALL Java_org_heed_Translator_nativeHypotheses(JNIEnv* env, jclass type, jlong handle,
                                                                         jbyteArray text_bytes, jint beam, jint count,
                                                                         jfloatArray scores) {
  heed_jni_translator* t = (heed_jni_translator*)(intptr_t)handle;
  heed_decode_options options;
  heed_jni_hypotheses h;
  heed_status status;
  jclass bytes_type;
  char* text;
  (void)type;
  if (t == NULL) {
    throw_java(env, "java/lang/IllegalStateException", "the translator is closed");
    return NULL;
  }
  if (beam < 1 || count < 1 || (*env)->GetArrayLength(env, scores) < count) {
    throw_heed(env, HEED_INVALID_ARGUMENT, "beam and count must be at least 1");
    return NULL;
  }
  bytes_type = (*env)->FindClass(env, "[B");
  if (bytes_type == NULL) return NULL;
  h.env = env;
  h.texts = (*env)->NewObjectArray(env, count, bytes_type, NULL);
  h.scores = scores;
  h.count = (size_t)count;
  if (h.texts == NULL) return NULL;
  text = nul_terminated(env, text_bytes);
  if (text == NULL) return NULL;
  heed_decode_options_init(&options);
  options.beam_size = (size_t)beam;
  options.num_hypotheses = (size_t)count;
  status = heed_translate_hypotheses(t->translator, text, &options, keep_hypothesis, &h);
  free(text);
  if ((*env)->ExceptionCheck(env)) return NULL;
  if (status != HEED_OK) {
    throw_heed(env, status, heed_translator_last_error(t->translator));
    return NULL;
  }
  return h.texts;
}

/* ---- generation ----------------------------------------------------------------------------- */

typedef struct heed_jni_generator {
  heed_model* model;
  heed_generator* generator;
  char* out;
  size_t capacity;
} heed_jni_generator;

JNIEXPORT jlong JNICALL Java_org_heed_Generator_nativeOpen(JNIEnv* env, jclass type, jbyteArray path_bytes,
                                                           jint threads) {
  char error[512];
  heed_generator_options options;
  heed_jni_generator* g;
  heed_status status;
  char* path;
  (void)type;
  path = nul_terminated(env, path_bytes);
  if (path == NULL) return 0;
  g = (heed_jni_generator*)calloc(1, sizeof *g);
  if (g == NULL) {
    free(path);
    throw_java(env, "java/lang/OutOfMemoryError", "heed_jni: no memory for the generator");
    return 0;
  }
  status = heed_model_open(path, &g->model, error, sizeof error);
  free(path);
  if (status != HEED_OK) {
    free(g);
    throw_heed(env, status, error);
    return 0;
  }
  heed_generator_options_init(&options);
  options.threads = non_negative(threads);
  status = heed_generator_create(g->model, &options, &g->generator);
  if (status != HEED_OK) {
    throw_heed(env, status, heed_model_last_error(g->model));
    heed_model_free(g->model);
    free(g);
    return 0;
  }
  return (jlong)(intptr_t)g;
}

/* One generation's state: the text collected from the callback (so a listener that stops the
 * generation and a text of any length both work) and the Java Stream to report to, if any. */
typedef struct {
  JNIEnv* env;
  jobject stream;
  jmethodID on_token;
  heed_jni_generator* g;
  size_t length;
  int out_of_memory;
} heed_jni_stream;

static int append_text(heed_jni_stream* s, const char* text, size_t length) {
  heed_jni_generator* g = s->g;
  if (s->length + length + 1 > g->capacity) {
    size_t capacity = (s->length + length + 1) * 2;
    char* bigger = (char*)realloc(g->out, capacity);
    if (bigger == NULL) {
      s->out_of_memory = 1;
      return 0;
    }
    g->out = bigger;
    g->capacity = capacity;
  }
  memcpy(g->out + s->length, text, length);
  s->length += length;
  return 1;
}

static int forward_token(void* user, int32_t id, const char* text, size_t length) {
  heed_jni_stream* s = (heed_jni_stream*)user;
  JNIEnv* env = s->env;
  jboolean go_on;
  jbyteArray bytes;
  if (!append_text(s, text, length)) return 1;
  if (s->stream == NULL) return 0;
  bytes = to_bytes(env, text, length);
  if (bytes == NULL) return 1;
  go_on = (*env)->CallBooleanMethod(env, s->stream, s->on_token, (jint)id, bytes);
  (*env)->DeleteLocalRef(env, bytes);
  return (*env)->ExceptionCheck(env) || !go_on ? 1 : 0; /* an exception in the listener stops it */
}

JNIEXPORT jbyteArray JNICALL Java_org_heed_Generator_nativeGenerate(JNIEnv* env, jclass type, jlong handle,
                                                                    jbyteArray prompt_bytes, jint max_new_tokens,
                                                                    jobject stream_object) {
  heed_jni_generator* g = (heed_jni_generator*)(intptr_t)handle;
  heed_generate_options options;
  heed_jni_stream stream;
  heed_status status;
  size_t length = 0;
  char unused[1];
  char* prompt;
  (void)type;
  if (g == NULL) {
    throw_java(env, "java/lang/IllegalStateException", "the generator is closed");
    return NULL;
  }
  memset(&stream, 0, sizeof stream);
  stream.env = env;
  stream.g = g;
  if (stream_object != NULL) {
    stream.stream = stream_object;
    stream.on_token = (*env)->GetMethodID(env, (*env)->GetObjectClass(env, stream_object), "onToken", "(I[B)Z");
    if (stream.on_token == NULL) return NULL;
  }
  prompt = nul_terminated(env, prompt_bytes);
  if (prompt == NULL) return NULL;
  heed_generate_options_init(&options);
  options.max_new_tokens = non_negative(max_new_tokens);
  /* The text comes through forward_token; the C API's own copy is not needed (too small is fine). */
  status = heed_generate_text(g->generator, prompt, &options, forward_token, &stream, unused, sizeof unused, &length);
  free(prompt);
  if ((*env)->ExceptionCheck(env)) return NULL;
  if (stream.out_of_memory) {
    throw_java(env, "java/lang/OutOfMemoryError", "heed_jni: no memory for the text");
    return NULL;
  }
  if (status != HEED_OK && status != HEED_BUFFER_TOO_SMALL) {
    throw_heed(env, status, heed_generator_last_error(g->generator));
    return NULL;
  }
  return to_bytes(env, g->out, stream.length);
}

JNIEXPORT void JNICALL Java_org_heed_Generator_nativeClose(JNIEnv* env, jclass type, jlong handle) {
  heed_jni_generator* g = (heed_jni_generator*)(intptr_t)handle;
  (void)env;
  (void)type;
  if (g == NULL) return;
  heed_generator_free(g->generator);
  heed_model_free(g->model);
  free(g->out);
  free(g);
}
