/** Reads a Content-Type header and turns body bytes into text in the charset it names. */

/** A Content-Type header split into its lower-case media type and its charset parameter, if any. */
export interface ContentType {
  mediaType: string;
  charset: string | null;
}

/** Parses `text/html; charset="ISO-8859-1"`; a missing header gives an empty media type. */
export function parseContentType(header: string | null): ContentType {
  const [type = '', ...params] = (header ?? '').split(';');
  let charset: string | null = null;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    charset =
      param
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1') || null;
  }
  return { mediaType: type.trim().toLowerCase(), charset };
}

/** The encoding a byte-order mark announces; per the Encoding Standard it outranks any header. */
function bomEncoding(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return null;
}

/**
 * The charset an HTML page declares in a `<meta>` within its first 1024 bytes, the window the
 * HTML standard's prescan uses. Pages that name their charset only there are common on older sites.
 */
export function metaCharset(bytes: Uint8Array): string | null {
  const head = new TextDecoder('windows-1252').decode(bytes.subarray(0, 1024));
  const match = /<meta[^>]*?charset\s*=\s*["']?\s*([\w:.+-]+)/i.exec(head);
  // A page cannot be UTF-16 if its ASCII prescan matched; the standard reads such a meta as UTF-8.
  return match?.[1] && /^utf-16/i.test(match[1]) ? 'utf-8' : (match?.[1] ?? null);
}

function decoderFor(label: string | null): TextDecoder | null {
  if (!label) return null;
  try {
    return new TextDecoder(label);
  } catch {
    return null; // an unknown label falls back to UTF-8, as browsers do
  }
}

/**
 * `bytes` as text: a byte-order mark wins, then `charset` (from the header, or a page's `<meta>`),
 * then UTF-8. Undecodable bytes become U+FFFD rather than failing the document.
 */
export function decodeText(bytes: Uint8Array, charset: string | null): string {
  const decoder = decoderFor(bomEncoding(bytes)) ?? decoderFor(charset) ?? new TextDecoder('utf-8');
  return decoder.decode(bytes);
}
