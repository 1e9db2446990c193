// What every command shares: the streams, the global flags, and the configuration, client and discovery,
// each made once and only when a command needs it.

import type { Naming } from '../api/naming.js';
import { discover, type Discovery } from '../client/discovery.js';
import { ApiError, createClient, type Client } from '../client/rest-client.js';
import { resolveClientConfig, type ClientConfig } from '../config/client-config.js';
import { kubeconfigLoading, loadKubeconfig, type MergedKubeconfig } from '../config/kubeconfig.js';

export interface Streams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

export interface GlobalFlags {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  server?: string;
  token?: string;
  as?: string;
  asGroup?: string[];
  asUid?: string;
  certificateAuthority?: string;
  clientCertificate?: string;
  clientKey?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  requestTimeout?: string;
}

/** A failure of the command itself (not of the server): printed as `error: <message>`. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

/** A command that ends with a code other than 0 after it printed what went wrong (`diff` found differences). */
export class ExitCode extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

export interface Cli {
  readonly streams: Streams;
  flags(): GlobalFlags;
  kubeconfig(): Promise<MergedKubeconfig>;
  config(): Promise<ClientConfig>;
  client(): Promise<Client>;
  discovery(): Promise<Discovery>;
  names(): Promise<Naming>;
  /** `--namespace`, else the context's, else `default`; `explicit` when the flag named it */
  namespace(): Promise<{ namespace: string; explicit: boolean }>;
  out(text: string): void;
  err(text: string): void;
  /** a command reads standard input itself (a manifest from `-`): an exec plugin must not */
  markStdinUsed(): void;
  close(): void;
}

/** `--request-timeout`: `0` (none), a bare number of seconds, or a duration such as `30s`, `1m`, `500ms` */
export function parseDuration(text: string, flag = 'duration'): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new CliError(`invalid ${flag} "${text}": use a number with a unit such as 30s, 5m or 1h`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * unit;
}

export function createCli(streams: Streams, flags: () => GlobalFlags, userAgent: string): Cli {
  let merged: Promise<MergedKubeconfig> | undefined;
  let config: Promise<ClientConfig> | undefined;
  let client: Promise<Client> | undefined;
  let discovery: Promise<Discovery> | undefined;
  let stdinUsed = false;
  const cli: Cli = {
    streams,
    flags,
    kubeconfig: () => (merged ??= loadKubeconfig(kubeconfigLoading({ explicit: flags().kubeconfig }))),
    config: () => (config ??= cli.kubeconfig().then((m) => {
      const f = flags();
      return resolveClientConfig(m, {
        context: f.context, cluster: f.cluster, user: f.user, namespace: f.namespace, server: f.server, token: f.token,
        certificateAuthority: f.certificateAuthority, clientCertificate: f.clientCertificate, clientKey: f.clientKey,
        insecureSkipTLSVerify: f.insecureSkipTlsVerify, tlsServerName: f.tlsServerName,
        as: f.as, asGroups: f.asGroup, asUid: f.asUid,
      });
    })),
    client: () => (client ??= cli.config().then((c) => {
      const timeout = flags().requestTimeout;
      const timeoutMs = timeout && timeout !== '0' ? parseDuration(timeout, '--request-timeout') : undefined;
      return createClient(c, {
        userAgent, qps: 0, timeoutMs,
        execIO: { stderr: streams.stderr, stdinIsTerminal: streams.stdin.isTTY === true, get stdinUnavailable() { return stdinUsed; } },
      });
    })),
    discovery: () => (discovery ??= cli.client().then(discover)),
    names: async () => (await cli.discovery()).names,
    async namespace() {
      const f = flags();
      if (f.namespace) return { namespace: f.namespace, explicit: true };
      const c = await cli.config().catch(() => undefined);
      return { namespace: c?.namespace ?? 'default', explicit: false };
    },
    out: (text) => { streams.stdout.write(text); },
    err: (text) => { streams.stderr.write(text); },
    markStdinUsed: () => { stdinUsed = true; },
    close() {
      void client?.then((c) => c.close(), () => {});
    },
  };
  return cli;
}

/** How the reference prints a failure: the server's reason and message, or the client's own. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) {
    const message = e.status?.message ?? e.message;
    const reason = e.status?.reason || (e.code === 401 ? 'Unauthorized' : e.code === 403 ? 'Forbidden' : e.reason);
    return `Error from server${reason && reason !== 'Unknown' ? ` (${reason})` : ''}: ${message}`;
  }
  const message = e instanceof Error ? e.message : String(e);
  // no answer at all: the server's address refused the connection, or the connection failed before any answer
  const { code, address, port } = (e ?? {}) as NodeJS.ErrnoException & { address?: string; port?: number };
  if (code === 'ECONNREFUSED' && address) {
    return `The connection to the server ${address.includes(':') ? `[${address}]` : address}:${port} was refused - did you specify the right host or port?`;
  }
  if (code && connectionFailures.test(code)) return `Unable to connect to the server: ${message}`;
  return `error: ${message}`;
}

/** the codes of a connection that failed before any answer: network errors, and a server certificate not trusted */
const connectionFailures = /^(ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ERR_TLS_CERT_ALTNAME_INVALID|ERR_SSL_.*|.*CERT.*|UNABLE_TO_.*)$/;
