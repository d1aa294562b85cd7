// Drives org.heed.Translator (the Android JNI sample) on the host JVM and compares its translations
// with the C API's for the same text, then checks its error paths.
// usage: java -Djava.library.path=DIR TranslatorTest MODEL TEXT EXPECTED_TEXT LINES EXPECTED_LINES
//   TEXT / EXPECTED_TEXT: one multi-line text and heed_translate_text's translation of it (split);
//   LINES / EXPECTED_LINES: sentences, one per line, and their translations with no_sentence_split.
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import org.heed.HeedException;
import org.heed.Translator;

public final class TranslatorTest {
  private static int failures = 0;

  private static void check(boolean ok, String what) {
    if (!ok) {
      System.out.println("FAIL: " + what);
      ++failures;
    }
  }

  private static String withoutFinalNewline(String s) {
    return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
  }

  private static Translator.Options fixtureOptions(boolean split) {
    Translator.Options o = new Translator.Options();
    o.maxSourceLength = 64;  // the fixture's position table
    o.maxTargetLength = 20;  // as the C API program translates
    o.maxBatch = 8;
    o.splitSentences = split;
    return o;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      System.err.println("usage: TranslatorTest MODEL TEXT EXPECTED_TEXT LINES EXPECTED_LINES");
      System.exit(2);
    }
    String model = args[0];
    String text = withoutFinalNewline(Files.readString(Paths.get(args[1]), StandardCharsets.UTF_8));
    String expected = withoutFinalNewline(Files.readString(Paths.get(args[2]), StandardCharsets.UTF_8));
    List<String> lines = Files.readAllLines(Paths.get(args[3]), StandardCharsets.UTF_8);
    List<String> expectedLines = Files.readAllLines(Paths.get(args[4]), StandardCharsets.UTF_8);
    check(lines.size() == expectedLines.size(), "as many expected lines as lines");

    check(Translator.version().matches("\\d+\\.\\d+\\.\\d+"), "version() is MAJOR.MINOR.PATCH: " + Translator.version());

    // Paragraphs, split into sentences: the same text as heed_translate_text gives.
    try (Translator t = Translator.open(model, fixtureOptions(true))) {
      String got = t.translate(text, 1);
      check(got.equals(expected), "the text's translation differs from the C API's:\n" + got + "\n---\n" + expected);
      check(got.split("\n", -1).length == text.split("\n", -1).length, "one output line per input line");
      check(t.translate("", 1).isEmpty(), "empty text translates to empty text");
      check(t.translate(text, 1).equals(got), "translating again gives the same text");
      // Errors: a beam outside the translator's limits, a NUL inside the text.
      try {
        t.translate("Hello", 99);
        check(false, "beam 99 must fail");
      } catch (HeedException e) {
        check(e.status() == HeedException.LIMIT_EXCEEDED, "beam 99: status " + e.status());
        check(e.getMessage().contains("beam 99"), "beam 99: message " + e.getMessage());
      }
      try {
        t.translate("a\0b", 1);
        check(false, "a NUL in the text must fail");
      } catch (IllegalArgumentException e) {
        // expected
      }
      t.close();
      t.close();  // twice is harmless
      try {
        t.translate("Hello", 1);
        check(false, "translate after close must fail");
      } catch (IllegalStateException e) {
        // expected
      }
    }

    // One sentence per text, not split: each line as the C API translates it.
    try (Translator t = Translator.open(model, fixtureOptions(false))) {
      for (int i = 0; i < lines.size() && i < expectedLines.size(); ++i) {
        String got = t.translate(lines.get(i), 1);
        check(got.equals(expectedLines.get(i)), "line " + (i + 1) + ": '" + got + "' vs '" + expectedLines.get(i) + "'");
      }
    }

    // A missing file and a file that is not a model are HeedExceptions with heed's message.
    try {
      Translator.open(model + ".missing").close();
      check(false, "opening a missing file must fail");
    } catch (HeedException e) {
      check(e.status() == HeedException.IO_ERROR, "missing file: status " + e.status() + ": " + e.getMessage());
    }
    try {
      Translator.open(args[1]).close();
      check(false, "opening a text file as a model must fail");
    } catch (HeedException e) {
      check(e.status() == HeedException.INVALID_FILE, "text file: status " + e.status() + ": " + e.getMessage());
    }
    // A source limit the model cannot hold (its positions) fails when the translator is made.
    Translator.Options tooLong = fixtureOptions(true);
    tooLong.maxSourceLength = 1000;
    try {
      Translator.open(model, tooLong).close();
      check(false, "maxSourceLength 1000 must fail on the fixture");
    } catch (HeedException e) {
      check(e.getMessage().contains("positions"), "maxSourceLength 1000: " + e.getMessage());
    }

    if (failures == 0) System.out.println("TranslatorTest: all passed");
    System.exit(failures == 0 ? 0 : 1);
  }
}
