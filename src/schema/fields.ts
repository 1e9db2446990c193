// Unknown and duplicate fields, for fieldValidation Warn and Strict. Unknown fields come from walking the
// object against its schema; duplicate fields from a scan of the JSON text (parsers keep only the last).
import type { Schema } from './types.js';

export function checkFields(schema: Schema | undefined, obj: unknown, jsonText?: string): string[] {
  const out: string[] = [];
  if (jsonText !== undefined) duplicateFields(jsonText, out);
  if (schema) unknownFields(schema, obj, '', out);
  return out;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function unknownFields(s: Schema, v: unknown, path: string, out: string[]) {
  if (s['x-kubernetes-preserve-unknown-fields'] || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    if (s.items) v.forEach((e, i) => unknownFields(s.items!, e, `${path}[${i}]`, out));
    return;
  }
  if (s['x-kubernetes-embedded-resource']) return;
  for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
    const p = s.properties?.[k];
    if (p) { unknownFields(p, child, join(path, k), out); continue; }
    if (typeof s.additionalProperties === 'object') { unknownFields(s.additionalProperties, child, join(path, k), out); continue; }
    if (s.additionalProperties === true || !s.properties) continue;
    out.push(`unknown field "${join(path, k)}"`);
  }
}

/** reports keys that appear twice in one JSON object, with their path */
function duplicateFields(text: string, out: string[]) {
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const str = (): string => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    try { return JSON.parse(text.slice(start, i)); } catch { return text.slice(start + 1, i - 1); }
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') { i++; return; }
      while (i < text.length) {
        ws();
        if (text[i] !== '"') return;
        const key = str();
        if (seen.has(key)) out.push(`duplicate field "${join(path, key)}"`);
        seen.add(key);
        ws(); if (text[i] === ':') i++;
        value(join(path, key));
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return; }
        return;
      }
    } else if (c === '[') {
      i++;
      let n = 0;
      ws();
      if (text[i] === ']') { i++; return; }
      while (i < text.length) {
        value(`${path}[${n++}]`);
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return; }
        return;
      }
    } else if (c === '"') {
      str();
    } else {
      while (i < text.length && !',]} \t\r\n'.includes(text[i])) i++;
    }
  };
  value('');
}
