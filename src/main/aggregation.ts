// The aggregation layer as modules of the composition root: the front-proxy identity (the configured client
// certificate, or one issued from a front-proxy CA made at start), published for backends in the
// extension-apiserver-authentication ConfigMap; the availability controller (a client of this server, as the
// reference's is); each available backend's resource list (for discovery) and OpenAPI document (for the merged
// one); and the registration of the local APIServices.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Naming } from '../api/naming.js';
import type { ApiObject } from '../api/meta.js';
import type { APIService } from '../api/types/apiregistration-v1.js';
import { createCertificateAuthority, type CertificateAuthority } from '../pki/certificates.js';
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
import { startApiServiceAvailability } from '../controllers/apiservice-availability.js';
import { loopbackClient, type Loopback } from './loopback.js';
import { combinedAuthenticationData, type AuthenticationInfo } from './authentication-trust.js';

export const frontProxyClientName = 'front-proxy-client';
const defaultHeaders = { usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] };

export interface FrontProxy { identity: FrontProxyIdentity; caPem: string; allowedNames: string[] }

/** the configured proxy client pair, checked now: a pair that cannot be used would fail every backend request later */
function proxyClientPair(certFile: string, keyFile: string): { certPem: string; keyPem: string } {
  const read = (flag: string, file: string) => {
    try { return readFileSync(file, 'utf8'); } catch (e) { throw new Error(`${flag}: ${(e as Error).message}`); }
  };
  const certPem = read('--proxy-client-cert-file', certFile), keyPem = read('--proxy-client-key-file', keyFile);
  let cert: X509Certificate;
  try { cert = new X509Certificate(certPem); } catch { throw new Error(`--proxy-client-cert-file ${certFile}: no PEM certificate`); }
  let key: KeyObject;
  try { key = createPrivateKey(keyPem); } catch { throw new Error(`--proxy-client-key-file ${keyFile}: no PEM private key`); }
  if (!cert.checkPrivateKey(key)) throw new Error(`--proxy-client-key-file ${keyFile}: the key is not the one of --proxy-client-cert-file ${certFile}`);
  return { certPem, keyPem };
}

/** the configured proxy client certificate, or one issued from the front-proxy CA given (else one made now) */
export function frontProxy(options: ApiServerOptions, generatedCa?: CertificateAuthority): FrontProxy {
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
      identity: { ...proxyClientPair(certFile, keyFile), ...headers },
      caPem: rh ? readFileSync(rh.clientCaFile, 'utf8') : '', allowedNames: rh?.allowedNames ?? [],
    };
  }
  const ca = generatedCa ?? createCertificateAuthority(`front-proxy-ca@${Math.floor(Date.now() / 1000)}`, 10 * 365 * 24 * 3600);
  return { identity: { ...issueClientCertificate(ca, frontProxyClientName), ...headers }, caPem: ca.certPem, allowedNames: [frontProxyClientName] };
}

export interface Aggregation {
  lookup: ApiServiceLookup;
  proxy: Aggregator;
  remoteGroups: RemoteGroups;
  remoteSpecs: RemoteSpecs;
  /** whether a backend serves the resource (and subresource) at a remote group version, as its discovery document says */
  servesRemote(group: string, version: string, resource: string, subresource: string): boolean;
  /**
   * the availability controller, a client of this server through its loopback address; before it writes that a
   * backend is available, the backend's discovery document (and OpenAPI, once) is read for this server's discovery
   */
  startAvailability(lb: Loopback, intervalMs: number, log: Logger): { stop(): void };
  /** the local APIServices */
  register(): Promise<void>;
  /**
   * the ConfigMap backends read the client and request-header CAs from, published now (ready) and again every
   * `intervalMs`, so that one deleted or overwritten comes back, as the reference's cluster-authentication-trust
   * controller keeps it; an unchanged ConfigMap is not written
   */
  keepAuthenticationTrust(clientCaPem: string, intervalMs: number, log: Logger): { ready: Promise<void>; stop(): void };
}

interface Discovered {
  resources?: Array<{ name: string }>;
  openapi?: { paths?: Record<string, unknown>; definitions?: Record<string, unknown> };
  /** whether the backend serves OpenAPI v3 documents (false when it answered 404 for /openapi/v3) */
  openapiV3?: boolean;
  /** the last read of the discovery document failed: what is known of it is stale, as the reference marks it */
  failed?: boolean;
}

export function createAggregation(deps: { watchCache: WatchCache; resources: ApiResources; backends: Backends; names: Naming; front: FrontProxy; rejectForwardingRedirect?: boolean }): Aggregation {
  const { resources, backends, names, front } = deps;
  const lookup = apiServiceLookup(deps.watchCache, resources, names);
  const discovered = new Map<string, Discovered>();
  /** a backend that answered 404 for /openapi/v3 and has a v2 document: its v3 document is converted here */
  const v2Only = (a: APIService) => { const d = discovered.get(a.metadata!.name!); return d?.openapiV3 === false && !!d.openapi; };
  const proxy = aggregator(lookup, () => front.identity, { rejectForwardingRedirect: deps.rejectForwardingRedirect, openapiV3Here: v2Only });
  const listeners = new Set<() => void>();
  const changed = () => { for (const l of listeners) l(); };
  lookup.onChange(changed);
  const remotes = () => lookup.all().filter(a => a.spec?.service);

  const remoteGroups: RemoteGroups = {
    priority: (g, v) => lookup.priority(g, v),
    versions: () => remotes().map(a => ({
      group: a.spec!.group ?? '', version: a.spec!.version ?? '',
      available: lookup.available(a)?.status === 'True' && !discovered.get(a.metadata!.name!)?.failed,
      resources: discovered.get(a.metadata!.name!)?.resources as never,
    })),
    onChange: fn => { listeners.add(fn); },
  };
  const remoteSpecs: RemoteSpecs = {
    // as the reference lists only the backends whose documents it could read: one that is down or answers no
    // discovery document is left out, rather than offered to clients that would then fail to read it
    groupVersions: () => remotes().filter(a => {
      const d = discovered.get(a.metadata!.name!);
      return !!d?.resources && !d.failed && !v2Only(a);
    }).map(a => `apis/${a.spec!.group}/${a.spec!.version}`),
    v2OnlyGroupVersions: () => remotes().filter(a => v2Only(a) && !discovered.get(a.metadata!.name!)!.failed)
      .map(a => ({ key: `apis/${a.spec!.group}/${a.spec!.version}`, document: discovered.get(a.metadata!.name!)!.openapi! })),
    v2Documents: () => remotes().flatMap(a => discovered.get(a.metadata!.name!)?.openapi ?? []),
    onChange: fn => { listeners.add(fn); },
  };

  const json = (body: Buffer) => { try { return JSON.parse(body.toString('utf8')); } catch { return undefined; } };

  /** what an available backend tells discovery (its resources) and the merged OpenAPI (fetched once) */
  async function discover(a: APIService, log: Logger) {
    const name = a.metadata!.name!;
    const before = discovered.get(name);
    try {
      const res = await proxy.fetch(a, `/apis/${a.spec!.group}/${a.spec!.version}`, 5000);
      if (res.status < 200 || res.status >= 300) throw new Error(`status ${res.status}`);
      const list = json(res.body) as { resources?: unknown } | undefined;
      if (!list || typeof list !== 'object' || (list.resources !== undefined && !Array.isArray(list.resources))) throw new Error('the answer is not an APIResourceList');
      const { failed: _failed, ...known } = before ?? {};
      const entry: Discovered = { ...known, resources: (list.resources as Array<{ name: string }> | undefined) ?? [] };
      if (!before?.openapi) {
        const spec = await proxy.fetch(a, '/openapi/v2', 10_000).catch(() => undefined);
        if (spec && spec.status === 200) entry.openapi = json(spec.body);
      }
      if (before?.openapiV3 === undefined) {
        const index = await proxy.fetch(a, '/openapi/v3', 10_000).catch(() => undefined);
        if (index) entry.openapiV3 = index.status !== 404;
      }
      if (JSON.stringify(before) !== JSON.stringify(entry)) { discovered.set(name, entry); changed(); }
    } catch (e) {
      log.warn(`APIService ${name}: reading its discovery document: ${(e as Error).message}`);
      if (!before?.failed) { discovered.set(name, { ...before, failed: true }); changed(); }
    }
  }

  return {
    lookup, proxy, remoteGroups, remoteSpecs,
    servesRemote(group, version, resource, subresource) {
      const a = lookup.remote(group, version);
      const name = subresource ? `${resource}/${subresource}` : resource;
      return !!a && !!discovered.get(a.metadata!.name!)?.resources?.some(r => r.name === name);
    },
    startAvailability(lb, intervalMs, serverLog) {
      const client = loopbackClient(lb, 'system:kube-aggregator', { qps: 0, userAgent: 'kube-aggregator' }, ['system:masters']);
      // a check still in flight when the server stops (its in-process backends going with it) is not worth a warning
      let stopped = false;
      const log: Logger = { ...serverLog, warn: (m) => { if (!stopped) serverLog.warn(m); } };
      const controller = startApiServiceAvailability({
        client, names, intervalMs, log,
        async observed(a, c) {
          for (const name of [...discovered.keys()]) if (!remotes().some(r => r.metadata?.name === name)) discovered.delete(name);
          if (c.status === 'True') await discover(a, log);
          // a backend that went away is read again in full once it is back
          else if (discovered.delete(a.metadata!.name!)) changed();
        },
        identity: { certPem: front.identity.certPem, keyPem: front.identity.keyPem, usernameHeader: front.identity.usernameHeaders[0]!, groupHeader: front.identity.groupHeaders[0]! },
      });
      // the server's start does not wait for its informers: the poststarthook is done once it runs, as the reference's
      void controller.ready;
      return { stop() { stopped = true; controller.stop(); client.close(); } };
    },
    async register() {
      await registerLocalApiServices(lookup, backends, resources, names);
    },
    keepAuthenticationTrust(clientCaPem, intervalMs, log) {
      const own: AuthenticationInfo = {
        clientCaPem, requestHeaderCaPem: front.caPem, allowedNames: front.allowedNames,
        usernameHeaders: front.identity.usernameHeaders, groupHeaders: front.identity.groupHeaders, extraHeaderPrefixes: front.identity.extraHeaderPrefixes,
      };
      // added to what other servers on the same store published, so backends trust every server's front proxy
      const publish = async () => {
        const configMaps = backends.preferred('', 'configmaps')?.store;
        await configMaps?.guaranteedUpdate(names.systemNamespace, 'extension-apiserver-authentication', '', (cur: ApiObject | undefined) => ({
          apiVersion: 'v1', kind: 'ConfigMap',
          metadata: { ...(cur?.metadata ?? {}), name: 'extension-apiserver-authentication', namespace: names.systemNamespace },
          data: combinedAuthenticationData((cur as { data?: Record<string, string> } | undefined)?.data, own),
        }) as ApiObject, noAdmission, { dryRun: false, allowCreate: true });
      };
      const timer = setInterval(() => publish().catch(e => log.warn(`publishing extension-apiserver-authentication: ${(e as Error).message}`)), intervalMs);
      timer.unref();
      return { ready: publish(), stop: () => clearInterval(timer) };
    },
  };
}
