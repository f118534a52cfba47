/** The one error the URL reader throws: a reason the owner can read, and whether trying again may help. */

/**
 * Why a document's `url` could not be read. `message` is shown to the owner as the document's
 * failure reason, so it names the URL and the cause in plain words and never carries a stack.
 * `permanent` tells the learning runner not to retry: an address refusal, a 404, an unsupported
 * type or an oversized body will fail the same way next time; a timeout, a 5xx or a dropped
 * connection may not.
 */
export class FetchError extends Error {
  override readonly name = 'FetchError';
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }

  get retryable(): boolean {
    return !this.permanent;
  }
}
