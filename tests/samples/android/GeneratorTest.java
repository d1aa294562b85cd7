// Drives org.heed.Generator (the Android JNI sample) on the host JVM: the continuation equals the
// heed command line's for the same prompt, the listener sees it token by token and can stop it;
// and org.heed.Translator's n-best list equals the command line's (texts, scores within 1e-4).
// usage: java -Djava.library.path=DIR GeneratorTest STORIES.heed PROMPT EXPECTED TRANSLATION_MODEL SENTENCE NBEST_FILE
//   NBEST_FILE: `heed translate --beam 4 --n-best 3` lines 'I ||| TEXT ||| SCORE' of SENTENCE.
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import org.heed.Generator;
import org.heed.HeedException;
import org.heed.Translator;

public final class GeneratorTest {
  private static int failures = 0;

  private static void check(boolean ok, String what) {
    if (!ok) {
      System.out.println("FAIL: " + what);
      ++failures;
    }
  }

  private static void generation(String model, String prompt, String expected) {
    try (Generator g = Generator.open(model)) {
      StringBuilder streamed = new StringBuilder();
      int[] tokens = {0};
      String got = g.generate(prompt, 10, (id, text) -> {
        streamed.append(text);
        ++tokens[0];
        return true;
      });
      check(got.equals(expected), "continuation '" + got + "' vs '" + expected + "'");
      check(streamed.toString().equals(got) && tokens[0] >= 5, "streamed '" + streamed + "' in " + tokens[0] + " tokens");
      check(g.generate(prompt, 10, null).equals(got), "without a listener: the same text");
      StringBuilder first = new StringBuilder();
      String stopped = g.generate(prompt, 10, (id, text) -> {
        first.append(text);
        return first.length() < 6;  // stop once 6 characters have come
      });
      check(stopped.equals(first.toString()) && got.startsWith(stopped) && stopped.length() < got.length(),
            "stopped by the listener: '" + stopped + "'");
    }
  }

  private static void nBest(String model, String sentence, List<String> expected) {
    try (Translator t = Translator.open(model)) {
      Translator.Hypothesis[] got = t.translateHypotheses(sentence, 4, 3);
      check(got.length == expected.size(), got.length + " hypotheses for " + expected.size());
      for (int i = 0; i < got.length && i < expected.size(); ++i) {
        String[] parts = expected.get(i).split(" \\|\\|\\| ");
        check(got[i].text.equals(parts[1]), "hypothesis " + i + ": '" + got[i].text + "' vs '" + parts[1] + "'");
        check(Math.abs(got[i].score - Float.parseFloat(parts[2])) < 1e-4, "score " + i + ": " + got[i].score + " vs " + parts[2]);
      }
      try {
        t.translateHypotheses(sentence, 2, 3);
        check(false, "3 hypotheses from a beam of 2 must fail");
      } catch (HeedException e) {
        check(e.status() == HeedException.INVALID_ARGUMENT, "n-best above the beam: status " + e.status());
      }
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      System.err.println("usage: GeneratorTest STORIES PROMPT EXPECTED TRANSLATION_MODEL SENTENCE NBEST_FILE");
      System.exit(2);
    }
    generation(args[0], args[1], args[2]);
    nBest(args[3], args[4], Files.readAllLines(Paths.get(args[5]), StandardCharsets.UTF_8));
    try {
      Generator.open(args[3]).close();
      check(false, "a generator over a translation model must fail");
    } catch (HeedException e) {
      check(e.status() == HeedException.UNSUPPORTED_MODEL, "translation model: status " + e.status());
    }
    if (failures == 0) System.out.println("GeneratorTest: all passed");
    System.exit(failures == 0 ? 0 : 1);
  }
}
