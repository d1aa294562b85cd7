/* Chat generation through the C API from C99 (libheed.so.1, C linker): heed_generate_chat on a chat
 * model answers as heed_generate_text does on the chat's text in the model's format (ChatML here,
 * written out by chat_c_test.sh as the format defines it), a NULL role is HEED_INVALID_ARGUMENT and
 * a model without a chat format is HEED_UNSUPPORTED_MODEL with a message saying so.
 * usage: chat_c CHAT_MODEL.heed PLAIN_MODEL.heed CHATML_TEXT_FILE */
#include <stdio.h>
#include <string.h>

#include "c_expect.h"
#include "heed/heed.h"


static const heed_chat_message kChat[] = {{"system", "You are terse."}, {"user", "Tell me a story."}};

static heed_generator* open_generator(const char* path, heed_model** model) {
  heed_generator* g = NULL;
  char error[512];
  if (heed_model_open(path, model, error, sizeof error) != HEED_OK) return printf("FAIL: %s\n", error), NULL;
  if (heed_generator_create(*model, NULL, &g) != HEED_OK) return NULL;
  return g;
}

static size_t read_file(const char* path, char* out, size_t capacity) {
  FILE* f = fopen(path, "rb");
  size_t n = 0;
  if (f) {
    n = fread(out, 1, capacity - 1, f);
    fclose(f);
  }
  out[n] = '\0';
  return n;
}

int main(int argc, char** argv) {
  heed_model *chat_model = NULL, *plain_model = NULL;
  heed_generator *chat, *plain;
  heed_generate_options o;
  heed_chat_message bad[1] = {{NULL, "x"}};
  char text[4096], answer[4096], expected[4096];
  size_t length = 0, expected_length = 0;
  if (argc != 4) return printf("usage: chat_c CHAT_MODEL PLAIN_MODEL CHATML_TEXT_FILE\n"), 2;
  chat = open_generator(argv[1], &chat_model);
  plain = open_generator(argv[2], &plain_model);
  if (!chat || !plain) return printf("FAIL: cannot open the models\n"), 1;
  EXPECT(read_file(argv[3], text, sizeof text) > 0, "cannot read %s", argv[3]);
  heed_generate_options_init(&o);
  o.max_new_tokens = 16;
  EXPECT(heed_generate_chat(chat, kChat, 2, &o, NULL, NULL, answer, sizeof answer, &length) == HEED_OK, "%s",
         heed_generator_last_error(chat));
  EXPECT(heed_generate_text(chat, text, &o, NULL, NULL, expected, sizeof expected, &expected_length) == HEED_OK,
         "%s", heed_generator_last_error(chat));
  EXPECT(length > 0 && length == expected_length && memcmp(answer, expected, length) == 0,
         "chat answer '%s' differs from the text's '%s'", answer, expected);
  EXPECT(heed_generate_chat(chat, bad, 1, &o, NULL, NULL, answer, sizeof answer, &length) == HEED_INVALID_ARGUMENT,
         "a NULL role is not refused");
  EXPECT(heed_generate_chat(plain, kChat, 2, &o, NULL, NULL, answer, sizeof answer, &length) == HEED_UNSUPPORTED_MODEL &&
             strstr(heed_generator_last_error(plain), "no chat template") != NULL,
         "a model without a chat format: '%s'", heed_generator_last_error(plain));
  heed_generator_free(chat);
  heed_generator_free(plain);
  heed_model_free(chat_model);
  heed_model_free(plain_model);
  if (failures == 0) printf("chat_c: all passed\n");
  return failures == 0 ? 0 : 1;
}
