#include "chat/jinja_shape.h"

#include <cctype>
#include <vector>

namespace heed::convert::chat {
namespace {

struct Piece {
  char kind = 't';  // 't' text, '{' expression, '%' statement, '#' comment
  std::string body;
  bool trim_before = false;  // {%- : the whitespace before the tag is removed
  bool trim_after = false;   // -%} : the whitespace after it is removed
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Where the tag opened at `open` (after its two characters) closes, quotes respected; npos if never.
size_t tag_end(std::string_view s, size_t from, char kind) {
  const char close = kind == '{' ? '}' : kind;
  char quote = 0;
  for (size_t i = from; i + 1 < s.size(); ++i) {
    const char c = s[i];
    if (quote != 0) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (kind != '#' && (c == '\'' || c == '"')) {
      quote = c;
    } else if (c == close && s[i + 1] == '}') {
      return i;
    }
  }
  return std::string_view::npos;
}

// Where the next "{{", "{%" or "{#" starts at or after `from`; s.size() when none does.
size_t next_tag(std::string_view s, size_t from) {
  for (size_t open = s.find('{', from); open != std::string_view::npos && open + 1 < s.size();
       open = s.find('{', open + 1)) {
    if (s[open + 1] == '{' || s[open + 1] == '%' || s[open + 1] == '#') return open;
  }
  return s.size();
}

bool split(std::string_view s, std::vector<Piece>* out) {
  size_t i = 0;
  while (i < s.size()) {
    const size_t open = next_tag(s, i);
    if (open > i) out->push_back({'t', std::string(s.substr(i, open - i))});
    if (open == s.size()) break;
    Piece tag;
    tag.kind = s[open + 1];
    size_t from = open + 2;
    if (from < s.size() && (s[from] == '-' || s[from] == '+')) tag.trim_before = s[from++] == '-';
    const size_t end = tag_end(s, from, tag.kind);
    if (end == std::string_view::npos) return false;
    size_t body_end = end;
    if (body_end > from && (s[body_end - 1] == '-' || s[body_end - 1] == '+')) tag.trim_after = s[--body_end] == '-';
    tag.body = std::string(s.substr(from, body_end - from));
    out->push_back(std::move(tag));
    i = end + 2;
  }
  return true;
}

// The whitespace after a tag: all of it after a '-' marker; after a block tag (statement or
// comment) the newline right after it (trim_blocks).
void trim_after_tag(const Piece& tag, std::string* t) {
  if (tag.trim_after) {
    size_t n = 0;
    while (n < t->size() && is_space((*t)[n])) ++n;
    t->erase(0, n);  // one erase: a long run of whitespace stays linear
  } else if (tag.kind != '{' && !t->empty() && t->front() == '\n') {
    t->erase(0, 1);
  }
}

// The whitespace before a tag: all of it before a '-' marker; before a block tag the spaces and
// tabs between the start of its line and itself (lstrip_blocks), when the text holds that line's
// start (`starts_line`: the text starts the template; else a newline inside it).
void trim_before_tag(const Piece& tag, bool starts_line, std::string* t) {
  if (tag.trim_before) {
    while (!t->empty() && is_space(t->back())) t->pop_back();
    return;
  }
  if (tag.kind == '{') return;
  size_t cut = t->size();
  while (cut > 0 && ((*t)[cut - 1] == ' ' || (*t)[cut - 1] == '\t')) --cut;
  if ((cut == 0 && starts_line) || (cut > 0 && (*t)[cut - 1] == '\n')) t->erase(cut);
}

void control_whitespace(std::vector<Piece>* pieces) {
  for (size_t k = 0; k < pieces->size(); ++k) {
    Piece& p = (*pieces)[k];
    if (p.kind != 't') continue;
    // lstrip_blocks looks at the source text, before trim_blocks takes its newline.
    if (k + 1 < pieces->size()) trim_before_tag((*pieces)[k + 1], k == 0, &p.body);
    if (k > 0) trim_after_tag((*pieces)[k - 1], &p.body);
  }
}

char unescape(char c) {
  switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    default: return c;
  }
}

// A string literal's value from the quote at s[*i]; *i moves past the closing quote.
std::string literal_value(std::string_view s, size_t* i) {
  const char quote = s[(*i)++];
  std::string value;
  while (*i < s.size() && s[*i] != quote) {
    if (s[*i] == '\\' && *i + 1 < s.size()) value += unescape(s[++*i]);
    else value += s[*i];
    ++*i;
  }
  ++*i;
  return value;
}

std::string quoted(const std::string& value) {
  std::string out = "'";
  for (const char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

size_t skip_spaces(std::string_view s, size_t i) {
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}

// Code outside literals: `x.role` and `x.content` written `x['role']`, `x['content']`.
std::string subscript_fields(std::string code) {
  for (const char* field : {"role", "content"}) {
    const std::string dotted = std::string(".") + field;
    for (size_t at = code.find(dotted); at != std::string::npos; at = code.find(dotted, at + 1)) {
      const size_t end = at + dotted.size();
      const bool whole = end == code.size() || !is_name_char(code[end]);
      if (at > 0 && whole) code.replace(at, dotted.size(), std::string("['") + field + "']");
    }
  }
  return code;
}

// An expression or statement body in the canonical spelling; 'a' + 'b' joined into 'ab'.
std::string canonical_body(std::string_view s) {
  std::string out, code;
  size_t i = 0;
  while (i < s.size()) {
    if (is_space(s[i])) {
      i = skip_spaces(s, i);
      // `not x` and `notx` differ: one space is kept between two name characters.
      if (!code.empty() && i < s.size() && is_name_char(code.back()) && is_name_char(s[i])) code += ' ';
    } else if (s[i] == '\'' || s[i] == '"') {
      std::string value = literal_value(s, &i);
      for (size_t next = skip_spaces(s, i); next < s.size() && s[next] == '+';) {
        const size_t quote = skip_spaces(s, next + 1);
        if (quote >= s.size() || (s[quote] != '\'' && s[quote] != '"')) break;
        i = quote;
        value += literal_value(s, &i);
        next = skip_spaces(s, i);
      }
      out += subscript_fields(std::move(code)) + quoted(value);
      code.clear();
    } else {
      code += s[i++];
    }
  }
  return out + subscript_fields(std::move(code));
}

// A literal-only expression's value ('...' with nothing else); false otherwise.
bool only_literal(const std::string& body, std::string* value) {
  if (body.size() < 2 || body.front() != '\'' || body.back() != '\'') return false;
  size_t i = 0;
  *value = literal_value(body, &i);
  return i == body.size();
}

}  // namespace

bool jinja_shape(std::string_view jinja, std::string* shape) {
  std::vector<Piece> pieces;
  for (size_t i = 0; i < jinja.size(); ++i) {
    if (jinja[i] == '\0') return false;
  }
  if (!split(jinja, &pieces)) return false;
  control_whitespace(&pieces);
  shape->clear();
  std::string pending;  // joined literal output not yet written
  bool has_pending = false;
  auto flush = [&] {
    if (has_pending) *shape += "{{" + quoted(pending) + "}}";
    pending.clear();
    has_pending = false;
  };
  for (const Piece& p : pieces) {
    std::string value;
    if (p.kind == '#' || (p.kind == 't' && p.body.empty())) continue;
    const std::string body = p.kind == 't' ? quoted(p.body) : canonical_body(p.body);
    if (p.kind != '%' && only_literal(body, &value)) {
      pending += value;
      has_pending = true;
      continue;
    }
    flush();
    *shape += p.kind == '{' ? "{{" + body + "}}" : "{%" + body + "%}";
  }
  flush();
  return true;
}

}  // namespace heed::convert::chat
