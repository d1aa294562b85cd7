package org.heed;

import java.nio.charset.StandardCharsets;

/**
 * Continues a prompt with a decoder-only language model (.heed converted from llama2.c, GPT-2,
 * Llama or OpenNMT-py), through heed's C API and the JNI glue in libheed_jni.so, streaming each
 * token's text to a {@link TokenListener} as it is produced.
 *
 * <pre>{@code
 * try (Generator g = Generator.open(new File(getFilesDir(), "stories.heed").getPath())) {
 *   String story = g.generate("Once upon a time", 64, (id, text) -> { show(text); return true; });
 * }
 * }</pre>
 *
 * Methods are synchronized: one generator runs one generation at a time. Call it off the UI
 * thread; the listener runs on the calling thread.
 */
public final class Generator implements AutoCloseable {
  static {
    System.loadLibrary("heed_jni");
  }

  /** Receives each generated token (the end token excluded); return false to stop there. */
  public interface TokenListener {
    boolean onToken(int id, String text);
  }

  private long handle;

  private Generator(long handle) {
    this.handle = handle;
  }

  /** Opens the model at {@code modelPath}; {@code threads} 0: one per core. */
  public static Generator open(String modelPath, int threads) {
    if (modelPath == null) throw new NullPointerException("modelPath is required");
    if (threads < 0) throw new IllegalArgumentException("threads must not be negative");
    return new Generator(nativeOpen(modelPath.getBytes(StandardCharsets.UTF_8), threads));
  }

  public static Generator open(String modelPath) {
    return open(modelPath, 1);
  }

  /**
   * Generates greedily up to {@code maxNewTokens} tokens after {@code prompt} ("" starts from the
   * model's start token) and returns the continuation; {@code listener} (may be null) sees it token
   * by token.
   */
  public synchronized String generate(String prompt, int maxNewTokens, TokenListener listener) {
    if (handle == 0) throw new IllegalStateException("the generator is closed");
    if (prompt.indexOf('\0') >= 0) throw new IllegalArgumentException("prompt contains a NUL character");
    if (maxNewTokens < 1) throw new IllegalArgumentException("maxNewTokens must be at least 1");
    byte[] out = nativeGenerate(handle, prompt.getBytes(StandardCharsets.UTF_8), maxNewTokens,
        listener == null ? null : new Stream(listener));
    return new String(out, StandardCharsets.UTF_8);
  }

  /** Frees the generator and unmaps the model; closing twice is harmless. */
  @Override
  public synchronized void close() {
    if (handle != 0) {
      nativeClose(handle);
      handle = 0;
    }
  }

  /** What the JNI glue calls per token: the text arrives as UTF-8 bytes. */
  private static final class Stream {
    private final TokenListener listener;

    Stream(TokenListener listener) {
      this.listener = listener;
    }

    boolean onToken(int id, byte[] text) {
      return listener.onToken(id, new String(text, StandardCharsets.UTF_8));
    }
  }

  private static native long nativeOpen(byte[] path, int threads);

  private static native byte[] nativeGenerate(long handle, byte[] prompt, int maxNewTokens, Object stream);

  private static native void nativeClose(long handle);
}
