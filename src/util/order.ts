// Orders of strings as the reference sorts them: by code unit, not by locale. `localeCompare` asks ICU for a
// collation on every comparison (slow in sorts on the request and controller paths) and orders case and
// punctuation otherwise than Go's string comparison does.

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
