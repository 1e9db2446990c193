// Runs a client credential plugin (spec §5.6): the command prints an ExecCredential whose status
// carries a token (and maybe an expiry). The request's apiVersion is the one the file names.

import { execFile } from 'node:child_process';
import type { ClientConfig, ExecConfig } from '../config/client-config.js';

export interface ExecToken {
  token?: string;
  expiresAt?: number;
}

export async function execCredential(exec: ExecConfig, cluster: Pick<ClientConfig, 'server' | 'caPem'>): Promise<ExecToken> {
  const apiVersion = exec.apiVersion ?? '';
  const info = {
    apiVersion,
    kind: 'ExecCredential',
    spec: { interactive: false, ...(exec.provideClusterInfo ? { cluster: { server: cluster.server, 'certificate-authority-data': cluster.caPem && Buffer.from(cluster.caPem).toString('base64') } } : {}) },
  };
  const env = { ...process.env, ...Object.fromEntries((exec.env ?? []).map((e) => [e.name, e.value])), CLUSTER_EXEC_INFO: JSON.stringify(info) };
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(exec.command, exec.args ?? [], { env, timeout: 60_000 }, (err, out, errText) => {
      if (err) reject(new Error(`credential plugin ${exec.command} failed: ${errText.trim() || err.message}${exec.installHint ? `\n${exec.installHint}` : ''}`));
      else resolve(out);
    }),
  );
  let doc: any;
  try {
    doc = JSON.parse(stdout);
  } catch {
    throw new Error(`credential plugin ${exec.command} printed no ExecCredential JSON`);
  }
  if (doc?.kind !== 'ExecCredential') throw new Error(`credential plugin ${exec.command} printed kind ${doc?.kind}, not ExecCredential`);
  if (apiVersion && doc.apiVersion !== apiVersion) throw new Error(`credential plugin ${exec.command} answered ${doc.apiVersion}, expected ${apiVersion}`);
  const expiry = doc.status?.expirationTimestamp ? Date.parse(doc.status.expirationTimestamp) : undefined;
  return { token: doc.status?.token, expiresAt: expiry };
}
