// Skipping the strings of JSON text without reading it a character at a time: scans of request bodies (nesting
// depth, repeated keys, integer literals) step over every string, and bodies of megabytes are mostly strings.

export interface JsonStrings {
  /** the index of the closing quote of the string whose opening quote is at `open`; the text's length when none */
  end(open: number): number;
  /** whether the string `end` last stepped over holds an escape */
  escaped: boolean;
}

/**
 * Steps over the strings of one text, from its start towards its end (each `open` past the last string's end). A
 * string without escapes, the common case, is crossed with indexOf to its closing quote; the places of the next quote
 * and of the next backslash are kept until the scan passes them, so the text is searched once in all for each, not
 * once per string. A string with escapes (JSON in JSON) is read on a character at a time from its first backslash.
 */
export function jsonStrings(text: string): JsonStrings {
  /** the next quote and the next backslash at or after where each was last looked for; -1: none in the rest */
  let quote = -2, backslash = -2;
  const strings: JsonStrings = {
    escaped: false,
    end(open) {
      const start = open + 1;
      if (quote !== -1 && quote < start) quote = text.indexOf('"', start);
      if (backslash !== -1 && backslash < start) backslash = text.indexOf('\\', start);
      const end = quote === -1 ? text.length : quote;
      strings.escaped = backslash !== -1 && backslash < end;
      if (!strings.escaped) return end;
      let i = backslash;
      while (i < text.length) {
        const c = text.charCodeAt(i);
        if (c === 0x22) return i;
        // the character after a backslash (a quote, perhaps) is part of the string
        i += c === 0x5c ? 2 : 1;
      }
      return text.length;
    },
  };
  return strings;
}
