// cp: files and folders between here and a container, as a tar stream through `exec` (so the container needs
// `tar`): `POD:PATH LOCAL` copies out, `LOCAL POD:PATH` copies in; NAMESPACE/POD:PATH names another namespace.

import { cpSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { CliError, type Cli } from '../cli.js';
import { containerOf, podFor } from '../pods.js';

interface Remote { namespace?: string; pod: string; path: string }

/** `pod:path` or `namespace/pod:path`; a local path with a colon is written ./a:b */
function remoteOf(spec: string): Remote | undefined {
  const m = /^(?:([^/:]+)\/)?([^/:]+):(.*)$/.exec(spec);
  if (!m || spec.startsWith('./') || spec.startsWith('/')) return undefined;
  if (!m[3]) throw new CliError(`${spec}: the remote path is empty`);
  return { namespace: m[1], pod: m[2]!, path: m[3] };
}

export function cpCommand(cli: Cli): Command {
  return new Command('cp')
    .description('Copy files and folders to and from containers')
    .argument('<source>', 'POD:PATH or a local path')
    .argument('<destination>', 'POD:PATH or a local path')
    .option('-c, --container <name>', 'the container (default: the only or the default one)')
    .option('--no-preserve', 'do not keep ownership and permissions in the container')
    .action(async (source: string, destination: string, f: { container?: string; preserve: boolean }) => {
      const from = remoteOf(source);
      const to = remoteOf(destination);
      if (!!from === !!to) throw new CliError('one of source and destination must be a container path (POD:PATH) and the other a local path');
      const remote = (from ?? to)!;
      const { namespace: ns, pod } = await podFor(cli, remote.pod, remote.namespace);
      const container = await containerOf(cli, pod, f.container);
      const client = await cli.client();
      const names = await cli.names();
      const [tar, { execInPod }] = await Promise.all([import('tar'), import('../../client/streams.js')]);
      const errors = new PassThrough();
      let errorText = '';
      errors.on('data', (c: Buffer) => { errorText += c.toString('utf8'); });
      if (from) {
        const work = mkdtempSync(join(tmpdir(), 'clusterctl-cp-'));
        try {
          const extract = tar.x({ cwd: work, strict: true });
          const done = new Promise<void>((resolve, reject) => extract.on('finish', resolve).on('error', reject));
          const { exitCode } = await execInPod(client, names, {
            namespace: ns, pod: pod.metadata.name, container, stdout: extract as unknown as NodeJS.WritableStream, stderr: errors,
            command: ['tar', 'cf', '-', '-C', posix.dirname(from.path) || '/', posix.basename(from.path)],
          });
          extract.end();
          if (exitCode !== 0) throw new CliError(`copying ${source} failed (tar exited ${exitCode}): ${errorText.trim()}`);
          await done;
          rmSync(destination, { recursive: true, force: true });
          renameSync(join(work, posix.basename(from.path)), destination);
        } finally {
          rmSync(work, { recursive: true, force: true });
        }
        return;
      }
      const stat = statSync(source, { throwIfNoEntry: false });
      if (!stat) throw new CliError(`${source} does not exist`);
      const work = mkdtempSync(join(tmpdir(), 'clusterctl-cp-'));
      try {
        const name = posix.basename(to!.path);
        cpSync(source, join(work, name), { recursive: true });
        const archive = tar.c({ cwd: work, portable: true }, [name]) as unknown as NodeJS.ReadableStream;
        const { exitCode } = await execInPod(client, names, {
          namespace: ns, pod: pod.metadata.name, container, stdin: archive, stderr: errors,
          command: ['tar', f.preserve ? 'xf' : 'xmf', '-', '-C', posix.dirname(to!.path) || '/'],
        });
        if (exitCode !== 0) throw new CliError(`copying to ${destination} failed (tar exited ${exitCode}): ${errorText.trim()}`);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    });
}
