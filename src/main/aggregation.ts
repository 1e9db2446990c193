// The aggregation layer as modules of the composition root: the front-proxy identity (the configured client
// certificate, or one issued from a front-proxy CA made at start), published for backends in the
// extension-apiserver-authentication ConfigMap; the availability check of every APIService with a backend, which
// also keeps each backend's resource list (for discovery) and OpenAPI document (for the merged one); and the
// registration of the local APIServices.
import { readFileSync } from 'node:fs';
import type { Naming } from '../api/naming.js';
import type { ApiObject } from '../api/meta.js';
import type { APIService, APIServiceCondition } from '../api/types/apiregistration-v1.js';
import { createCertificateAuthority } from '../pki/certificates.js';
import { issueClientCertificate } from '../pki/pki.js';
import type { ApiResources } from '../registry/resources.js';
import type { Backends } from '../registry/backends.js';
import { noAdmission } from '../registry/store.js';
import { apiServiceLookup, registerLocalApiServices, type ApiServiceLookup } from '../registry/resources/apiregistration/apiservices/lookup.js';
import type { WatchCache } from '../watch/cache.js';
import { aggregator, type Aggregator, type FrontProxyIdentity } from '../endpoints/aggregation.js';
import type { RemoteGroups } from '../discovery/discovery.js';
import type { RemoteSpecs } from '../openapi/openapi.js';
import type { ApiServerOptions } from '../config/apiserver-options.js';
import type { Logger } from '../http/server.js';

export const frontProxyClientName = 'front-proxy-client';
const defaultHeaders = { usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] };

export interface FrontProxy { identity: FrontProxyIdentity; caPem: string; allowedNames: string[] }

/** the configured proxy client certificate, or one issued from a front-proxy CA made now */
export function frontProxy(options: ApiServerOptions): FrontProxy {
  const rh = options.authentication.requestHeader;
  const headers = {
    usernameHeaders: rh?.usernameHeaders.length ? rh.usernameHeaders : defaultHeaders.usernameHeaders,
    groupHeaders: rh?.groupHeaders.length ? rh.groupHeaders : defaultHeaders.groupHeaders,
    extraHeaderPrefixes: rh?.extraHeadersPrefixes.length ? rh.extraHeadersPrefixes : defaultHeaders.extraHeaderPrefixes,
  };
  const { proxyClientCertFile: certFile, proxyClientKeyFile: keyFile } = options.aggregation;
  if (certFile && keyFile) {
    // the CA backends check it against is the one of --requestheader-client-ca-file, published when given
    return {
      identity: { certPem: readFileSync(certFile, 'utf8'), keyPem: readFileSync(keyFile, 'utf8'), ...headers },
      caPem: rh ? readFileSync(rh.clientCaFile, 'utf8') : '', allowedNames: rh?.allowedNames ?? [],
    };
  }
  const ca = createCertificateAuthority(`front-proxy-ca@${Math.floor(Date.now() / 1000)}`, 10 * 365 * 24 * 3600);
  return { identity: { ...issueClientCertificate(ca, frontProxyClientName), ...headers }, caPem: ca.certPem, allowedNames: [frontProxyClientName] };
}

export interface Aggregation {
  lookup: ApiServiceLookup;
  proxy: Aggregator;
  remoteGroups: RemoteGroups;
  remoteSpecs: RemoteSpecs;
  /** checks every APIService with a backend now and then every interval; returns its stop */
  startAvailability(intervalMs: number, log: Logger): { stop(): void };
  /** the local APIServices, and the ConfigMap backends read the request-header settings from */
  register(clientCaPem: string): Promise<void>;
}

interface Discovered { resources?: Array<{ name: string }>; openapi?: { paths?: Record<string, unknown>; definitions?: Record<string, unknown> } }

export function createAggregation(deps: { watchCache: WatchCache; resources: ApiResources; backends: Backends; names: Naming; front: FrontProxy }): Aggregation {
  const { resources, backends, names, front } = deps;
  const lookup = apiServiceLookup(deps.watchCache, resources, names);
  const proxy = aggregator(lookup, () => front.identity);
  const discovered = new Map<string, Discovered>();
  const listeners = new Set<() => void>();
  const changed = () => { for (const l of listeners) l(); };
  lookup.onChange(changed);
  const remotes = () => lookup.all().filter(a => a.spec?.service);

  const remoteGroups: RemoteGroups = {
    priority: (g, v) => lookup.priority(g, v),
    versions: () => remotes().map(a => ({
      group: a.spec!.group ?? '', version: a.spec!.version ?? '', available: lookup.available(a)?.status === 'True',
      resources: discovered.get(a.metadata!.name!)?.resources as never,
    })),
    onChange: fn => { listeners.add(fn); },
  };
  const remoteSpecs: RemoteSpecs = {
    groupVersions: () => remotes().map(a => `apis/${a.spec!.group}/${a.spec!.version}`),
    v2Documents: () => remotes().flatMap(a => discovered.get(a.metadata!.name!)?.openapi ?? []),
    onChange: fn => { listeners.add(fn); },
  };

  const apiServices = () => backends.preferred(names.group('apiregistration'), 'apiservices')!.store;
  const json = (body: Buffer) => { try { return JSON.parse(body.toString('utf8')); } catch { return undefined; } };

  /** the Available condition a backend earns now, keeping what it tells discovery and the OpenAPI */
  async function check(a: APIService): Promise<Pick<APIServiceCondition, 'status' | 'reason' | 'message'>> {
    const name = a.metadata!.name!;
    const address = lookup.address(a);
    if (!address.ok) return { status: 'False', reason: address.reason, message: address.message };
    const path = `/apis/${a.spec!.group}/${a.spec!.version}`;
    try {
      const res = await proxy.fetch(a, path, 5000);
      if (res.status < 200 || res.status >= 300) throw new Error(`bad status from https://${address.host}:${address.port}${path}: ${res.status}`);
      const list = json(res.body) as { resources?: Array<{ name: string }> } | undefined;
      const before = discovered.get(name);
      const entry: Discovered = { ...before, resources: Array.isArray(list?.resources) ? list!.resources : [] };
      if (!before?.openapi) {
        const spec = await proxy.fetch(a, '/openapi/v2', 10_000).catch(() => undefined);
        if (spec && spec.status === 200) entry.openapi = json(spec.body);
      }
      if (JSON.stringify(before) !== JSON.stringify(entry)) { discovered.set(name, entry); changed(); }
      return { status: 'True', reason: 'Passed', message: 'all checks passed' };
    } catch (e) {
      return { status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from https://${address.host}:${address.port}${path}: ${(e as Error).message}` };
    }
  }

  async function writeCondition(a: APIService, c: Pick<APIServiceCondition, 'status' | 'reason' | 'message'>) {
    const was = lookup.available(a);
    if (was && was.status === c.status && was.reason === c.reason && was.message === c.message) return;
    await apiServices().guaranteedUpdate('', a.metadata!.name!, 'status', (cur: ApiObject | undefined) => {
      const obj = cur as APIService;
      const old = obj.status?.conditions?.find(x => x.type === 'Available');
      const lastTransitionTime = old && old.status === c.status ? old.lastTransitionTime : new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      const others = (obj.status?.conditions ?? []).filter(x => x.type !== 'Available');
      return { ...obj, status: { ...obj.status, conditions: [...others, { type: 'Available', ...c, lastTransitionTime }] } } as ApiObject;
    }, noAdmission, { dryRun: false });
  }

  return {
    lookup, proxy, remoteGroups, remoteSpecs,
    startAvailability(intervalMs, log) {
      let stopped = false, running = false, again = false;
      const pass = async () => {
        if (running) { again = true; return; }
        running = true;
        try {
          do {
            again = false;
            await lookup.ready;
            for (const name of [...discovered.keys()]) if (!remotes().some(a => a.metadata?.name === name)) discovered.delete(name);
            await Promise.all(remotes().map(async a => {
              const c = await check(a);
              if (c.status !== 'True' && discovered.get(a.metadata!.name!)?.openapi) { discovered.delete(a.metadata!.name!); changed(); }
              if (!stopped) await writeCondition(a, c).catch(e => log.warn(`APIService ${a.metadata?.name}: ${(e as Error).message}`));
            }));
          } while (again && !stopped);
        } finally { running = false; }
      };
      // a change of an APIService, Service or Endpoints is checked at once; the timer catches backends going away
      const off = lookup.onChange(() => { if (!stopped) void pass(); });
      const timer = setInterval(() => void pass(), intervalMs);
      timer.unref();
      void pass();
      return { stop() { stopped = true; clearInterval(timer); off(); } };
    },
    async register(clientCaPem) {
      await registerLocalApiServices(lookup, backends, resources, names);
      const configMaps = backends.preferred('', 'configmaps')?.store;
      if (!configMaps) return;
      const data = {
        'client-ca-file': clientCaPem,
        'requestheader-client-ca-file': front.caPem,
        'requestheader-allowed-names': JSON.stringify(front.allowedNames),
        'requestheader-username-headers': JSON.stringify(front.identity.usernameHeaders),
        'requestheader-group-headers': JSON.stringify(front.identity.groupHeaders),
        'requestheader-extra-headers-prefix': JSON.stringify(front.identity.extraHeaderPrefixes),
      };
      await configMaps.guaranteedUpdate(names.systemNamespace, 'extension-apiserver-authentication', '', (cur: ApiObject | undefined) => ({
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { ...(cur?.metadata ?? {}), name: 'extension-apiserver-authentication', namespace: names.systemNamespace }, data,
      }) as ApiObject, noAdmission, { dryRun: false, allowCreate: true });
    },
  };
}
