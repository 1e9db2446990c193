// PEM blocks found in text by scanning for their markers, in time linear in the text: the pattern these replaced
// (a lazy body up to a back-referenced END line) took quadratic time on text with many unterminated BEGIN lines, and
// such text arrives in request bodies (a CertificateSigningRequest) and stored objects (a CA bundle in a ConfigMap).

export interface PemBlockText {
  /** the word(s) between `-----BEGIN ` and `-----` */
  type: string;
  /** the text between the BEGIN line and the END line */
  body: string;
}

/** the `-----BEGIN <type>-----` … `-----END <type>-----` blocks (whole, markers included) of one type, in order */
export function pemBlocksOfType(text: string, type: string): string[] {
  const begin = `-----BEGIN ${type}-----`;
  const end = `-----END ${type}-----`;
  const out: string[] = [];
  for (let at = 0; ;) {
    const b = text.indexOf(begin, at);
    if (b < 0) break;
    // a block has a body of at least one character
    const e = text.indexOf(end, b + begin.length + 1);
    // no END after this BEGIN means none after any later BEGIN either
    if (e < 0) break;
    out.push(text.slice(b, e + end.length));
    at = e + end.length;
  }
  return out;
}

/** the type named by a marker whose type starts at `from`: characters up to the next '-' (never a newline), then `-----` */
function markerType(text: string, from: number): { type: string; next: number } | undefined {
  let i = from;
  while (i < text.length && text[i] !== '-' && text[i] !== '\n') i++;
  if (!text.startsWith('-----', i)) return undefined;
  return { type: text.slice(from, i), next: i + 5 };
}

/**
 * Every block as Go's pem.Decode finds them in turn: a `-----BEGIN <type>-----` line, then the body up to the first
 * `-----END <type>-----` of the same type; text around blocks is ignored. The END markers are indexed once by type, and
 * each type's index is walked forward only, so a text with many BEGIN lines and no END costs one pass.
 */
export function pemBlocks(text: string): PemBlockText[] {
  const ends = new Map<string, { at: number[]; next: number }>();
  for (let e = text.indexOf('-----END '); e >= 0; e = text.indexOf('-----END ', e + 1)) {
    const marker = markerType(text, e + '-----END '.length);
    if (!marker) continue;
    let list = ends.get(marker.type);
    if (!list) ends.set(marker.type, list = { at: [], next: 0 });
    list.at.push(e);
  }
  const out: PemBlockText[] = [];
  for (let b = text.indexOf('-----BEGIN '); b >= 0;) {
    const marker = markerType(text, b + '-----BEGIN '.length);
    let bodyStart = marker?.next ?? -1;
    if (bodyStart >= 0 && text[bodyStart] === '\r') bodyStart++;
    const list = marker && ends.get(marker.type);
    if (!marker || text[bodyStart] !== '\n' || !list) { b = text.indexOf('-----BEGIN ', b + 1); continue; }
    bodyStart++;
    while (list.next < list.at.length && list.at[list.next]! < bodyStart) list.next++;
    if (list.next === list.at.length) { b = text.indexOf('-----BEGIN ', b + 1); continue; }
    const e = list.at[list.next]!;
    out.push({ type: marker.type, body: text.slice(bodyStart, e) });
    b = text.indexOf('-----BEGIN ', e + `-----END ${marker.type}-----`.length);
  }
  return out;
}
