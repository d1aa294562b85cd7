// The sentence splitter (heed/sentence_splitter.h) on ordinary and odd text.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "allocation_counter.h"
#include "heed/sentence_splitter.h"

namespace {

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view s : heed::split_sentences(text)) out.emplace_back(s);
  return out;
}

using Sentences = std::vector<std::string>;

}  // namespace

TEST_CASE("sentences end after . ! ? before an uppercase letter, a digit or an opening quote") {
  CHECK(split("Hello world. How are you? Fine! Thanks.") ==
        Sentences{"Hello world.", "How are you?", "Fine!", "Thanks."});
  CHECK(split("It cost 42 euros. 3 books were sold.") == Sentences{"It cost 42 euros.", "3 books were sold."});
  CHECK(split("He left. \"Why?\" she asked.") == Sentences{"He left.", "\"Why?\" she asked."});
  CHECK(split("He left. (Nobody knew why.) Then rain.") == Sentences{"He left.", "(Nobody knew why.)", "Then rain."});
  CHECK(split("Wait?! Really?!") == Sentences{"Wait?!", "Really?!"});
}

TEST_CASE("no sentence end before a lowercase word, inside numbers or without whitespace") {
  CHECK(split("Pi is 3.14 roughly. ok then") == Sentences{"Pi is 3.14 roughly. ok then"});
  CHECK(split("Visit example.com.Now") == Sentences{"Visit example.com.Now"});
  CHECK(split("Why? because.") == Sentences{"Why? because."});
}

TEST_CASE("abbreviations, initials and numbering words do not end a sentence") {
  CHECK(split("Mr. Smith met Dr. Jones. They talked.") == Sentences{"Mr. Smith met Dr. Jones.", "They talked."});
  CHECK(split("Fruit, e.g. Apples, i.e. Red ones. Done.") == Sentences{"Fruit, e.g. Apples, i.e. Red ones.", "Done."});
  CHECK(split("Tea, coffee, etc. The rest.") == Sentences{"Tea, coffee, etc. The rest."});
  CHECK(split("J. R. R. Tolkien wrote it. Yes.") == Sentences{"J. R. R. Tolkien wrote it.", "Yes."});
  CHECK(split("He lives in the U.S. Since 2010.") == Sentences{"He lives in the U.S. Since 2010."});
  // "No." numbers only before a digit; before a word it ends the sentence.
  CHECK(split("See No. 5 here. He said no. Then left.") == Sentences{"See No. 5 here.", "He said no.", "Then left."});
  CHECK(split("See Fig. 3 and (Mr. Bean). Next.") == Sentences{"See Fig. 3 and (Mr. Bean).", "Next."});
  // An abbreviation after an opening bracket is still one.
  CHECK(split("A man (Dr. Who) came. B.") == Sentences{"A man (Dr. Who) came.", "B."});
}

TEST_CASE("ellipses end sentences like periods, as three dots or one character") {
  CHECK(split("Well... Maybe. So\xE2\x80\xA6 Yes\xE2\x80\xA6 no.") ==
        Sentences{"Well...", "Maybe.", "So\xE2\x80\xA6", "Yes\xE2\x80\xA6 no."});
  // After an ellipsis an abbreviation-like word still ends the sentence ("etc..." is not "etc.").
  CHECK(split("Mr... Who?") == Sentences{"Mr...", "Who?"});
}

TEST_CASE("closing quotes and brackets stay with their sentence") {
  CHECK(split("\xE2\x80\x9CStop.\xE2\x80\x9D He stopped.") == Sentences{"\xE2\x80\x9CStop.\xE2\x80\x9D", "He stopped."});
  CHECK(split("\xC2\xBBNein!\xC2\xAB Sie ging. \xE2\x80\x9EJa.\xE2\x80\x9C") ==
        Sentences{"\xC2\xBBNein!\xC2\xAB Sie ging.", "\xE2\x80\x9EJa.\xE2\x80\x9C"});
  CHECK(split("'Go!' 'Where?'") == Sentences{"'Go!'", "'Where?'"});
}

TEST_CASE("multi-byte letters start sentences: accented capitals, Greek, Cyrillic, caseless scripts") {
  CHECK(split("C'est fini. \xC3\x89videmment.") == Sentences{"C'est fini.", "\xC3\x89videmment."});  // É
  CHECK(split("Da. \xD0\x9D\xD0\xB5\xD1\x82.") == Sentences{"Da.", "\xD0\x9D\xD0\xB5\xD1\x82."});  // Нет
  CHECK(split("Ok. \xCE\x9D\xCE\xB1\xCE\xB9.") == Sentences{"Ok.", "\xCE\x9D\xCE\xB1\xCE\xB9."});  // Ναι
  CHECK(split("End. \xD9\x85\xD8\xB1\xD8\xAD\xD8\xA8\xD8\xA7.") == Sentences{"End.", "\xD9\x85\xD8\xB1\xD8\xAD\xD8\xA8\xD8\xA7."});
  // A lowercase accented letter does not start one.
  CHECK(split("Fin. \xC3\xA9t\xC3\xA9.") == Sentences{"Fin. \xC3\xA9t\xC3\xA9."});
}

TEST_CASE("CJK full stops end sentences with or without a following space") {
  // 今天很好。你呢？我很好！
  CHECK(split("\xE4\xBB\x8A\xE5\xA4\xA9\xE5\xBE\x88\xE5\xA5\xBD\xE3\x80\x82\xE4\xBD\xA0\xE5\x91\xA2\xEF\xBC\x9F"
              "\xE6\x88\x91\xE5\xBE\x88\xE5\xA5\xBD\xEF\xBC\x81") ==
        Sentences{"\xE4\xBB\x8A\xE5\xA4\xA9\xE5\xBE\x88\xE5\xA5\xBD\xE3\x80\x82", "\xE4\xBD\xA0\xE5\x91\xA2\xEF\xBC\x9F",
                  "\xE6\x88\x91\xE5\xBE\x88\xE5\xA5\xBD\xEF\xBC\x81"});
  // 「はい。」と言った。 : the closing bracket stays with the sentence.
  CHECK(split("\xE3\x80\x8C\xE3\x81\xAF\xE3\x81\x84\xE3\x80\x82\xE3\x80\x8D\xE3\x81\xA8\xE8\xA8\x80\xE3\x81\xA3\xE3\x81\x9F\xE3\x80\x82") ==
        Sentences{"\xE3\x80\x8C\xE3\x81\xAF\xE3\x81\x84\xE3\x80\x82\xE3\x80\x8D",
                  "\xE3\x81\xA8\xE8\xA8\x80\xE3\x81\xA3\xE3\x81\x9F\xE3\x80\x82"});
  // Latin punctuation then a CJK letter after a space: a sentence end too (a caseless script).
  CHECK(split("Hi. \xE4\xBD\xA0\xE5\xA5\xBD") == Sentences{"Hi.", "\xE4\xBD\xA0\xE5\xA5\xBD"});
}

TEST_CASE("odd text: empty, whitespace, only punctuation, no final punctuation") {
  CHECK(split("").empty());
  CHECK(split("   \t  ").empty());
  CHECK(split("\xE3\x80\x80 \xE2\x80\x83").empty());  // ideographic space, em space
  CHECK(split("?!.") == Sentences{"?!."});
  CHECK(split(". . .") == Sentences{". . ."});
  CHECK(split("...") == Sentences{"..."});
  CHECK(split("  no final punctuation  ") == Sentences{"no final punctuation"});
  CHECK(split("One. Two") == Sentences{"One.", "Two"});
  CHECK(split("  Lead.   Trail.   ") == Sentences{"Lead.", "Trail."});
  // A no-break space neither separates sentences nor is trimmed as breaking whitespace.
  CHECK(split("Dr.\xC2\xA0Who. Yes.") == Sentences{"Dr.\xC2\xA0Who.", "Yes."});
}

TEST_CASE("invalid UTF-8 is kept byte for byte and never read past") {
  // Truncated sequences at the end, stray continuation bytes, overlong and surrogate encodings.
  const std::string cases[] = {
      std::string("Bad \xFF\xFE bytes. Then \x80 more."), std::string("Cut. \xE2\x80"), std::string("\xC3"),
      std::string("End.\xE3"), std::string("Over \xC0\xAF long. \xED\xA0\x80 Surrogate."),
      std::string("A.\xF0\x9F\x98"), std::string("\xF4\x90\x80\x80. X."), std::string("Nul\0byte. Ok.", 13)};
  for (const std::string& text : cases) {
    const std::vector<std::string_view> sentences = heed::split_sentences(text);
    // Every byte that is not breaking whitespace is in exactly one sentence, in order.
    std::string joined, squeezed;
    for (std::string_view s : sentences) {
      CHECK(!s.empty());
      CHECK(s.data() >= text.data());
      CHECK(s.data() + s.size() <= text.data() + text.size());
      joined += s;
    }
    for (char c : text) {
      if (c != ' ') squeezed += c;
    }
    std::string joined_squeezed;
    for (char c : joined) {
      if (c != ' ') joined_squeezed += c;
    }
    CHECK(joined_squeezed == squeezed);
  }
  CHECK(split("Bad \xFF. Then more.") == Sentences{"Bad \xFF.", "Then more."});
  CHECK(split("Cut. \xE2\x80") == Sentences{"Cut. \xE2\x80"});  // an invalid byte does not start a sentence
}

TEST_CASE("join_sentences joins non-empty translations with one space") {
  CHECK(heed::join_sentences({}).empty());
  CHECK(heed::join_sentences({"A.", "B."}) == "A. B.");
  CHECK(heed::join_sentences({"", "A.", "", "B.", ""}) == "A. B.");
}

TEST_CASE("SentenceSplitter does not allocate") {
  if (!heed::test::allocation_counter_works()) {
    WARN("allocation counting is off in this build (sanitizers or no glibc): skipped");
    return;
  }
  const std::string text = "Mr. Smith paid 42 euros. \xE2\x80\x9CNo.\xE2\x80\x9D he said\xE2\x80\xA6 Then? "
                           "\xE4\xBB\x8A\xE5\xA4\xA9\xE3\x80\x82\xE4\xBD\xA0\xEF\xBC\x9F \xFF end";
  size_t count = 0, bytes = 0;
  const size_t before = heed::test::allocation_count();
  heed::SentenceSplitter splitter(text);
  std::string_view sentence;
  while (splitter.next(&sentence)) {
    ++count;
    bytes += sentence.size();
  }
  const size_t after = heed::test::allocation_count();
  CHECK(after == before);
  CHECK(count == 6);  // a CJK full stop ends its sentence whatever follows
  CHECK(bytes > 0);
}
