// A bounded memo of values made from strings that requests carry (field paths of managed fields, regular expressions):
// both how many it keeps and how long a key may be are bounded, so repeated requests with ever new or ever longer keys
// cannot make the server's memory grow. A long key is rare and its value is made each time.

/** `make` remembered for at most `entries` keys of at most `keyLength` characters; the memo starts again when full */
export function boundedMemo<V>(make: (key: string) => V, entries: number, keyLength: number): (key: string) => V {
  let kept = new Map<string, V>();
  return key => {
    if (key.length > keyLength) return make(key);
    let value = kept.get(key);
    if (value === undefined) {
      value = make(key);
      if (kept.size >= entries) kept = new Map();
      kept.set(key, value);
    }
    return value;
  };
}
