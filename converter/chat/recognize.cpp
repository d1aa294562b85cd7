#include "chat/recognize.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "chat/jinja_shape.h"
#include "chat/published.h"
#include "json_fields.h"
#include "source_files.h"

namespace heed::convert::chat {
namespace {

// Where a template carries the default system message; the shapes below hold it as a literal.
constexpr std::string_view kSystemSlot = "@SYSTEM@";

struct KnownTemplate {
  fb::ChatFormat format;
  bool leading_bos;
  const char* jinja;  // written for heed in each format's published layout
};

constexpr const char* kChatMlLoop =
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const std::string& chatml_system_first() {
  static const std::string t =
      "{% for message in messages %}"
      "{% if loop.first and messages[0]['role'] != 'system' %}"
      "{{ '<|im_start|>system\\n@SYSTEM@<|im_end|>\\n' }}{% endif %}"
      "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
      "{% endfor %}"
      "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
  return t;
}

const std::string& chatml_system_before() {
  static const std::string t = std::string(
      "{% if messages[0]['role'] != 'system' %}"
      "{{ '<|im_start|>system\\n@SYSTEM@<|im_end|>\\n' }}{% endif %}") + kChatMlLoop;
  return t;
}

constexpr const char* kLlama3Loop =
    "{% for message in messages %}"
    "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}";

const std::string& llama3_with_bos() {
  static const std::string t = std::string("{{ bos_token }}") + kLlama3Loop;
  return t;
}

constexpr const char* kLlama2 =
    "{% if messages[0]['role'] == 'system' %}"
    "{% set system = messages[0]['content'] %}{% set turns = messages[1:] %}"
    "{% else %}{% set system = '' %}{% set turns = messages %}{% endif %}"
    "{% for message in turns %}"
    "{% if message['role'] == 'user' and loop.index0 % 2 == 0 %}"
    "{% if loop.first and system %}"
    "{% set text = '<<SYS>>\\n' + system + '\\n<</SYS>>\\n\\n' + message['content'] %}"
    "{% else %}{% set text = message['content'] %}{% endif %}"
    "{{ bos_token + '[INST] ' + text | trim + ' [/INST]' }}"
    "{% elif message['role'] == 'assistant' and loop.index0 % 2 == 1 %}"
    "{{ ' ' + message['content'] | trim + ' ' + eos_token }}"
    "{% else %}{{ raise_exception('Roles must alternate user, assistant, user, ... after an optional system message') }}"
    "{% endif %}{% endfor %}";

constexpr const char* kZephyr =
    "{% for message in messages %}"
    "{{ '<|' + message['role'] + '|>\\n' + message['content'] + eos_token + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}";

std::vector<KnownTemplate> known_templates() {
  return {
      {fb::ChatFormat::ChatML, false, kChatMlLoop},
      {fb::ChatFormat::ChatML, false, chatml_system_first().c_str()},
      {fb::ChatFormat::ChatML, false, chatml_system_before().c_str()},
      {fb::ChatFormat::Llama3, false, kLlama3Loop},
      {fb::ChatFormat::Llama3, true, llama3_with_bos().c_str()},
      {fb::ChatFormat::Llama2, false, kLlama2},
      {fb::ChatFormat::Zephyr, false, kZephyr},
  };
}

// A literal's escaped text back to its value; false when it holds an unescaped quote (the slot
// then spans more than one literal).
bool slot_value(std::string_view escaped, std::string* value) {
  value->clear();
  for (size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] == '\'') return false;
    if (escaped[i] == '\\' && i + 1 < escaped.size()) ++i;
    *value += escaped[i];
  }
  return true;
}

// Whether `shape` is `known`'s shape, the slot (when `known` has one) filled by *system.
bool matches(const std::string& shape, const std::string& known, std::string* system) {
  const size_t slot = known.find(kSystemSlot);
  if (slot == std::string::npos) return shape == known;
  const std::string_view before(known.data(), slot);
  const std::string_view after = std::string_view(known).substr(slot + kSystemSlot.size());
  if (shape.size() < before.size() + after.size()) return false;
  if (shape.compare(0, before.size(), before) != 0) return false;
  if (shape.compare(shape.size() - after.size(), after.size(), after) != 0) return false;
  return slot_value(std::string_view(shape).substr(before.size(), shape.size() - before.size() - after.size()), system);
}

std::string first_line(const std::string& jinja) {
  std::string line = jinja.substr(0, jinja.find('\n'));
  if (line.size() > 120) line = line.substr(0, 117) + "...";
  return line;
}

}  // namespace

fb::ChatTemplateT recognize_chat_template(const std::string& jinja) {
  fb::ChatTemplateT out;
  std::string shape;
  if (jinja_shape(jinja, &shape)) {
    if (recognize_published(shape, &out)) return out;
    for (const KnownTemplate& k : known_templates()) {
      std::string known, system;
      jinja_shape(k.jinja, &known);
      if (!matches(shape, known, &system)) continue;
      out.format = k.format;
      out.leading_bos = k.leading_bos;
      out.default_system = system;
      return out;
    }
  }
  out.format = fb::ChatFormat::Unrecognized;
  out.first_line = first_line(jinja);
  return out;
}

bool read_chat_template(const std::string& dir, fb::ChatTemplateT* out) {
  const std::string path = dir + "/tokenizer_config.json";
  nlohmann::json config;
  if (!is_file(path)) return false;
  if (const Status read = read_json(path, &config); !read) {  // said, not silently taken as no template
    std::fprintf(stderr,
                 "heed convert: warning: %s; the file converts without a chat template, and chat generation "
                 "will be refused\n",
                 read.message().c_str());
    return false;
  }
  const auto found = config.find("chat_template");
  if (found == config.end() || found->is_null()) return false;
  std::string jinja;
  if (found->is_string()) {
    jinja = found->get<std::string>();
  } else if (found->is_array()) {  // named templates: the "default" one is the chat format
    for (const auto& named : *found) {
      if (named.is_object() && named.value("name", "") == "default" && named.value("template", nlohmann::json()).is_string()) {
        jinja = named["template"].get<std::string>();
      }
    }
  }
  *out = recognize_chat_template(jinja);
  if (out->format == fb::ChatFormat::Unrecognized) {
    std::fprintf(stderr,
                 "heed convert: warning: %s: chat_template is not one of the chat formats heed renders "
                 "(ChatML, Llama 2, Llama 3, Zephyr, and the templates Llama 3.1/3.2/3.3 Instruct and Qwen2.5 Instruct "
                 "publish); the file converts, but chat generation will be refused. "
                 "Its first line: %s\n",
                 path.c_str(), out->first_line.c_str());
  }
  return true;
}

}  // namespace heed::convert::chat
