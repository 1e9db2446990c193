// Mapping keys that are themselves mappings or sequences (`? [a, b]: c`, `{? {a: b}: c}`): js-yaml turns them into
// strings ("a,b", "[object Object]"); the reference's decoder refuses them. The decoder's node events tell where each
// node begins and ends; a mapping or sequence right before a `:` (or right after an explicit `?`) is such a key.

interface NodeEventState { position: number; result: unknown }
export type NodeListener = (event: 'open' | 'close', state: NodeEventState) => void;

/** a listener for js-yaml's load that throws on the first mapping key that is a mapping or a sequence */
export function collectionKeyRefuser(text: string): NodeListener {
  const starts: number[] = [];
  const after = skipper(text, 1), before = skipper(text, -1);
  return (event, state) => {
    if (event === 'open') { starts.push(state.position); return; }
    const start = starts.pop() ?? 0;
    const r = state.result;
    if (r === null || typeof r !== 'object') return;
    if (isValueIndicator(text, after(state.position)) || isExplicitKey(text, before(start - 1))) {
      throw new Error(`invalid map key: ${Array.isArray(r) ? 'a sequence' : 'a mapping'} (${summary(r)})`);
    }
  };
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/**
 * The first index from `at` on (step 1: past blanks, line breaks and comments) or back (step -1: past blanks and
 * line breaks) that holds something else. The last stretch skipped is remembered, so nodes ending (or beginning) at
 * the same place do not scan it again: linear in the text.
 */
function skipper(text: string, step: 1 | -1): (at: number) => number {
  let from = -2, to = -2;
  return (at) => {
    if (step === 1 ? at >= from && at <= to : at <= from && at >= to) return to;
    let i = at;
    for (;;) {
      while (i >= 0 && i < text.length && isSpace(text[i])) i += step;
      if (step === -1 || text[i] !== '#') break;
      while (i < text.length && text[i] !== '\n') i++;
    }
    from = at; to = i;
    return i;
  };
}

/** a `:` that ends a key (a `:` with more text right after it begins a plain scalar such as `::1`) */
const isValueIndicator = (text: string, i: number) =>
  text[i] === ':' && (i + 1 === text.length || isSpace(text[i + 1]) || ',]}'.includes(text[i + 1]));

/** a `?` that opens its line (after indentation) or follows `{`, `[` or `,` */
function isExplicitKey(text: string, i: number): boolean {
  if (text[i] !== '?') return false;
  let j = i - 1;
  while (j >= 0 && (text[j] === ' ' || text[j] === '\t')) j--;
  return j < 0 || text[j] === '\n' || text[j] === '{' || text[j] === '[' || text[j] === ',';
}

/** the key's JSON, shortened */
function summary(v: object): string {
  const s = JSON.stringify(v) ?? '';
  return s.length > 64 ? `${s.slice(0, 61)}...` : s;
}
