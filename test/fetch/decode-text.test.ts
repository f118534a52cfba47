// Content-Type parsing and charset decoding on their own.
import { describe, expect, it } from 'bun:test';
import { decodeText, metaCharset, parseContentType } from '../../src/fetch/decode-text';

describe('parseContentType', () => {
  it('splits the media type from a quoted or bare charset', () => {
    expect(parseContentType('Text/HTML; Charset="ISO-8859-1"')).toEqual({
      mediaType: 'text/html',
      charset: 'ISO-8859-1',
    });
    expect(parseContentType('text/plain;format=flowed; charset=utf-8')).toEqual({
      mediaType: 'text/plain',
      charset: 'utf-8',
    });
    expect(parseContentType('text/markdown')).toEqual({ mediaType: 'text/markdown', charset: null });
    expect(parseContentType(null)).toEqual({ mediaType: '', charset: null });
  });
});

describe('decodeText', () => {
  const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]);

  it('uses the named charset, else UTF-8, and falls back to UTF-8 for an unknown label', () => {
    expect(decodeText(latin1, 'iso-8859-1')).toBe('café');
    expect(decodeText(new TextEncoder().encode('café'), null)).toBe('café');
    expect(decodeText(new TextEncoder().encode('café'), 'no-such-charset')).toBe('café');
  });

  it('lets a byte-order mark outrank the header', () => {
    const utf16 = new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]);
    expect(decodeText(utf16, 'iso-8859-1')).toBe('hi');
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]), 'windows-1251')).toBe('hi');
  });

  it('replaces undecodable bytes instead of failing', () => {
    expect(decodeText(latin1, 'utf-8')).toBe('caf\ufffd');
  });
});

describe('metaCharset', () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  it('finds <meta charset> and the http-equiv form in the first 1024 bytes', () => {
    expect(metaCharset(bytes('<html><head><meta charset="shift_jis">'))).toBe('shift_jis');
    expect(metaCharset(bytes('<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">'))).toBe('koi8-r');
    expect(metaCharset(bytes(`${' '.repeat(1100)}<meta charset="big5">`))).toBeNull();
    expect(metaCharset(bytes('<meta charset="utf-16le">'))).toBe('utf-8');
  });
});
