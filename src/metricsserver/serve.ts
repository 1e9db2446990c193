// The resource metrics API over HTTP: discovery of its one group version, and NodeMetrics and PodMetrics read
// (get and list, with label and field selectors; pods per namespace or across all) from the usage the store
// computes, with the node's or pod's labels. The figures are measured, not stored, so there is no watch.
// OpenAPI documents of its kinds (v2, and v3 per group version) for the API server to merge and proxy.
// Health endpoints answer anyone; everything else needs an authenticated and authorized user. NodeMetrics and
// PodMetrics come as a Table when the client asks for one first (kubectl get).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Naming } from '../api/naming.js';
import { ApiError, badRequest, forbidden, internalError, methodNotSupported, notFound, orderedStatus, pathNotFound, unauthorized } from '../api/status.js';
import { matchFields, matchLabels, parseFieldSelector, parseLabelSelector, SelectorError } from '../api/selectors.js';
import { resourceMetricsGroup, resourceMetricsResources, resourceMetricsVersion, type NodeMetrics, type PodMetrics, type ResourceUsage } from '../api/resource-metrics.js';
import type { Attributes, DelegatedAuth } from './delegated-auth.js';
import type { MetricsStore, Usage } from './store.js';
import type { MetricsOpenApi } from './openapi.js';
import { metricsTable, tableVersion } from './table.js';
import { compareStrings } from '../util/order.js';

/** the objects the figures are about, as the informers hold them */
export interface Objects {
  nodes(): Iterable<{ metadata: { name: string; labels?: Record<string, string> } }>;
  pod(key: string): { metadata: { name: string; namespace: string; labels?: Record<string, string> }; spec?: { containers?: Array<{ name: string }> } } | undefined;
}

export interface MetricsApiDeps {
  names: Naming;
  store: MetricsStore;
  objects: Objects;
  auth: DelegatedAuth;
  /** whether the server can answer yet (readyz) */
  ready(): boolean;
}

const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** a window in the reference's duration form (`15.003s`, `1m0.5s`) */
export function formatWindow(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const seconds = Number(((ms % 60_000) / 1000).toFixed(3));
  return `${minutes ? `${minutes}m` : ''}${seconds}s`;
}

/** CPU in nanocores and memory in kibibytes (bytes when not a whole number of them), as metrics-server writes them */
export const formatUsage = (u: Pick<Usage, 'cpuNanoCores' | 'memoryBytes'>): ResourceUsage => ({
  cpu: u.cpuNanoCores ? `${u.cpuNanoCores}n` : '0',
  memory: u.memoryBytes % 1024 === 0 ? (u.memoryBytes ? `${u.memoryBytes / 1024}Ki` : '0') : String(Math.round(u.memoryBytes)),
});

/** the path without its trailing slashes, walked back from the end (a pattern for it searched from every slash of a run) */
export function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end--;
  return path.slice(0, end);
}

function send(res: ServerResponse, code: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** the request's URL; a request target that is no URL is the client's error */
function requestUrl(req: IncomingMessage): URL {
  try {
    return new URL(req.url ?? '/', 'https://metrics-server');
  } catch {
    throw badRequest(`invalid request target: ${req.url}`);
  }
}

/** a path segment's text; a malformed percent-escape is the client's error */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`invalid percent-encoding in path segment ${segment}`);
  }
}

export function metricsApi(d: MetricsApiDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const group = resourceMetricsGroup(d.names);
  const version = resourceMetricsVersion;
  const gv = `${group}/${version}`;
  const groupDoc = { kind: 'APIGroup', apiVersion: 'v1', name: group, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };

  function selectors(url: URL) {
    try {
      return {
        labels: parseLabelSelector(url.searchParams.get('labelSelector') ?? ''),
        fields: parseFieldSelector(url.searchParams.get('fieldSelector') ?? '', []),
      };
    } catch (e) {
      if (e instanceof SelectorError) throw badRequest(e.message);
      throw e;
    }
  }

  function nodeMetrics(name: string, labels: Record<string, string> | undefined): NodeMetrics | undefined {
    const u = d.store.node(name);
    if (!u) return undefined;
    return {
      apiVersion: gv, kind: 'NodeMetrics',
      metadata: { name, creationTimestamp: rfc3339(Date.now()), ...(labels ? { labels } : {}) },
      timestamp: rfc3339(u.at), window: formatWindow(u.windowMs), usage: formatUsage(u),
    };
  }

  function podMetrics(namespace?: string): PodMetrics[] {
    const out: PodMetrics[] = [];
    for (const [key, u] of d.store.pods()) {
      const pod = d.objects.pod(key);
      // only pods that exist now, so a deleted pod's last figures are not shown
      if (!pod || (namespace && pod.metadata.namespace !== namespace)) continue;
      const order = new Map((pod.spec?.containers ?? []).map((c, i) => [c.name, i]));
      const containers = [...u.containers].sort((a, b) => (order.get(a.name) ?? order.size) - (order.get(b.name) ?? order.size));
      out.push({
        apiVersion: gv, kind: 'PodMetrics',
        metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace, creationTimestamp: rfc3339(Date.now()), ...(pod.metadata.labels ? { labels: pod.metadata.labels } : {}) },
        timestamp: rfc3339(u.at), window: formatWindow(u.windowMs), containers: containers.map((c) => ({ name: c.name, usage: formatUsage(c) })),
      });
    }
    return out.sort((a, b) => compareStrings(`${a.metadata.namespace}/${a.metadata.name}`, `${b.metadata.namespace}/${b.metadata.name}`));
  }

  // written on the first request for one: the description tables are not loaded before
  let openapi: Promise<MetricsOpenApi> | undefined;
  const documents = () => (openapi ??= import('./openapi.js').then(m => m.metricsOpenApi(d.names)));

  /** what the path asks for, and the answer */
  function route(url: URL): { attrs: Attributes; answer(): unknown } {
    const path = withoutTrailingSlashes(url.pathname) || '/';
    const nonResource = (answer: () => unknown) => ({ attrs: { verb: 'get', path }, answer });
    if (path === '/openapi/v2') return nonResource(async () => (await documents()).v2);
    if (path === '/openapi/v3') return nonResource(async () => (await documents()).v3Index);
    if (path.startsWith('/openapi/v3/')) {
      return nonResource(async () => {
        const doc = (await documents()).v3.get(path.slice('/openapi/v3/'.length));
        if (!doc) throw pathNotFound(path);
        return doc;
      });
    }
    if (path === '/apis') return nonResource(() => ({ kind: 'APIGroupList', apiVersion: 'v1', groups: [groupDoc] }));
    if (path === `/apis/${group}`) return nonResource(() => groupDoc);
    if (path === `/apis/${gv}`) return nonResource(() => ({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources: resourceMetricsResources() }));
    const prefix = `/apis/${gv}/`;
    if (!path.startsWith(prefix)) throw pathNotFound(path);
    const parts = path.slice(prefix.length).split('/').map(decodedSegment);
    const base = { group, version };
    if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1')
      throw methodNotSupported('the resource metrics API, whose figures are measured rather than stored', 'watch');
    if (parts[0] === 'nodes' && parts.length <= 2) {
      const name = parts[1];
      if (name) {
        return {
          attrs: { ...base, verb: 'get', resource: 'nodes', name },
          answer() {
            const node = [...d.objects.nodes()].find((n) => n.metadata.name === name);
            const m = node && nodeMetrics(name, node.metadata.labels);
            if (!m) throw notFound(group, 'nodemetrics', name);
            return m;
          },
        };
      }
      return {
        attrs: { ...base, verb: 'list', resource: 'nodes' },
        answer() {
          const { labels, fields } = selectors(url);
          const items = [...d.objects.nodes()]
            .filter((n) => matchLabels(labels, n.metadata.labels) && matchFields(fields, { 'metadata.name': n.metadata.name }))
            .flatMap((n) => nodeMetrics(n.metadata.name, n.metadata.labels) ?? [])
            .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
          return { kind: 'NodeMetricsList', apiVersion: gv, metadata: {}, items };
        },
      };
    }
    const namespaced = parts[0] === 'namespaces' && parts[2] === 'pods' && parts.length <= 4;
    if ((parts[0] === 'pods' && parts.length === 1) || namespaced) {
      const namespace = namespaced ? parts[1] : undefined;
      const name = namespaced ? parts[3] : undefined;
      if (namespace && name) {
        return {
          attrs: { ...base, verb: 'get', resource: 'pods', namespace, name },
          answer() {
            const m = podMetrics(namespace).find((p) => p.metadata.name === name);
            // named as metrics-server names it: namespace and name
            if (!m) throw notFound(group, 'podmetrics', `${namespace}/${name}`);
            return m;
          },
        };
      }
      return {
        attrs: { ...base, verb: 'list', resource: 'pods', ...(namespace ? { namespace } : {}) },
        answer() {
          const { labels, fields } = selectors(url);
          const items = podMetrics(namespace).filter((p) => matchLabels(labels, p.metadata.labels)
            && matchFields(fields, { 'metadata.name': p.metadata.name, 'metadata.namespace': p.metadata.namespace! }));
          return { kind: 'PodMetricsList', apiVersion: gv, metadata: {}, items };
        },
      };
    }
    throw pathNotFound(path);
  }

  return async (req, res) => {
    try {
      const url = requestUrl(req);
      if (['/healthz', '/livez', '/readyz'].includes(url.pathname)) {
        const ok = url.pathname !== '/readyz' || d.ready();
        res.writeHead(ok ? 200 : 500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(ok ? 'ok' : 'not ready: the first scrape has not finished');
        return;
      }
      // a token that cannot be checked (the API server unreachable) is refused, as the reference's authentication does
      const user = await d.auth.authenticate(req).catch(() => undefined);
      if (!user) throw unauthorized();
      if (req.method !== 'GET' && req.method !== 'HEAD')
        throw methodNotSupported('the resource metrics API', req.method ?? '');
      const r = route(url);
      const decision = await d.auth.authorize(user, r.attrs);
      if (!decision.allowed) {
        const what = 'path' in r.attrs ? `path "${r.attrs.path}"` : `resource "${r.attrs.resource}" in API group "${group}"${r.attrs.namespace ? ` in the namespace "${r.attrs.namespace}"` : ' at the cluster scope'}`;
        throw forbidden(`${'path' in r.attrs ? 'forbidden' : `${r.attrs.resource}.${group}${r.attrs.name ? ` "${r.attrs.name}"` : ''} is forbidden`}: User "${user.username}" cannot ${r.attrs.verb} ${what}${decision.reason ? `: ${decision.reason}` : ''}`);
      }
      const answer = await r.answer();
      // kubectl get asks for a Table first, as metrics-server serves its kinds
      const table = 'resource' in r.attrs ? tableVersion(req.headers.accept, d.names) : undefined;
      send(res, 200, table ? metricsTable(answer as Parameters<typeof metricsTable>[0], table, d.names, url.searchParams.get('includeObject')) : answer);
    } catch (e) {
      const failure = e instanceof ApiError ? e : internalError((e as Error).message);
      if (!res.headersSent) send(res, failure.code, orderedStatus(failure.status));
      else res.end();
    }
  };
}
