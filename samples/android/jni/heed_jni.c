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
