// A bearer token read from a file (a kubeconfig user's `tokenFile`), read again as the reference client reads it:
// a token is kept for a minute less a few seconds, then the file is read anew, so a token that is rotated on disk
// (a projected service-account token, a token written by another tool) is picked up by a long-lived client. A
// 401 ends the kept token at once. While the file cannot be read, the last token is sent.

import { readFile } from 'node:fs/promises';
import type { Credential, CredentialSource } from './exec-credential.js';

/** how long a token read from the file is used before the file is read again (the reference's minute, less its leeway) */
export const tokenFileRereadMs = 50_000;

export function tokenFileCredentials(path: string, initial?: string, now = () => Date.now()): CredentialSource {
  let kept: Credential | undefined = initial ? { token: initial } : undefined;
  let readAt = initial ? now() : -Infinity;
  let reading: Promise<Credential> | undefined;
  const read = async (): Promise<Credential> => {
    try {
      const token = (await readFile(path, 'utf8')).trim();
      if (!token) throw new Error(`token file ${path} is empty`);
      if (kept?.token !== token) kept = { token };
      return kept;
    } catch (e) {
      if (kept) return kept;
      throw new Error(`reading token file: ${(e as Error).message}`);
    } finally {
      readAt = now();
    }
  };
  return {
    async get() {
      if (kept && now() - readAt < tokenFileRereadMs) return kept;
      reading ??= read().finally(() => { reading = undefined; });
      return reading;
    },
    invalidate(used) {
      if (kept === used) readAt = -Infinity;
    },
  };
}
