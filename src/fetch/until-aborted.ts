/** Stops waiting for work that cannot itself be cancelled (a DNS lookup, a stream read) once a signal aborts. */

/** Settles as `promise` does, or rejects with the signal's reason as soon as it aborts; the work itself runs on. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
