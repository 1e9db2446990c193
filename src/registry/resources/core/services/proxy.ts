// services/[scheme:]name[:port]/proxy/<path>: one ready endpoint of the service, from its Endpoints object when there is
// one, else from the running pods its selector picks, at the target port of the service port asked for.
import type { Stored } from '../../../../api/meta.js';
import type { Endpoints, Pod, Service } from '../../../../api/types/core-v1.js';
import { serviceUnavailable, badRequest } from '../../../../api/status.js';
import type { ConnectTarget, RestRequest } from '../../../types.js';
import { hostPort, proxyableAddress, splitSchemeNamePort } from '../nodes/connection.js';

type ServicePort = NonNullable<Service['spec']>['ports'] extends (infer P)[] | undefined ? P : never;

export async function connectService(req: RestRequest, path: string): Promise<ConnectTarget> {
  const { scheme, name, port } = splitSchemeNamePort(req.name);
  const svc = await req.store.get(req.namespace, name) as Stored<Service>;
  const ports = svc.spec?.ports ?? [];
  const sp: ServicePort | undefined = port === '' ? (ports.length === 1 ? ports[0] : ports.find(p => !p.name))
    : ports.find(p => p.name === port || String(p.port) === port);
  if (!sp) throw badRequest(port ? `no service port ${JSON.stringify(port)} found for service "${name}"` : `a port name must be given for service "${name}", choose one of: [${ports.map(p => p.name).join(' ')}]`);
  const endpoint = await fromEndpoints(req, name, sp) ?? await fromPods(req, svc, sp);
  if (!endpoint) throw serviceUnavailable(`no endpoints available for service "${name}"`);
  if (!proxyableAddress(endpoint.ip)) throw badRequest(`address not allowed: ${endpoint.ip}`);
  const search = [...req.query.keys()].length ? `?${req.query}` : '';
  return { url: new URL(`${scheme || 'http'}://${hostPort(endpoint.ip, endpoint.port)}${path || '/'}${search}`), tls: { rejectUnauthorized: false } };
}

async function fromEndpoints(req: RestRequest, name: string, sp: ServicePort) {
  const endpoints = req.resource('', 'endpoints');
  const ep = endpoints && await endpoints.store.get(req.namespace, name).catch(() => undefined) as Stored<Endpoints> | undefined;
  for (const subset of ep?.subsets ?? []) {
    const p = (subset.ports ?? []).find(x => (sp.name ? x.name === sp.name : true));
    const address = subset.addresses?.[0];
    if (p && address) return { ip: address.ip, port: p.port };
  }
  return undefined;
}

async function fromPods(req: RestRequest, svc: Stored<Service>, sp: ServicePort) {
  const selector = svc.spec?.selector;
  if (!selector || !Object.keys(selector).length) return undefined;
  const pods = await req.resource('', 'pods')!.list(req.namespace) as Stored<Pod>[];
  for (const pod of pods) {
    if (pod.status?.phase !== 'Running' || !pod.status.podIP || pod.metadata.deletionTimestamp) continue;
    if (!Object.entries(selector).every(([k, v]) => pod.metadata.labels?.[k] === v)) continue;
    const target = sp.targetPort ?? sp.port;
    const port = typeof target === 'number' || /^\d+$/.test(target)
      ? Number(target)
      : (pod.spec?.containers ?? []).flatMap(c => c.ports ?? []).find(p => p.name === target)?.containerPort;
    if (port) return { ip: pod.status.podIP, port };
  }
  return undefined;
}
