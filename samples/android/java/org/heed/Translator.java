package org.heed;

import java.nio.charset.StandardCharsets;

/**
 * Translates text with a .heed model on the device, through heed's C API (heed/heed.h) and the
 * JNI glue in libheed_jni.so.
 *
 * <pre>{@code
 * try (Translator t = Translator.open(new File(getFilesDir(), "en-de.heed").getPath())) {
 *   String german = t.translate("The weather is nice today. Let's go out.");
 * }
 * }</pre>
 *
 * The translator maps the model file and plans its memory once, in {@link #open}; translating
 * then runs without allocating inside the model session. Text is split into sentences (each line
 * a paragraph; see {@link Options#splitSentences}). Methods are synchronized: one translator
 * translates one text at a time; use one translator per thread to translate in parallel.
 * Translating takes time (milliseconds to seconds): call it off the UI thread.
 */
public final class Translator implements AutoCloseable {
  static {
    System.loadLibrary("heed_jni");
  }

  /** The limits and settings of a translator (0: heed's default for that limit). */
  public static final class Options {
    /** Sentences translated together (0: 8). */
    public int maxBatch = 0;
    /** Largest beam size {@link #translate(String, int)} accepts (0: 4). */
    public int maxBeam = 0;
    /** Longest sentence in tokens, end token included (0: 256). */
    public int maxSourceLength = 0;
    /** Longest translation of a sentence in tokens, end token included (0: 256). */
    public int maxTargetLength = 0;
    /** Worker threads (0: one per core); the translations are the same for every count. */
    public int threads = 1;
    /** Split each line of the text into sentences (false: each text is one sentence). */
    public boolean splitSentences = true;
  }

  private long handle;

  private Translator(long handle) {
    this.handle = handle;
  }

  /** Opens the model at {@code modelPath} (a file path, not an asset) with the default options. */
  public static Translator open(String modelPath) {
    return open(modelPath, new Options());
  }

  /** Opens the model at {@code modelPath}; throws HeedException when it cannot be used. */
  public static Translator open(String modelPath, Options options) {
    if (modelPath == null || options == null) throw new NullPointerException("modelPath and options are required");
    byte[] path = modelPath.getBytes(StandardCharsets.UTF_8);
    return new Translator(nativeOpen(path, options.maxBatch, options.maxBeam, options.maxSourceLength,
        options.maxTargetLength, options.threads, options.splitSentences));
  }

  /** Translates {@code text} with beam search of size 2 (heed translate's default). */
  public String translate(String text) {
    return translate(text, 2);
  }

  /** Translates {@code text} with a beam of {@code beam} hypotheses (1: greedy search). */
  public synchronized String translate(String text, int beam) {
    if (handle == 0) throw new IllegalStateException("the translator is closed");
    if (text.indexOf('\0') >= 0) throw new IllegalArgumentException("text contains a NUL character");
    // Java strings cross as UTF-8 bytes: JNI's own string functions use modified UTF-8.
    byte[] out = nativeTranslate(handle, text.getBytes(StandardCharsets.UTF_8), beam);
    return new String(out, StandardCharsets.UTF_8);
  }

  /** One translation of an n-best list: its text and score (log-prob / length, as CTranslate2 scores). */
  public static final class Hypothesis {
    public final String text;
    public final float score;

    Hypothesis(String text, float score) {
      this.text = text;
      this.score = score;
    }
  }

  /**
   * The {@code count} best translations of {@code text} (one sentence: no splitting), best first,
   * with beam search of size {@code beam} ({@code count <= beam <= maxBeam}).
   */
  public synchronized Hypothesis[] translateHypotheses(String text, int beam, int count) {
    if (handle == 0) throw new IllegalStateException("the translator is closed");
    if (text.indexOf('\0') >= 0) throw new IllegalArgumentException("text contains a NUL character");
    if (count < 1) throw new IllegalArgumentException("count must be at least 1");
    float[] scores = new float[count];
    byte[][] texts = nativeHypotheses(handle, text.getBytes(StandardCharsets.UTF_8), beam, count, scores);
    Hypothesis[] out = new Hypothesis[texts.length];
    for (int i = 0; i < texts.length; ++i) out[i] = new Hypothesis(new String(texts[i], StandardCharsets.UTF_8), scores[i]);
    return out;
  }

  /** Frees the translator and unmaps the model; closing twice is harmless. */
  @Override
  public synchronized void close() {
    if (handle != 0) {
      nativeClose(handle);
      handle = 0;
    }
  }

  /** The heed library version, "MAJOR.MINOR.PATCH". */
  public static native String version();

  private static native long nativeOpen(byte[] path, int maxBatch, int maxBeam, int maxSourceLength,
      int maxTargetLength, int threads, boolean splitSentences);

  private static native byte[] nativeTranslate(long handle, byte[] text, int beam);

  private static native byte[][] nativeHypotheses(long handle, byte[] text, int beam, int count, float[] scores);

  private static native void nativeClose(long handle);
}
