// Warning response headers as the reference writes them: `299 - "<text>"`, each text once, the whole bounded so
// a request with thousands of problems still gets headers a client can read.

/** the reference keeps at most this much warning text (in characters) per response */
export const maxWarningRunes = 4 * 1024;
/** once over that budget, each warning is cut to this many characters */
export const truncatedWarningRunes = 256;

const runes = (s: string) => { let n = 0; for (const _ of s) n++; return n; };
const firstRunes = (s: string, n: number) => { let out = ''; for (const c of s) { if (n-- <= 0) break; out += c; } return out; };

/**
 * The header values for a response's warnings: duplicates dropped, and when the texts together pass 4 KB each is
 * cut to 256 characters and those that still do not fit are dropped, with a last warning saying how many.
 */
export function warningHeaderValues(warnings: Iterable<string>, protocol: 'HTTP/1.1' | 'HTTP/2'): string[] {
  const unique = [...new Set(warnings)].filter(w => w !== '');
  let total = 0;
  for (const w of unique) total += runes(w);
  const texts: string[] = [];
  if (total <= maxWarningRunes) texts.push(...unique);
  else {
    let written = 0, dropped = 0;
    for (const w of unique) {
      if (written >= maxWarningRunes) { dropped++; continue; }
      const text = firstRunes(w, truncatedWarningRunes);
      written += runes(text);
      texts.push(text);
    }
    if (dropped) texts.push(`${dropped} more warning${dropped === 1 ? ' was' : 's were'} dropped: the warnings exceeded ${maxWarningRunes} characters`);
  }
  return texts.map(t => headerSafe(`299 - "${t.replace(/["\\]/g, c => `\\${c}`)}"`, protocol));
}

/**
 * A header value Node writes without refusing it. Control characters become spaces (the reference refuses them; a
 * header cannot hold them). Over HTTP/2 the text goes out as its UTF-8 bytes, as the reference sends it: Node writes
 * HTTP/2 header strings one byte per character. Over HTTP/1.1 Node writes header strings as UTF-8 but refuses
 * characters past U+00FF, so those are escaped as \uXXXX (JSON's escape).
 */
export function headerSafe(value: string, protocol: 'HTTP/1.1' | 'HTTP/2'): string {
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, ' ');
  if (!/[^\u0000-\u007f]/.test(clean)) return clean;
  return protocol === 'HTTP/2' ? Buffer.from(clean, 'utf8').toString('latin1')
    : clean.replace(/[^\u0000-\u00ff]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
