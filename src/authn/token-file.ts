// Static bearer tokens from a CSV file read at start-up: token,user,uid[,"group1,group2,..."].
import { readFileSync } from 'node:fs';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Authenticator } from './types.js';
import { bearerToken } from './types.js';
import type { AuthnResult } from '../api/auth.js';

/** one CSV record per line; double quotes group commas and "" is a quote, as in RFC 4180 */
function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const fields: string[] = [];
    let field = '', quoted = false;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i];
      if (quoted) {
        if (ch === '"' && line[i + 1] === '"') { field += '"'; i++; } else if (ch === '"') quoted = false; else field += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ',') { fields.push(field); field = ''; } else field += ch;
    }
    fields.push(field);
    records.push(fields);
  }
  return records;
}

export function parseTokenFile(text: string, source = 'token file'): Map<string, AuthnResult> {
  const tokens = new Map<string, AuthnResult>();
  csvRecords(text).forEach((rec, i) => {
    if (rec.length < 3) throw new Error(`${source}: line ${i + 1}: at least 3 columns are required (token, user name, uid)`);
    const [token, username, uid, ...rest] = rec.map(f => f.trim());
    if (!token) return;
    const groups = rest.flatMap(g => g.split(',')).map(g => g.trim()).filter(Boolean);
    if (tokens.has(token)) process.emitWarning(`${source}: line ${i + 1}: duplicate token, the later one wins`);
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
