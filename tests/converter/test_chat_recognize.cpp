// Chat template recognition (converter/chat/): spellings of one shape are one format, its parameters
// read out; any other template, a broken one included, is Unrecognized with its first line kept.
// The renderings themselves are compared with Jinja's in tests/python/test_chat_templates.py.
#include <string>

#include <catch2/catch.hpp>

#include "chat/jinja_shape.h"
#include "chat/published.h"
#include "chat/recognize.h"

using heed::convert::chat::recognize_chat_template;
namespace fb = heed::fb;

namespace {

const std::string kChatMlBody =
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}";

std::string chatml_with_system(const std::string& system_literal) {
  return "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
         "{{ '<|im_start|>system\\n" + system_literal + "<|im_end|>\\n' }}{% endif %}" + kChatMlBody +
         "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
}

}  // namespace

TEST_CASE("chat templates: ChatML in other spellings is ChatML without a default system message") {
  const std::string spaced =
      "{%- for message in messages -%}\n"
      "  {{- \"<|im_start|>\" + message.role + \"\\n\" + message.content + \"<|im_end|>\" + \"\\n\" -}}\n"
      "{%- endfor %}\n"
      "{# the answer starts here #}\n"
      "{%- if add_generation_prompt %}{{ '<|im_start|>' }}{{ 'assistant\\n' }}{% endif %}";
  const fb::ChatTemplateT t = recognize_chat_template(spaced);
  CHECK(t.format == fb::ChatFormat::ChatML);
  CHECK(t.default_system.empty());
}

TEST_CASE("chat templates: ChatML's default system message is read out, escapes resolved") {
  const fb::ChatTemplateT t = recognize_chat_template(chatml_with_system("You\\'re \"SmolLM\", trained\\\\by HF"));
  REQUIRE(t.format == fb::ChatFormat::ChatML);
  CHECK(t.default_system == "You're \"SmolLM\", trained\\by HF");
  const fb::ChatTemplateT empty = recognize_chat_template(chatml_with_system(""));
  REQUIRE(empty.format == fb::ChatFormat::ChatML);
  CHECK(empty.default_system.empty());
}

TEST_CASE("chat templates: anything else is Unrecognized with its first line") {
  const std::string plain = "{% for message in messages %}" + kChatMlBody + "{% endfor %}";
  const char* others[] = {
      // text a Jinja rendering would write (no '-' marker removes the spaces after endfor)
      "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + "
      "'<|im_end|>\\n' }}{% endfor %}  {% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}",
      "{% for message in messages %}\n{{ message['content'] }}",  // unclosed block, missing generation prompt
      "{{ 'unclosed string }}",
      "{% for message in messages %}{{ '<|im_start|>' + message['role'] ",
      "",
  };
  CHECK(recognize_chat_template(plain).format == fb::ChatFormat::Unrecognized);
  for (const char* other : others) {
    const fb::ChatTemplateT t = recognize_chat_template(other);
    CHECK(t.format == fb::ChatFormat::Unrecognized);
    const std::string line = std::string(other).substr(0, std::string(other).find('\n'));
    CHECK(t.first_line == (line.size() <= 120 ? line : line.substr(0, 117) + "..."));  // long lines shortened
  }
  // A system message slot spanning two literals is not one message.
  CHECK(recognize_chat_template(chatml_with_system("a' + message['role'] + 'b")).format == fb::ChatFormat::Unrecognized);
}

TEST_CASE("chat templates: a megabyte of whitespace control is handled") {
  const std::string t = "{%- for message in messages -%}" + std::string(1 << 20, ' ') + kChatMlBody +
                        "{%- endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
  CHECK(recognize_chat_template(t).format == fb::ChatFormat::ChatML);
}

TEST_CASE("chat templates: names stay apart in a shape, published templates are named by SHA-256") {
  std::string with_space, without_space;
  REQUIRE(heed::convert::chat::jinja_shape("{%- if not  x %}a{% endif %}", &with_space));
  REQUIRE(heed::convert::chat::jinja_shape("{%- if notx %}a{% endif %}", &without_space));
  CHECK(with_space == "{%if not x%}{{'a'}}{%endif%}");
  CHECK(without_space == "{%if notx%}{{'a'}}{%endif%}");
  // FIPS 180-2's example, as sha256sum prints it.
  CHECK(heed::convert::chat::shape_digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // The real published templates and their renderings: tests/python/test_chat_templates.py.
}
