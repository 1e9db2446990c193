// Client credential plugins (spec 5.6). The command gets an ExecCredential in `<VENDOR>_EXEC_INFO`
// (`spec.interactive`, and `spec.cluster` when it asks for the cluster) and prints one on stdout with a token or
// a client certificate and key, in the apiVersion its configuration names. What it printed is kept until its
// `expirationTimestamp`, until the server answers 401 to it, or until the process ends; a client certificate
// that changes makes the client open a new TLS connection (rest-client.ts).

import { spawn } from 'node:child_process';
import { apiDomains, naming } from '../api/naming.js';
import type { ExecClusterInfo, ExecConfig } from '../config/client-config.js';

export interface Credential {
  token?: string;
  /** PEM; may carry intermediates after the leaf */
  certPem?: string;
  keyPem?: string;
  /** ms since the epoch; absent: kept until a 401 or the end of the process */
  expiresAt?: number;
}

export interface ExecIO {
  /** whether standard input is a terminal; default: process.stdin.isTTY */
  stdinIsTerminal?: boolean;
  /** standard input is taken by something else (e.g. a manifest read from `-`) */
  stdinUnavailable?: boolean;
  /** where the plugin's stderr goes; default process.stderr */
  stderr?: NodeJS.WritableStream;
}

export interface CredentialSource {
  /** the cached credential, or a fresh one from the plugin */
  get(): Promise<Credential>;
  /** the server refused `used` (401): the next get() runs the plugin again */
  invalidate(used: Credential): void;
}

export class ExecPluginError extends Error {
  override name = 'ExecPluginError';
}

const maxOutputBytes = 1 << 20;

/** The environment variable the plugin reads its input from: `CLUSTER_EXEC_INFO` in the default domain. */
export function execInfoVariable(apiVersion: string): string {
  const group = apiVersion.split('/')[0];
  const domain = apiDomains.find((d) => naming(d).group('client.authentication') === group);
  if (!domain) throw new ExecPluginError(`exec plugin apiVersion "${apiVersion}" names no known API domain (${apiDomains.join(', ')})`);
  return `${naming(domain).vendor.toUpperCase()}_EXEC_INFO`;
}

/** Credentials are shared by every client of the process that runs the same plugin for the same cluster. */
const cache = new Map<string, { credential?: Credential; running?: Promise<Credential> }>();

export function execCredentials(exec: ExecConfig, cluster?: ExecClusterInfo, io: ExecIO = {}): CredentialSource {
  const key = JSON.stringify([exec, exec.provideClusterInfo ? cluster : undefined]);
  const slot = cache.get(key) ?? {};
  cache.set(key, slot);
  const fresh = (c: Credential) => c.expiresAt === undefined || Date.now() < c.expiresAt;
  return {
    async get() {
      if (slot.credential && fresh(slot.credential)) return slot.credential;
      slot.running ??= runPlugin(exec, cluster, io).then(
        (c) => { slot.credential = c; slot.running = undefined; return c; },
        (e) => { slot.running = undefined; throw e; });
      return slot.running;
    },
    invalidate(used) {
      if (slot.credential === used) slot.credential = undefined;
    },
  };
}

/** Spec 5.6 on `interactiveMode`: whether the plugin gets standard input, and whether it may run at all. */
export function isInteractive(exec: ExecConfig, io: ExecIO): boolean {
  const available = !io.stdinUnavailable && (io.stdinIsTerminal ?? process.stdin.isTTY === true);
  switch (exec.interactiveMode) {
    case 'Never': return false;
    case 'IfAvailable': return available;
    case 'Always':
      if (!available) throw new ExecPluginError(`exec plugin ${exec.command} has interactiveMode Always, but standard input is ${io.stdinUnavailable ? 'in use' : 'not a terminal'}`);
      return true;
  }
}

export async function runPlugin(exec: ExecConfig, cluster: ExecClusterInfo | undefined, io: ExecIO = {}): Promise<Credential> {
  const interactive = isInteractive(exec, io);
  const input = {
    apiVersion: exec.apiVersion,
    kind: 'ExecCredential',
    spec: { interactive, ...(exec.provideClusterInfo && cluster ? { cluster } : {}) },
  };
  const env = { ...process.env, ...Object.fromEntries(exec.env.map((e) => [e.name, e.value])), [execInfoVariable(exec.apiVersion)]: JSON.stringify(input) };
  const stderr = io.stderr ?? process.stderr;
  const { code, stdout, stderrTail } = await new Promise<{ code: number | null; stdout: string; stderrTail: string }>((resolve, reject) => {
    const child = spawn(exec.command, exec.args, { env, stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let size = 0;
    let tail = '';
    child.stdout!.on('data', (b: Buffer) => {
      size += b.length;
      if (size > maxOutputBytes) child.kill('SIGKILL');
      else out.push(b);
    });
    child.stderr!.on('data', (b: Buffer) => {
      stderr.write(b);
      tail = (tail + b.toString('utf8')).slice(-2000);
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' || e.code === 'EACCES') {
        const why = e.code === 'ENOENT' ? 'not found' : 'not executable';
        reject(new ExecPluginError(`exec plugin: executable ${exec.command} ${why}${exec.installHint ? `\n\n${exec.installHint}` : ''}`));
      } else reject(new ExecPluginError(`exec plugin ${exec.command}: ${e.message}`));
    });
    child.on('close', (c) => resolve({ code: size > maxOutputBytes ? -1 : c, stdout: Buffer.concat(out).toString('utf8'), stderrTail: tail.trim() }));
  });
  const name = `exec plugin ${exec.command}`;
  if (code === -1) throw new ExecPluginError(`${name} printed more than ${maxOutputBytes} bytes`);
  if (code !== 0) throw new ExecPluginError(`${name} failed with exit code ${code}${stderrTail ? `: ${stderrTail}` : ''}`);
  let doc: any;
  try {
    doc = JSON.parse(stdout);
  } catch {
    throw new ExecPluginError(`${name} printed no ExecCredential JSON`);
  }
  if (doc?.kind !== 'ExecCredential') throw new ExecPluginError(`${name} printed kind ${JSON.stringify(doc?.kind)}, not ExecCredential`);
  if (doc.apiVersion !== exec.apiVersion)
    throw new ExecPluginError(`${name} answered in ${JSON.stringify(doc.apiVersion)}, but its configuration names ${exec.apiVersion}`);
  const status = doc.status;
  if (!status || typeof status !== 'object') throw new ExecPluginError(`${name} printed an ExecCredential without status`);
  const text = (k: string): string | undefined => (typeof status[k] === 'string' && status[k] !== '' ? status[k] : undefined);
  const credential: Credential = { token: text('token'), certPem: text('clientCertificateData'), keyPem: text('clientKeyData') };
  if (!credential.certPem !== !credential.keyPem) throw new ExecPluginError(`${name} printed a client ${credential.certPem ? 'certificate without its key' : 'key without its certificate'}`);
  if (!credential.token && !credential.certPem) throw new ExecPluginError(`${name} printed neither a token nor a client certificate and key`);
  if (status.expirationTimestamp !== undefined && status.expirationTimestamp !== null) {
    const at = Date.parse(String(status.expirationTimestamp));
    if (!Number.isFinite(at)) throw new ExecPluginError(`${name} printed an expirationTimestamp that is not RFC 3339: ${JSON.stringify(status.expirationTimestamp)}`);
    credential.expiresAt = at;
  }
  return credential;
}
