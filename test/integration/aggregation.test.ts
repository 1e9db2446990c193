// The aggregation layer against a backend that misbehaves: an APIService whose backend serves its discovery but
// answers its resources late, or never, as an extension server stuck on its own storage would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createCertificateAuthority, generateKeyPair, issueLeaf } from '../../src/pki/certificates.js';
import { createClient, type Client } from './client.js';
import { waitFor } from '../support/wait.js';

const group = 'wardle.example.com', gv = `${group}/v1alpha1`;

const resourceList = JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources: [{ name: 'flunders', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'] }] });

/** a backend serving discovery (the document given); its flunders are answered by `flunders`, which may never answer;
 *  `other` may answer any other path first */
async function backend(flunders: (res: ServerResponse) => void, discovery = () => resourceList, other?: (url: string, res: ServerResponse) => boolean) {
  const ca = createCertificateAuthority('wardle-ca', 3600);
  const key = generateKeyPair();
  const cert = issueLeaf(ca, key.publicKey, { commonName: 'wardle.default.svc', dnsNames: ['wardle.default.svc'], usages: ['digital signature', 'key encipherment', 'server auth'], ttlSeconds: 3600 });
  const server = createServer({ key: key.keyPem, cert }, (req, res) => {
    if (req.url?.includes('/flunders')) return flunders(res);
    if (other?.(req.url ?? '', res)) return;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(discovery());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as AddressInfo).port, caPem: ca.certPem };
}

/** the Service, Endpoints and APIService of the backend, waited for until the APIService is available */
async function register(c: Client, b: { port: number; caPem: string }) {
  for (const [path, body] of [
    ['/api/v1/namespaces/default/services', { metadata: { name: 'wardle' }, spec: { ports: [{ port: 443, targetPort: b.port }] } }],
    ['/api/v1/namespaces/default/endpoints', { metadata: { name: 'wardle' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: b.port }] }] }],
    ['/apis/apiregistration.k8s.io/v1/apiservices', {
      metadata: { name: `v1alpha1.${group}` },
      spec: { group, version: 'v1alpha1', service: { namespace: 'default', name: 'wardle', port: 443 }, caBundle: Buffer.from(b.caPem).toString('base64'), groupPriorityMinimum: 2000, versionPriority: 10 },
    }],
  ] as const) assert.equal((await c.request('POST', path, { body })).status, 201);
  await waitFor('the APIService to be available', async () => (await c.get(`/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.${group}`))
    .json?.status?.conditions?.some((x: { type: string; status: string }) => x.type === 'Available' && x.status === 'True'));
}

describe('aggregation: a backend that does not answer in time', () => {
  let server: TestServer, c: Client, wardle: Server;
  let held = 0, cancelled = 0;
  before(async () => {
    const b = await backend((res) => { held++; res.on('close', () => { cancelled++; }); });
    wardle = b.server;
    server = await startTestServer({ apiDomain: 'k8s.io', apiServiceCheckIntervalMs: 200, flags: ['--request-timeout=2s'] });
    c = createClient(server);
    await register(c, b);
  });
  after(async () => {
    c.close();
    await server.close();
    wardle.closeAllConnections();
    await new Promise((r) => wardle.close(r));
  });

  test('a list the backend never answers is a 504 at the request timeout, and the backend request is cancelled', async () => {
    const r = await c.get(`/apis/${gv}/namespaces/default/flunders`);
    assert.equal(r.status, 504, r.body);
    assert.equal(r.json.kind, 'Status');
    assert.equal(r.json.reason, 'Timeout');
    assert.equal(r.json.message, 'Timeout: request did not complete within requested timeout - context deadline exceeded');
    await waitFor('the backend to see its request cancelled', async () => held > 0 && cancelled === held);
  });

  test('?timeout= shortens it', async () => {
    const r = await c.get(`/apis/${gv}/namespaces/default/flunders?timeout=100ms`);
    assert.equal(r.status, 504, r.body);
    assert.equal(r.json.reason, 'Timeout');
  });

  test('/livez is answered while backend requests hang', async () => {
    const hanging = c.get(`/apis/${gv}/namespaces/default/flunders`);
    assert.equal((await c.get('/livez')).status, 200);
    assert.equal((await hanging).status, 504);
  });
});

test('aggregation: a discovery document that cannot be read makes the group version stale in aggregated discovery, and current again once it can', async () => {
  let document = '<html>not discovery</html>';
  const b = await backend((res) => { res.writeHead(200, { 'content-type': 'application/json' }).end('{}'); }, () => document);
  const server = await startTestServer({ apiDomain: 'k8s.io', apiServiceCheckIntervalMs: 100, flags: ['--controller-manager=false'] });
  const c = createClient(server);
  const freshness = async () => {
    const r = await c.get('/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' });
    const entry = r.json?.items?.find((g: { metadata: { name: string } }) => g.metadata.name === group);
    return entry?.versions?.[0] as { freshness: string; resources: Array<{ resource: string }> } | undefined;
  };
  try {
    await register(c, b);
    await waitFor('the group version to be stale', async () => (await freshness())?.freshness === 'Stale');
    document = resourceList;
    const current = await waitFor('the group version to be current', async () => { const v = await freshness(); return v?.freshness === 'Current' && v; });
    assert.deepEqual(current.resources.map((r) => r.resource), ['flunders']);
  } finally {
    c.close();
    await server.close();
    b.server.closeAllConnections();
    await new Promise((r) => b.server.close(r));
  }
});

test('aggregation: the backend is told the user in the request headers and the client in X-Forwarded-For; the client\'s own credentials and identity headers are not passed on', async () => {
  let seen: ServerResponse['req']['headers'] | undefined;
  const b = await backend((res) => { seen = res.req.headers; res.writeHead(200, { 'content-type': 'application/json' }).end('{"kind":"FlunderList","items":[]}'); });
  const server = await startTestServer({ apiDomain: 'k8s.io', apiServiceCheckIntervalMs: 200, flags: ['--controller-manager=false'] });
  const c = createClient(server);
  try {
    await register(c, b);
    const r = await c.get(`/apis/${gv}/namespaces/default/flunders`, {
      'X-Forwarded-For': '10.0.0.9', 'X-Remote-User': 'mallory', 'X-Remote-Extra-Scopes': 'all',
      'Impersonate-User': 'alice', 'Impersonate-Group': 'devs', 'Impersonate-Extra-Scopes': 'read',
    });
    assert.equal(r.status, 200, r.body);
    assert.equal(seen?.['x-remote-user'], 'alice');
    assert.equal(seen?.['x-remote-group'], 'devs, system:authenticated');
    assert.equal(seen?.['x-remote-extra-scopes'], 'read');
    assert.equal(seen?.['x-forwarded-for'], '10.0.0.9, 127.0.0.1');
    assert.equal(seen?.['impersonate-user'], undefined);
    assert.equal(seen?.authorization, undefined);
  } finally {
    c.close();
    await server.close();
    b.server.closeAllConnections();
    await new Promise((r) => b.server.close(r));
  }
});

test('aggregation: a backend that trickles its discovery document for ever does not hold the availability checks', async () => {
  const trickles = new Set<ReturnType<typeof setInterval>>();
  // discovery's headers come at once, its body a byte a time and never ends; its resources answer normally
  const b = await backend((res) => { res.writeHead(200, { 'content-type': 'application/json' }).end('{"kind":"FlunderList","items":[]}'); }, () => '');
  b.server.removeAllListeners('request');
  b.server.on('request', (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{');
    const t = setInterval(() => res.write(' '), 100);
    trickles.add(t);
    req.socket.on('close', () => { clearInterval(t); trickles.delete(t); });
  });
  const server = await startTestServer({ apiDomain: 'k8s.io', apiServiceCheckIntervalMs: 200, flags: ['--controller-manager=false'] });
  const c = createClient(server);
  try {
    // registered and checked: available once its discovery read gives up, which it does in bounded time
    await register(c, b);
  } finally {
    c.close();
    await server.close();
    for (const t of trickles) clearInterval(t);
    b.server.closeAllConnections();
    await new Promise((r) => b.server.close(r));
  }
});

test('aggregation: the extension-apiserver-authentication ConfigMap comes back after it is deleted or its CAs are taken out, and an unchanged one is not written again', async () => {
  const server = await startTestServer({ apiDomain: 'k8s.io', apiServiceCheckIntervalMs: 100, flags: ['--controller-manager=false'] });
  const c = createClient(server);
  const path = '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication';
  try {
    const first = await waitFor('the ConfigMap to be published', async () => { const r = await c.get(path); return r.status === 200 && r.json; });
    assert.ok(first.data['client-ca-file'] && first.data['requestheader-client-ca-file']);
    // several passes later, nothing changed: the same resourceVersion
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await c.get(path)).json.metadata.resourceVersion, first.metadata.resourceVersion);

    assert.equal((await c.request('DELETE', path)).status, 200);
    const back = await waitFor('the ConfigMap to be published again', async () => { const r = await c.get(path); return r.status === 200 && r.json; });
    assert.deepEqual(back.data, first.data);

    const stripped = await c.request('PUT', path, { body: { ...back, data: { 'client-ca-file': back.data['client-ca-file'] } } });
    assert.equal(stripped.status, 200);
    await waitFor('the request-header CA to be published again', async () => (await c.get(path)).json.data['requestheader-client-ca-file'] === first.data['requestheader-client-ca-file']);
  } finally {
    c.close();
    await server.close();
  }
});

test('aggregation: the OpenAPI v3 index lists a backend\'s group version only while its discovery document can be read', async () => {
  let document = '<html>not discovery</html>';
  const b = await backend((res) => { res.writeHead(200, { 'content-type': 'application/json' }).end('{}'); }, () => document);
  const server = await startTestServer({ apiDomain: 'k8s.io', apiServiceCheckIntervalMs: 100, flags: ['--controller-manager=false'] });
  const c = createClient(server);
  const listed = async () => Object.keys((await c.get('/openapi/v3')).json?.paths ?? {}).includes(`apis/${gv}`);
  const stale = async () => {
    const r = await c.get('/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' });
    return r.json?.items?.find((g: { metadata: { name: string } }) => g.metadata.name === group)?.versions?.[0]?.freshness === 'Stale';
  };
  try {
    await register(c, b);
    await waitFor('the group version to be stale', stale);
    assert.equal(await listed(), false);
    assert.ok((await c.get('/openapi/v3')).json.paths['apis/apps/v1'], 'the server\'s own group versions stay');
    document = resourceList;
    await waitFor('the group version to be listed', listed);
  } finally {
    c.close();
    await server.close();
    b.server.closeAllConnections();
    await new Promise((r) => b.server.close(r));
  }
});

test('aggregation: a backend without OpenAPI v3 documents has its v2 document converted, listed in the v3 index and served by this server', async () => {
  const v2 = {
    swagger: '2.0', info: { title: 'wardle', version: 'v0' },
    paths: {
      [`/apis/${gv}/namespaces/{namespace}/flunders/{name}`]: {
        get: {
          operationId: 'readWardleV1alpha1NamespacedFlunder', produces: ['application/json'],
          responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/com.example.wardle.v1alpha1.Flunder' } } },
          'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': { group, version: 'v1alpha1', kind: 'Flunder' },
        },
        parameters: [{ $ref: '#/parameters/name-flunder' }, { name: 'namespace', in: 'path', type: 'string', required: true, uniqueItems: true }],
      },
    },
    parameters: { 'name-flunder': { name: 'name', in: 'path', type: 'string', required: true, description: 'name of the Flunder' } },
    definitions: {
      'com.example.wardle.v1alpha1.Flunder': {
        description: 'A flunder.', type: 'object',
        properties: { spec: { $ref: '#/definitions/com.example.wardle.v1alpha1.FlunderSpec' }, kind: { type: 'string' } },
        'x-kubernetes-group-version-kind': [{ group, version: 'v1alpha1', kind: 'Flunder' }],
      },
      'com.example.wardle.v1alpha1.FlunderSpec': { type: 'object', properties: { reference: { type: 'string', description: 'what it refers to' } } },
    },
  };
  const b = await backend((res) => { res.writeHead(200, { 'content-type': 'application/json' }).end('{}'); }, () => resourceList, (url, res) => {
    if (url.startsWith('/openapi/v2')) { res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v2)); return true; }
    if (url.startsWith('/openapi/v3')) { res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found'); return true; }
    return false;
  });
  const server = await startTestServer({ apiDomain: 'k8s.io', apiServiceCheckIntervalMs: 100, flags: ['--controller-manager=false'] });
  const c = createClient(server);
  try {
    await register(c, b);
    const url = await waitFor('the group version in the v3 index', async () => (await c.get('/openapi/v3')).json?.paths?.[`apis/${gv}`]?.serverRelativeURL as string | undefined);
    assert.match(url, new RegExp(`^/openapi/v3/apis/${gv.replace(/\./g, '\\.')}\\?hash=[0-9A-F]{128}$`));
    const doc = await c.get(url, { accept: 'application/json' });
    assert.equal(doc.status, 200, doc.body);
    assert.equal(doc.json.openapi, '3.0.0');
    const flunder = doc.json.components.schemas['com.example.wardle.v1alpha1.Flunder'];
    assert.equal(flunder.properties.spec.$ref, '#/components/schemas/com.example.wardle.v1alpha1.FlunderSpec');
    assert.deepEqual(flunder['x-kubernetes-group-version-kind'], [{ group, version: 'v1alpha1', kind: 'Flunder' }]);
    const item = doc.json.paths[`/apis/${gv}/namespaces/{namespace}/flunders/{name}`];
    assert.deepEqual(item.parameters.map((p: { name: string; schema: { type: string } }) => [p.name, p.schema.type]), [['name', 'string'], ['namespace', 'string']]);
    assert.equal(item.get.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/com.example.wardle.v1alpha1.Flunder');
    assert.equal(item.get['x-kubernetes-action'], 'get');
    const pb = await c.get(url, { accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' });
    assert.equal(pb.status, 200);
  } finally {
    c.close();
    await server.close();
    b.server.closeAllConnections();
    await new Promise((r) => b.server.close(r));
  }
});
