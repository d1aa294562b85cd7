// The sentence splitter (heed/sentence_splitter.h) per language, on ordinary and odd text. Every
// expected split is how a reader of the language splits the text.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heed/sentence_splitter.h"

namespace {

using Sentences = std::vector<std::string>;

Sentences split(std::string_view language, std::string_view text) {
  std::unique_ptr<heed::SentenceSplitter> splitter;
  const heed::Status created = heed::SentenceSplitter::create(language, &splitter);
  REQUIRE(created.message() == "");
  std::vector<std::string_view> views;
  const heed::Status s = splitter->split(text, &views);
  REQUIRE(s.message() == "");
  return Sentences(views.begin(), views.end());
}

}  // namespace

TEST_CASE("German: abbreviations, ordinals, street names, decimals and quotes") {
  CHECK(split("de", "Das ist z. B. ein Test. Wir treffen uns am 3. Oktober in der Hauptstr. 5 in Berlin. "
                    "Das kostet 3,50 Euro.") ==
        Sentences{"Das ist z. B. ein Test.", "Wir treffen uns am 3. Oktober in der Hauptstr. 5 in Berlin.",
                  "Das kostet 3,50 Euro."});
  // Words that end like a listed abbreviation ("r.", "am.", "u.") still end sentences.
  CHECK(split("de", "Er kam. Sie war hier. Wir gehen genau. Das war 1990. Dann kam die Wende.") ==
        Sentences{"Er kam.", "Sie war hier.", "Wir gehen genau.", "Das war 1990.", "Dann kam die Wende."});
  CHECK(split("de", "Vgl. Abs. 3 des Gesetzes. Es gilt seit dem 1. Januar 2020, bzw. seit Dr. Müllers Antrag.") ==
        Sentences{"Vgl. Abs. 3 des Gesetzes.", "Es gilt seit dem 1. Januar 2020, bzw. seit Dr. Müllers Antrag."});
  CHECK(split("de", "Er sagte: \xE2\x80\x9EJa.\xE2\x80\x9C Dann ging er. Der Wert stieg um 3.5 Prozent.") ==
        Sentences{"Er sagte: \xE2\x80\x9EJa.\xE2\x80\x9C", "Dann ging er.", "Der Wert stieg um 3.5 Prozent."});
  CHECK(split("de", "\xC2\xBBNein!\xC2\xAB Sie ging.") == Sentences{"\xC2\xBBNein!\xC2\xAB", "Sie ging."});
}

TEST_CASE("French: month and title abbreviations, page numbers") {
  CHECK(split("fr", "Il est n\xC3\xA9 en janv. 1990 \xC3\xA0 Paris. M. Dupont est arriv\xC3\xA9. "
                    "Voir p. 5 du rapport. Mme. Durand a 3,5 ans.") ==
        Sentences{"Il est n\xC3\xA9 en janv. 1990 \xC3\xA0 Paris.", "M. Dupont est arriv\xC3\xA9.",
                  "Voir p. 5 du rapport.", "Mme. Durand a 3,5 ans."});
  CHECK(split("fr", "C'est fini. \xC3\x89videmment. Fin. \xC3\xA9t\xC3\xA9.") ==
        Sentences{"C'est fini.", "\xC3\x89videmment.", "Fin. \xC3\xA9t\xC3\xA9."});
}

TEST_CASE("Spanish: titles, inverted marks, ordinal indicators") {
  CHECK(split("es", "El Sr. Garc\xC3\xAD" "a lleg\xC3\xB3 ayer. \xC2\xBFVendr\xC3\xA1 la Dra. L\xC3\xB3pez? "
                    "\xC2\xA1" "Claro que s\xC3\xAD! Vive en el 5.\xC2\xBA piso. Cuesta 3,5 euros.") ==
        Sentences{"El Sr. Garc\xC3\xAD" "a lleg\xC3\xB3 ayer.", "\xC2\xBFVendr\xC3\xA1 la Dra. L\xC3\xB3pez?",
                  "\xC2\xA1" "Claro que s\xC3\xAD!", "Vive en el 5.\xC2\xBA piso.", "Cuesta 3,5 euros."});
}

TEST_CASE("Russian: town, 'that is' and title abbreviations, decimals") {
  // Он живёт в г. Москва уже 10 лет. Это т. е. правда. Проф. Иванов пришёл. Цена 3.5 рубля.
  CHECK(split("ru", "\xD0\x9E\xD0\xBD \xD0\xB6\xD0\xB8\xD0\xB2\xD1\x91\xD1\x82 \xD0\xB2 \xD0\xB3. "
                    "\xD0\x9C\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0 \xD1\x83\xD0\xB6\xD0\xB5 10 \xD0\xBB\xD0\xB5\xD1\x82. "
                    "\xD0\xAD\xD1\x82\xD0\xBE \xD1\x82. \xD0\xB5. \xD0\xBF\xD1\x80\xD0\xB0\xD0\xB2\xD0\xB4\xD0\xB0. "
                    "\xD0\x9F\xD1\x80\xD0\xBE\xD1\x84. \xD0\x98\xD0\xB2\xD0\xB0\xD0\xBD\xD0\xBE\xD0\xB2 "
                    "\xD0\xBF\xD1\x80\xD0\xB8\xD1\x88\xD1\x91\xD0\xBB. \xD0\xA6\xD0\xB5\xD0\xBD\xD0\xB0 3.5 "
                    "\xD1\x80\xD1\x83\xD0\xB1\xD0\xBB\xD1\x8F.") ==
        Sentences{"\xD0\x9E\xD0\xBD \xD0\xB6\xD0\xB8\xD0\xB2\xD1\x91\xD1\x82 \xD0\xB2 \xD0\xB3. "
                  "\xD0\x9C\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0 \xD1\x83\xD0\xB6\xD0\xB5 10 \xD0\xBB\xD0\xB5\xD1\x82.",
                  "\xD0\xAD\xD1\x82\xD0\xBE \xD1\x82. \xD0\xB5. \xD0\xBF\xD1\x80\xD0\xB0\xD0\xB2\xD0\xB4\xD0\xB0.",
                  "\xD0\x9F\xD1\x80\xD0\xBE\xD1\x84. \xD0\x98\xD0\xB2\xD0\xB0\xD0\xBD\xD0\xBE\xD0\xB2 "
                  "\xD0\xBF\xD1\x80\xD0\xB8\xD1\x88\xD1\x91\xD0\xBB.",
                  "\xD0\xA6\xD0\xB5\xD0\xBD\xD0\xB0 3.5 \xD1\x80\xD1\x83\xD0\xB1\xD0\xBB\xD1\x8F."});
}

TEST_CASE("Chinese: full stops with or without a space, decimals, Latin text inside") {
  // 今天天气很好。你呢？我很好！价格是3.5元。 then "Hello. 你好。"
  CHECK(split("zh", "\xE4\xBB\x8A\xE5\xA4\xA9\xE5\xA4\xA9\xE6\xB0\x94\xE5\xBE\x88\xE5\xA5\xBD\xE3\x80\x82"
                    "\xE4\xBD\xA0\xE5\x91\xA2\xEF\xBC\x9F\xE6\x88\x91\xE5\xBE\x88\xE5\xA5\xBD\xEF\xBC\x81"
                    "\xE4\xBB\xB7\xE6\xA0\xBC\xE6\x98\xAF" "3.5\xE5\x85\x83\xE3\x80\x82 Hello. "
                    "\xE4\xBD\xA0\xE5\xA5\xBD\xE3\x80\x82") ==
        Sentences{"\xE4\xBB\x8A\xE5\xA4\xA9\xE5\xA4\xA9\xE6\xB0\x94\xE5\xBE\x88\xE5\xA5\xBD\xE3\x80\x82",
                  "\xE4\xBD\xA0\xE5\x91\xA2\xEF\xBC\x9F", "\xE6\x88\x91\xE5\xBE\x88\xE5\xA5\xBD\xEF\xBC\x81",
                  "\xE4\xBB\xB7\xE6\xA0\xBC\xE6\x98\xAF" "3.5\xE5\x85\x83\xE3\x80\x82", "Hello.",
                  "\xE4\xBD\xA0\xE5\xA5\xBD\xE3\x80\x82"});
  // 「はい。」と言った。 (Japanese): the closing bracket stays with its sentence.
  CHECK(split("ja", "\xE3\x80\x8C\xE3\x81\xAF\xE3\x81\x84\xE3\x80\x82\xE3\x80\x8D\xE3\x81\xA8\xE8\xA8\x80\xE3\x81\xA3"
                    "\xE3\x81\x9F\xE3\x80\x82") ==
        Sentences{"\xE3\x80\x8C\xE3\x81\xAF\xE3\x81\x84\xE3\x80\x82\xE3\x80\x8D",
                  "\xE3\x81\xA8\xE8\xA8\x80\xE3\x81\xA3\xE3\x81\x9F\xE3\x80\x82"});
}

TEST_CASE("English: titles, initials, dotted abbreviations, decimals, quotes") {
  CHECK(split("en", "Mr. Smith met Dr. Jones at 3.30 p.m. yesterday. They talked. He lives in the U.S. now.") ==
        Sentences{"Mr. Smith met Dr. Jones at 3.30 p.m. yesterday.", "They talked.", "He lives in the U.S. now."});
  CHECK(split("en", "\"Why?\" she asked. \"Because.\" He left.") ==
        Sentences{"\"Why?\" she asked.", "\"Because.\"", "He left."});
  CHECK(split("en", "J. R. R. Tolkien wrote it. It sold 1.5 million copies. He was 1st. She was 2nd.") ==
        Sentences{"J. R. R. Tolkien wrote it.", "It sold 1.5 million copies.", "He was 1st.", "She was 2nd."});
  CHECK(split("en", "Fruit, e.g. Apples, i.e. Red ones. Done.") == Sentences{"Fruit, e.g. Apples, i.e. Red ones.", "Done."});
  CHECK(split("en", "See No. 5 here. He said no. Then left.") == Sentences{"See No. 5 here.", "He said no.", "Then left."});
  CHECK(split("en", "A man (Dr. Who) came. B.") == Sentences{"A man (Dr. Who) came.", "B."});
  CHECK(split("en", "He left. (Nobody knew why.) Then rain.") == Sentences{"He left.", "(Nobody knew why.)", "Then rain."});
  // A list closed by "etc." ends its sentence before a capital (the old English rules kept it going).
  CHECK(split("en", "Tea, coffee, etc. The rest.") == Sentences{"Tea, coffee, etc.", "The rest."});
}

TEST_CASE("sentences end before an uppercase letter, a digit or an opening quote, not before a lowercase word") {
  CHECK(split("en", "Hello world. How are you? Fine! Thanks.") ==
        Sentences{"Hello world.", "How are you?", "Fine!", "Thanks."});
  CHECK(split("en", "Prices rose approx. 3 percent. Done.") == Sentences{"Prices rose approx. 3 percent.", "Done."});
  CHECK(split("en", "Wait?! Really?!") == Sentences{"Wait?!", "Really?!"});
  CHECK(split("en", "Pi is 3.14 roughly. ok then") == Sentences{"Pi is 3.14 roughly. ok then"});
  CHECK(split("en", "Visit example.com.Now") == Sentences{"Visit example.com.Now"});
  CHECK(split("en", "Why? because.") == Sentences{"Why? because."});
  CHECK(split("en", "\xE2\x80\x9CStop.\xE2\x80\x9D He stopped. 'Go!' 'Where?'") ==
        Sentences{"\xE2\x80\x9CStop.\xE2\x80\x9D", "He stopped.", "'Go!'", "'Where?'"});
  CHECK(split("en", "Da. \xD0\x9D\xD0\xB5\xD1\x82. Yes. \xCE\x9D\xCE\xB1\xCE\xB9.") ==
        Sentences{"Da.", "\xD0\x9D\xD0\xB5\xD1\x82.", "Yes.", "\xCE\x9D\xCE\xB1\xCE\xB9."});  // Нет, Ναι
}

TEST_CASE("the language picks the abbreviations: root and unknown languages have none") {
  std::unique_ptr<heed::SentenceSplitter> splitter;
  REQUIRE(heed::SentenceSplitter::create("", &splitter).is_ok());
  CHECK(splitter->locale() == "root");
  REQUIRE(heed::SentenceSplitter::create("xx", &splitter).is_ok());
  CHECK(splitter->locale() == "root");
  REQUIRE(heed::SentenceSplitter::create("pt_BR", &splitter).is_ok());
  CHECK(splitter->locale() == "pt_BR");
  CHECK(split("xx", "Mr. Smith came. Yes.") == Sentences{"Mr.", "Smith came.", "Yes."});
  CHECK(split("de", "Es ist ca. Mitternacht.") == Sentences{"Es ist ca. Mitternacht."});
  CHECK(split("en", "Es ist ca. Mitternacht.") == Sentences{"Es ist ca.", "Mitternacht."});
  // An ordinal number only where the language writes ordinals with a period.
  CHECK(split("en", "We came 3. Then left.") == Sentences{"We came 3.", "Then left."});
  const heed::Status bad = heed::SentenceSplitter::create("de_DE!", &splitter);
  CHECK(bad.code() == heed::StatusCode::kInvalidArgument);
  CHECK(bad.message().find("de_DE!") != std::string::npos);
}

TEST_CASE("lines stay apart: a sentence never runs across a line break") {
  CHECK(split("en", "One\ntwo. Three") == Sentences{"One", "two.", "Three"});
  CHECK(split("en", "Why?\nbecause.") == Sentences{"Why?", "because."});
}

TEST_CASE("odd text: empty, whitespace, only punctuation, no final punctuation") {
  CHECK(split("en", "").empty());
  CHECK(split("en", "   \t  ").empty());
  CHECK(split("en", "\xE3\x80\x80 \xE2\x80\x83").empty());  // ideographic space, em space
  CHECK(split("en", "?!.") == Sentences{"?!."});
  CHECK(split("en", ". . .") == Sentences{". . ."});
  CHECK(split("en", "...") == Sentences{"..."});
  CHECK(split("en", "  no final punctuation  ") == Sentences{"no final punctuation"});
  CHECK(split("en", "One. Two") == Sentences{"One.", "Two"});
  CHECK(split("en", "  Lead.   Trail.   ") == Sentences{"Lead.", "Trail."});
  CHECK(split("en", "Well... Maybe.") == Sentences{"Well...", "Maybe."});
  CHECK(split("en", "Mr... Who?") == Sentences{"Mr...", "Who?"});
  // A no-break space is not trimmed, and it does not stop an abbreviation from binding.
  CHECK(split("en", "Dr.\xC2\xA0Who. Yes.") == Sentences{"Dr.\xC2\xA0Who.", "Yes."});
}

TEST_CASE("invalid UTF-8 is refused with the first bad byte's offset, nothing split") {
  const std::pair<std::string, size_t> cases[] = {
      {"Bad \xFF\xFE bytes. Then more.", 4}, {"Cut. \xE2\x80", 5},          {"\xC3", 0},
      {"Over \xC0\xAF long.", 5},             {"X \xED\xA0\x80 surrogate.", 2}, {"A.\xF0\x9F\x98", 2},
      {"\xF4\x90\x80\x80. X.", 0},            {"Ok. \x80", 4}};
  std::unique_ptr<heed::SentenceSplitter> splitter;
  REQUIRE(heed::SentenceSplitter::create("en", &splitter).is_ok());
  for (const auto& [text, offset] : cases) {
    std::vector<std::string_view> sentences{"left over"};
    const heed::Status s = splitter->split(text, &sentences);
    CHECK(s.code() == heed::StatusCode::kInvalidArgument);
    CHECK(s.message() == "the text is not valid UTF-8 (byte " + std::to_string(offset) + ")");
    CHECK(sentences.empty());
  }
  // A NUL byte is valid UTF-8 and kept.
  CHECK(split("en", std::string("Nul\0byte. Ok.", 13)) == Sentences{std::string("Nul\0byte.", 9), "Ok."});
}

TEST_CASE("join_sentences joins non-empty translations with one space") {
  CHECK(heed::join_sentences({}).empty());
  CHECK(heed::join_sentences({"A.", "B."}) == "A. B.");
  CHECK(heed::join_sentences({"", "A.", "", "B.", ""}) == "A. B.");
}
