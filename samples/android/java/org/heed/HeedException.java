package org.heed;

/** A heed call failed: the status code of heed.h ({@code heed_status}) and heed's one-line message. */
public final class HeedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** heed_status values (heed/heed.h). */
  public static final int INVALID_ARGUMENT = 1;
  public static final int IO_ERROR = 2;
  public static final int INVALID_FILE = 3;
  public static final int UNSUPPORTED_VERSION = 4;
  public static final int UNSUPPORTED_MODEL = 5;
  public static final int LIMIT_EXCEEDED = 6;
  public static final int OUT_OF_MEMORY = 7;
  public static final int INTERNAL = 8;

  private final int status;

  /** Called from the JNI glue (heed_jni.c). */
  public HeedException(int status, String message) {
    super(message);
    this.status = status;
  }

  /** The heed_status code of the failed call. */
  public int status() {
    return status;
  }
}
