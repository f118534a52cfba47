/** Reads a response body into memory while counting, so an oversized body is cut off, not buffered first. */
import { FetchError } from './fetch-error';
import { untilAborted } from './until-aborted';

/** "10 MiB" for the owner; the limit is configured in bytes. */
function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/**
 * The whole body of `response`, at most `maxBytes` of it after decompression (so a small gzip
 * bomb is caught too). Throws a permanent FetchError as soon as the count passes the limit and
 * cancels the stream, so the rest is never downloaded. A declared Content-Length over the limit
 * is refused before reading. Rejects with the signal's reason when it aborts mid-body.
 */
export async function readCapped(
  response: Response,
  url: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const tooLarge = () =>
    new FetchError(
      `The document at ${url} is larger than the ${formatBytes(maxBytes)} limit for a fetched url body.`,
      true,
    );
  const declared = Number(response.headers.get('content-length'));
  // The header describes the encoded body; a compressed one may still grow past the limit below.
  if (Number.isFinite(declared) && declared > maxBytes && !response.headers.get('content-encoding')) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await untilAborted(reader.read(), signal);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw tooLarge();
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}
