// Objects from `-f`: files, folders (with `-R`, their subfolders), URLs and standard input.

import { maxManifestBytes, parseManifests, readManifestFiles, type Manifest } from '../client/manifests.js';
import { CliError, type Cli } from './cli.js';

export type { Manifest };

export async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    size += b.length;
    if (size > maxManifestBytes) throw new CliError(`standard input is larger than ${maxManifestBytes} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function readManifests(cli: Cli, filenames: string[], recursive = false): Promise<Manifest[]> {
  const out: Manifest[] = [];
  for (const f of filenames) {
    if (f === '-') {
      cli.markStdinUsed();
      out.push(...(await parseManifests(await readStream(cli.streams.stdin), 'standard input')));
    } else if (/^https?:\/\//.test(f)) {
      const res = await fetch(f);
      if (!res.ok) throw new CliError(`${f}: HTTP ${res.status}`);
      out.push(...(await parseManifests(await res.text(), f)));
    } else {
      out.push(...(await readManifestFiles([f], { recursive })));
    }
  }
  if (!out.length && filenames.length) throw new CliError(`no objects passed to the command (from ${filenames.join(', ')})`);
  return out;
}
