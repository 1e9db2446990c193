// The API server's identity (feature gate APIServerIdentity, beta and on in 1.27): each server keeps a Lease
// `kube-apiserver-<hash of its host name>` in the system namespace, held by `<that name>_<a uuid of this start>`,
// 3600 s long and renewed every 10 s, labelled `apiserver.<labelDomain>/identity: kube-apiserver` and with the host
// name. The leases of servers gone (not renewed within their duration) are deleted by any server: once at start and
// then every hour. Written through the stores of the registry, as the server's other hooks are.
import { createHash, randomUUID } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import type { Naming } from '../api/naming.js';
import type { ApiObject } from '../api/meta.js';
import type { Backends } from '../registry/backends.js';
import { noAdmission } from '../registry/store.js';
import type { Logger } from '../http/server.js';

export interface IdentityLeaseOptions {
  backends: Backends;
  names: Naming;
  log: Logger;
  /** the host name the identity is derived from (default: this host's) */
  hostname?: string;
  /** how often the lease is renewed (the reference: 10 s) */
  renewIntervalMs?: number;
  /** the lease's duration (the reference: 3600 s) */
  leaseDurationSeconds?: number;
  /** how often expired leases of other servers are looked for (the reference: 3600 s, and once at start) */
  gcPeriodMs?: number;
}

export const identityComponent = 'kube-apiserver';
const write = { dryRun: false };

/** the lease name of a server on this host: the first 16 bytes of the host name's SHA-256, in lower-case base32 */
export function apiServerIdentity(hostname: string): string {
  return `${identityComponent}-${base32(createHash('sha256').update(hostname).digest().subarray(0, 16)).toLowerCase()}`;
}

/** RFC 4648 base32 without padding */
function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) { out += alphabet[(value >>> (bits - 5)) & 31]; bits -= 5; }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** a MicroTime of now (the reference writes microseconds; a Date has milliseconds) */
const microNow = () => new Date().toISOString().replace('Z', '000Z');

type LeaseObject = ApiObject & { spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string } };

export function startIdentityLease(o: IdentityLeaseOptions): { stop(): void } {
  const { names, backends } = o;
  const leases = backends.preferred(names.group('coordination'), 'leases')?.store;
  if (!leases) return { stop() {} };
  const host = o.hostname ?? osHostname();
  const name = apiServerIdentity(host);
  const holderIdentity = `${name}_${randomUUID()}`;
  const namespace = names.systemNamespace;
  const labels = { [`apiserver.${names.labelDomain}/identity`]: identityComponent, [names.label('hostname')]: host };

  const renew = () => leases.guaranteedUpdate(namespace, name, '', (cur) => ({
    ...(cur ?? { apiVersion: `${names.group('coordination')}/v1`, kind: 'Lease' }),
    metadata: { ...(cur?.metadata ?? { name, namespace }), labels: { ...cur?.metadata.labels, ...labels } },
    spec: { ...(cur as LeaseObject | undefined)?.spec, holderIdentity, leaseDurationSeconds: o.leaseDurationSeconds ?? 3600, renewTime: microNow() },
  }) as ApiObject, noAdmission, { ...write, allowCreate: true });

  return every(o.renewIntervalMs ?? 10_000, () => renew().then(() => {}, (e) => o.log.warn(`identity lease ${name}: ${(e as Error).message}`)));
}

/** deletes the identity leases that ran out: their servers are gone (one renewed meanwhile is kept by the precondition) */
export function startIdentityLeaseGc(o: IdentityLeaseOptions): { stop(): void } {
  const { names, backends } = o;
  const group = names.group('coordination');
  const leases = backends.preferred(group, 'leases')?.store;
  if (!leases) return { stop() {} };
  const namespace = names.systemNamespace;
  const label = `apiserver.${names.labelDomain}/identity`;
  const expired = (l: LeaseObject, now: number) => {
    const renewed = Date.parse(l.spec?.renewTime ?? '');
    return l.spec?.leaseDurationSeconds === undefined || !Number.isFinite(renewed) || renewed + l.spec.leaseDurationSeconds * 1000 < now;
  };
  const collect = async () => {
    const now = Date.now();
    const all = await backends.listers.list(group, 'leases', namespace) as LeaseObject[];
    for (const l of all) {
      if (l.metadata.labels?.[label] !== identityComponent || l.metadata.deletionTimestamp || !expired(l, now)) continue;
      await leases.delete(namespace, l.metadata.name!, { preconditions: { resourceVersion: l.metadata.resourceVersion } }, noAdmission).catch(() => {});
    }
  };
  return every(o.gcPeriodMs ?? 3_600_000, () => collect().catch((e) => o.log.warn(`identity lease collector: ${(e as Error).message}`)));
}

/** runs the work now and then each period after the last run ended, until stopped */
function every(periodMs: number, work: () => Promise<void>): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = () => { void work().finally(() => { if (!stopped) { timer = setTimeout(run, periodMs); timer.unref(); } }); };
  run();
  return { stop() { stopped = true; clearTimeout(timer); } };
}
