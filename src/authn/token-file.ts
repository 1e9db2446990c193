// Static bearer tokens from a CSV file read at start-up: token,user,uid[,"group1,group2,..."].
import { readFileSync } from 'node:fs';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Authenticator } from './types.js';
import { bearerToken } from './types.js';
import type { AuthnResult } from '../api/auth.js';

/**
 * one CSV record per line; double quotes enclose a whole field (commas in it too) and "" in one is a quote, as in
 * RFC 4180. A quote elsewhere, or one left open at the end of its line, is an error: the reference refuses the file.
 */
function csvRecords(text: string, source: string): Array<{ line: number; fields: string[] }> {
  const records: Array<{ line: number; fields: string[] }> = [];
  text.split(/\r?\n/).forEach((text, n) => {
    if (!text.trim()) return;
    const bad = (why: string, i: number) => new Error(`${source}: line ${n + 1}, column ${i + 1}: ${why}`);
    const fields: string[] = [];
    let field = '', quoted = false, closed = false;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (quoted) {
        if (ch === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (ch === '"') { quoted = false; closed = true; } else field += ch;
      } else if (ch === ',') { fields.push(field); field = ''; closed = false; }
      else if (closed && !/\s/.test(ch)) throw bad('text after a quoted field', i);
      else if (ch === '"' && field.trim() === '') { quoted = true; field = ''; }
      else if (ch === '"') throw bad('a quote inside a field that is not quoted', i);
      else field += ch;
    }
    if (quoted) throw bad('a quoted field is not closed on its line', text.length);
    fields.push(field);
    records.push({ line: n + 1, fields });
  });
  return records;
}

export function parseTokenFile(text: string, source = 'token file'): Map<string, AuthnResult> {
  const tokens = new Map<string, AuthnResult>();
  csvRecords(text, source).forEach(({ line, fields: rec }) => {
    if (rec.length < 3) throw new Error(`${source}: line ${line}: at least 3 columns are required (token, user name, uid)`);
    const [token, username, uid, ...rest] = rec.map(f => f.trim());
    if (!token) return;
    const groups = rest.flatMap(g => g.split(',')).map(g => g.trim()).filter(Boolean);
    if (tokens.has(token)) process.emitWarning(`${source}: line ${line}: duplicate token, the later one wins`);
    tokens.set(token, { username, uid, groups });
  });
  return tokens;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export function tokenFileAuthenticator(path: string): Authenticator {
  const tokens = parseTokenFile(readFileSync(path, 'utf8'), path);
  // compare digests in constant time so the lookup leaks nothing about stored tokens
  const byDigest = new Map([...tokens].map(([t, u]) => [digest(t).toString('hex'), { d: digest(t), u }]));
  return {
    authenticate(req) {
      const token = bearerToken(req);
      if (!token) return undefined;
      const d = digest(token);
      const hit = byDigest.get(d.toString('hex'));
      return hit && timingSafeEqual(hit.d, d) ? { ...hit.u, groups: [...hit.u.groups] } : undefined;
    },
  };
}
