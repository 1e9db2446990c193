// The metrics server inside the API server's process, registered as an aggregated API the way metrics-server's
// own manifests register it: a Service without a selector in the system namespace whose Endpoints lead to the
// in-process listener (on the loopback address, since the aggregation layer that calls it is this process), the
// APIService `v1beta1.metrics.<domain>` with the CA of its serving certificate, and its roles: read nodes and pods,
// reach the agents through nodes/proxy, delegate authentication and authorization, read the published
// request-header settings, and the aggregated reader role that gives view, edit and admin the metrics.
// It runs as its own user, system:metrics-server; the objects are written by the server's own loopback user.
// An APIService of that name that another metrics server registered is left alone, and this one does not start;
// with --metrics-server=false the objects this one wrote are removed.
import type { Naming } from '../api/naming.js';
import type { ApiObject } from '../api/meta.js';
import { resourceMetricsGroup, resourceMetricsVersion } from '../api/resource-metrics.js';
import { apiServiceName } from '../api/apiservices.js';
import type { ResourceRef } from '../client/rest-client.js';
import { generateKeyPair, issueLeaf } from '../pki/certificates.js';
import type { Logger } from '../metricsserver/metrics-server.js';
import { loopbackClient, type Loopback } from './loopback.js';

export const metricsServerUser = 'system:metrics-server';
const serviceName = 'metrics-server';
const fieldManager = 'cluster-apiserver';
const host = '127.0.0.1';

const refs = {
  services: { group: '', version: 'v1', resource: 'services' },
  endpoints: { group: '', version: 'v1', resource: 'endpoints' },
} satisfies Record<string, ResourceRef>;
const apiServices = (names: Naming): ResourceRef => ({ group: names.group('apiregistration'), version: 'v1', resource: 'apiservices' });
const rbac = (names: Naming, resource: string): ResourceRef => ({ group: names.group('rbac.authorization'), version: 'v1', resource });

/** the label that marks the objects this server wrote for its own metrics server */
const ownLabel = (names: Naming) => names.label('embedded-metrics-server');

interface Registered { ref: ResourceRef; namespace?: string; object: ApiObject }

/**
 * The objects that register a metrics server: its roles, then what leads to its listener (a Service without a
 * selector whose Endpoints give the address, and the APIService). Without `caPem` the APIService skips the check of
 * the serving certificate, as the reference's own manifests do. `own` marks them as the in-process server's.
 */
export function registrationObjects(names: Naming, o: { host?: string; port: number; caPem?: string; own?: boolean }): { roles: Registered[]; service: Registered[] } {
  const group = resourceMetricsGroup(names);
  const rbacVersion = `${names.group('rbac.authorization')}/v1`;
  const ns = names.systemNamespace;
  const labels = o.own === false ? {} : { [ownLabel(names)]: 'true' };
  const meta = (name: string, namespace?: string, more: Record<string, string> = {}) => ({ name, ...(namespace ? { namespace } : {}), labels: { ...labels, ...more } });
  const aggregateTo = (role: string) => `${names.group('rbac.authorization')}/aggregate-to-${role}`;
  const subject = { kind: 'User', apiGroup: names.group('rbac.authorization'), name: metricsServerUser };
  const binding = (kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, roleKind: string, role: string, namespace?: string): ApiObject =>
    ({ apiVersion: rbacVersion, kind, metadata: meta(name, namespace), roleRef: { apiGroup: names.group('rbac.authorization'), kind: roleKind, name: role }, subjects: [subject] }) as ApiObject;
  const roles: Registered[] = [
    { ref: rbac(names, 'clusterroles'), object: { apiVersion: rbacVersion, kind: 'ClusterRole',
      metadata: meta('system:aggregated-metrics-reader', undefined, { [aggregateTo('view')]: 'true', [aggregateTo('edit')]: 'true', [aggregateTo('admin')]: 'true' }),
      rules: [{ apiGroups: [group], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }] } as ApiObject },
    { ref: rbac(names, 'clusterroles'), object: { apiVersion: rbacVersion, kind: 'ClusterRole', metadata: meta(metricsServerUser),
      rules: [
        { apiGroups: [''], resources: ['nodes/metrics', 'nodes/proxy'], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] },
      ] } as ApiObject },
    { ref: rbac(names, 'clusterrolebindings'), object: binding('ClusterRoleBinding', metricsServerUser, 'ClusterRole', metricsServerUser) },
    { ref: rbac(names, 'clusterrolebindings'), object: binding('ClusterRoleBinding', 'metrics-server:system:auth-delegator', 'ClusterRole', 'system:auth-delegator') },
    { ref: rbac(names, 'rolebindings'), namespace: ns, object: binding('RoleBinding', 'metrics-server-auth-reader', 'Role', 'extension-apiserver-authentication-reader', ns) },
  ];
  const service: Registered[] = [
    { ref: refs.services, namespace: ns, object: { apiVersion: 'v1', kind: 'Service', metadata: meta(serviceName, ns),
      spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: o.port }] } } as ApiObject },
    { ref: refs.endpoints, namespace: ns, object: { apiVersion: 'v1', kind: 'Endpoints', metadata: meta(serviceName, ns),
      subsets: [{ addresses: [{ ip: o.host ?? host }], ports: [{ name: 'https', port: o.port, protocol: 'TCP' }] }] } as ApiObject },
    { ref: apiServices(names), object: { apiVersion: `${names.group('apiregistration')}/v1`, kind: 'APIService',
      metadata: meta(apiServiceName(group, resourceMetricsVersion)),
      spec: { group, version: resourceMetricsVersion, service: { namespace: ns, name: serviceName, port: 443 },
        ...(o.caPem ? { caBundle: Buffer.from(o.caPem).toString('base64') } : { insecureSkipTLSVerify: true }),
        groupPriorityMinimum: 100, versionPriority: 100 } } as ApiObject },
  ];
  return { roles, service };
}

export interface EmbeddedMetricsServer { ready: Promise<unknown>; stop(): Promise<void> }

/**
 * Starts the metrics server and registers it, or with `resolutionMs` undefined removes what an earlier start
 * registered. `storedApiService` reads the metrics group's APIService from the server's own store, so a server
 * that runs none and never did (every test server) pays no more than that read.
 */
export async function startEmbeddedMetricsServer(o: Loopback & {
  log: Logger; resolutionMs?: number; storedApiService(name: string): Promise<ApiObject | undefined>;
}): Promise<EmbeddedMetricsServer> {
  const ours = (obj: ApiObject | undefined) => obj?.metadata?.labels?.[ownLabel(o.names)] === 'true';
  const name = apiServiceName(resourceMetricsGroup(o.names), resourceMetricsVersion);
  const idle = { ready: Promise.resolve(), async stop() {} };
  if (o.resolutionMs === undefined && !ours(await o.storedApiService(name))) return idle;
  const admin = loopbackClient(o, 'system:apiserver', { qps: 0, userAgent: 'cluster-apiserver' }, ['system:masters']);
  const closeAdmin = async () => admin.close();
  if (o.resolutionMs === undefined) {
    const { roles, service } = registrationObjects(o.names, { port: 0 });
    for (const { ref, namespace, object } of [...service, ...roles].reverse()) {
      const resource = admin.resource(ref, namespace);
      if (ours(await resource.get(object.metadata!.name!).catch(() => undefined))) await resource.delete(object.metadata!.name!).catch(() => undefined);
    }
    return { ...idle, stop: closeAdmin };
  }
  const other = await o.storedApiService(name);
  if (other && !ours(other)) {
    o.log.info(`metrics server: not started, as APIService ${name} leads to another metrics server`);
    return { ...idle, stop: closeAdmin };
  }
  const apply = async (objects: Registered[]) => {
    for (const { ref, namespace, object } of objects) await admin.resource(ref, namespace).apply(object as never, { fieldManager, force: true });
  };
  // what takes a while (its RBAC objects, a key pair, its listener) happens beside the server's start, as part of ready
  const resolutionMs = o.resolutionMs;
  const started = (async () => {
    // its rights first, so its first lists are not refused
    await apply(registrationObjects(o.names, { port: 0 }).roles);
    const key = generateKeyPair();
    const dnsNames = [`${serviceName}.${o.names.systemNamespace}.svc`, `${serviceName}.${o.names.systemNamespace}.svc.cluster.local`];
    const certPem = issueLeaf(o.ca, key.publicKey, { commonName: dnsNames[0]!, dnsNames, ips: [host], usages: ['digital signature', 'key encipherment', 'server auth'], ttlSeconds: 365 * 86400 });
    const client = loopbackClient(o, metricsServerUser, { qps: 0, userAgent: 'cluster-metrics-server' });
    // its code loads only when it runs
    const { startMetricsServer } = await import('../metricsserver/metrics-server.js');
    return { client, server: await startMetricsServer({ client, names: o.names, log: o.log, resolutionMs, host, port: 0, certPem, keyPem: key.keyPem }) };
  })();
  return {
    // registered once it can answer, so the availability check finds it serving and clients see no failed discovery
    ready: started.then(({ server }) => server.synced.then(() => apply(registrationObjects(o.names, { port: server.port, caPem: o.ca.certPem }).service))),
    async stop() {
      const running = await started.catch(() => undefined);
      await running?.server.stop();
      running?.client.close();
      admin.close();
    },
  };
}
