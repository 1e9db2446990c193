// The APIService availability controller of the aggregation layer, a client of the API as the reference's is: it
// watches APIServices, Services and Endpoints, and for every APIService with a Service finds the backend address
// and asks the backend for its group version's discovery document with the front-proxy identity, then writes the
// Available condition (with the reference's reasons) through `apiservices/status`. It checks at once on a change and
// every interval, so a backend that goes away is noticed. It is not one of the controller manager's controllers:
// the API server runs it, holding the front-proxy certificate.
import { request as httpsRequest } from 'node:https';
import type { Naming } from '../api/naming.js';
import type { APIService, APIServiceCondition } from '../api/types/apiregistration-v1.js';
import type { Endpoints, Service } from '../api/types/core-v1.js';
import { backendAddress } from '../api/apiservices.js';
import { isConflict, isNotFound, type Client, type ResourceRef } from '../client/rest-client.js';
import { startInformer, type Informer } from '../client/informer.js';

export interface Logger { info(m: string): void; warn(m: string): void; error(m: string): void }

/** the client certificate shown to backends, and the header the user is named in */
export interface ProbeIdentity { certPem: string; keyPem: string; usernameHeader: string; groupHeader: string }

export type Availability = Pick<APIServiceCondition, 'status' | 'reason' | 'message'>;

export interface AvailabilityOptions {
  client: Client;
  names: Naming;
  identity: ProbeIdentity;
  intervalMs: number;
  log: Logger;
  /** how long a backend may take to answer a probe (default 5 s) */
  probeTimeoutMs?: number;
  /** told of each APIService's availability before it is written (the API server reads an available backend's discovery then) */
  observed?(apiService: APIService, availability: Availability): Promise<void>;
}

const probeUser = { username: 'system:kube-aggregator', groups: ['system:masters'] };
const rfc3339 = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/** a GET of the backend's discovery document: resolves with its status code */
function probe(a: APIService, host: string, port: number, identity: ProbeIdentity, timeoutMs: number): Promise<number> {
  const ref = a.spec!.service!;
  return new Promise((resolve, reject) => {
    const req = httpsRequest({
      host, port, method: 'GET', path: `/apis/${a.spec!.group}/${a.spec!.version}`, timeout: timeoutMs, agent: false,
      headers: { accept: 'application/json', [identity.usernameHeader]: probeUser.username, [identity.groupHeader]: probeUser.groups },
      cert: identity.certPem, key: identity.keyPem,
      ca: a.spec?.caBundle ? Buffer.from(a.spec.caBundle, 'base64').toString('utf8') : undefined,
      rejectUnauthorized: !a.spec?.insecureSkipTLSVerify, servername: `${ref.name}.${ref.namespace}.svc`,
    // the status is all the check reads: the body is not waited for (a backend could send it for ever)
    }, res => { resolve(res.statusCode ?? 0); res.destroy(); });
    req.on('timeout', () => req.destroy(new Error(`no response within ${timeoutMs / 1000}s`)));
    req.on('error', reject);
    req.end();
  });
}

/** the Available condition an APIService earns now */
export async function availability(a: APIService, service: Service | undefined, endpoints: Endpoints | undefined, identity: ProbeIdentity, timeoutMs: number): Promise<Availability> {
  const address = backendAddress(a, service, endpoints);
  if (!address.ok) return { status: 'False', reason: address.reason, message: address.message };
  const where = `https://${address.host}:${address.port}/apis/${a.spec!.group}/${a.spec!.version}`;
  try {
    const code = await probe(a, address.host, address.port, identity, timeoutMs);
    if (code >= 200 && code < 300) return { status: 'True', reason: 'Passed', message: 'all checks passed' };
    return { status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${where}: bad status from ${where}: ${code}` };
  } catch (e) {
    return { status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${where}: ${(e as Error).message}` };
  }
}

export function startApiServiceAvailability(o: AvailabilityOptions): { ready: Promise<void>; stop(): void } {
  const apiServicesRef: ResourceRef<APIService> = { group: o.names.group('apiregistration'), version: 'v1', resource: 'apiservices' };
  let stopped = false, running = false, again = false;
  const onError = (what: string) => (e: unknown) => o.log.warn(`APIService availability: ${what}: ${(e as Error).message}`);
  const informer = <T>(ref: ResourceRef<T>, what: string): Informer<T> => startInformer(o.client.resource(ref), () => { if (!stopped) void pass(); }, { onError: onError(`watching ${what}`) });
  const apiServices = informer(apiServicesRef, 'APIServices');
  const services = informer<Service>({ group: '', version: 'v1', resource: 'services' }, 'Services');
  const endpoints = informer<Endpoints>({ group: '', version: 'v1', resource: 'endpoints' }, 'Endpoints');
  const synced = Promise.all([apiServices.synced, services.synced, endpoints.synced]);

  async function write(name: string, c: Availability) {
    const resource = o.client.resource(apiServicesRef);
    for (let attempt = 0; attempt < 5 && !stopped; attempt++) {
      const current = await resource.get(name).catch(e => { if (isNotFound(e)) return undefined; throw e; });
      if (!current?.spec?.service) return;
      const old = current.status?.conditions?.find(x => x.type === 'Available');
      if (old && old.status === c.status && old.reason === c.reason && old.message === c.message) return;
      const lastTransitionTime = old && old.status === c.status ? old.lastTransitionTime : rfc3339();
      const others = (current.status?.conditions ?? []).filter(x => x.type !== 'Available');
      try {
        await resource.status.update({ ...current, status: { ...current.status, conditions: [...others, { type: 'Available', ...c, lastTransitionTime }] } });
        return;
      } catch (e) {
        if (!isConflict(e)) throw e;
      }
    }
  }

  async function pass() {
    if (running) { again = true; return; }
    running = true;
    try {
      do {
        again = false;
        await synced;
        const key = (ns = '', name = '') => `${ns}/${name}`;
        await Promise.all([...apiServices.store.values()].filter(a => a.spec?.service).map(async a => {
          const ref = a.spec!.service!;
          const c = await availability(a, services.store.get(key(ref.namespace, ref.name)), endpoints.store.get(key(ref.namespace, ref.name)), o.identity, o.probeTimeoutMs ?? 5000);
          await o.observed?.(a, c).catch(onError(`APIService ${a.metadata?.name}`));
          const was = a.status?.conditions?.find(x => x.type === 'Available');
          if (stopped || (was && was.status === c.status && was.reason === c.reason && was.message === c.message)) return;
          await write(a.metadata!.name!, c).catch(onError(`APIService ${a.metadata?.name}`));
        }));
      } while (again && !stopped);
    } finally { running = false; }
  }

  const timer = setInterval(() => void pass(), o.intervalMs);
  timer.unref();
  return {
    // the first pass is not waited for: a backend that does not answer must not hold up the server's start
    ready: synced.then(() => { void pass(); }),
    stop() {
      stopped = true;
      clearInterval(timer);
      for (const i of [apiServices, services, endpoints]) i.stop();
    },
  };
}
