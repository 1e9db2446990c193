// Hostile requests against a real API server process: fast-check generates malformed and adversarial requests (paths,
// methods, headers, query values, bodies of every accepted media type, patches with directives, protobuf garbage) and
// sends them over HTTP/1.1, HTTP/2 and raw TLS sockets. The server must never exit, never answer 5xx (but for the
// reference's own 5xx, listed below), and answer every request within 10 s. Shared by the test (a small count) and
// the benchmark (the full count).
import fc from 'fast-check';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createPrivateKey } from 'node:crypto';
import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/ports.js';

const program = fileURLToPath(new URL('../../bin/apiserver.js', import.meta.url));
const agentProgram = fileURLToPath(new URL('../../bin/agent.js', import.meta.url));

/** a request as generated: sent as given (raw requests as bytes on a TLS socket) */
export interface HostileRequest {
  /** upgrade: a Connection: Upgrade request written on a TLS socket, its body the bytes sent after the handshake */
  protocol: 'h1' | 'h2' | 'raw' | 'upgrade';
  method: string;
  /** path and query, already encoded */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** raw requests: the whole request's bytes */
  raw?: Buffer;
}

export interface FuzzServer {
  port: number;
  ca: string; cert: string; key: string;
  /** the API domain the server runs under */
  domain: string;
  /** the store behind it */
  store: string;
  /** who the fuzzer's requests speak as: the administrator (a client certificate), or a user RBAC allows little */
  user: FuzzUser;
  dataDir: string;
  /** the server's exit, if it exits */
  exited: Promise<{ code: number | null; signal: string | null; log: string }>;
  /** the node agent's exit (fake mode, one node the fixtures' pod runs on), if one runs and it exits */
  agentExited?: Promise<{ code: number | null; signal: string | null; log: string }>;
  /** process id, for memory sampling */
  pid: number;
  stop(): Promise<void>;
}

export type FuzzUser = 'admin' | 'limited';

/** the static bearer token of the limited user, and that user's name (RBAC grants it a little in the fuzz namespace) */
export const limitedToken = 'fuzz-limited-token-0123456789';
export const limitedUser = 'fuzz-user';

const flagValue = (flags: string[], name: string) => flags.filter(f => f.startsWith(`--${name}=`)).at(-1)?.slice(name.length + 3);

function spawnLogged(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const onData = (d: Buffer) => { log = (log + d.toString()).slice(-20_000); };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: string | null; log: string }>(resolve =>
    child.once('exit', (code, signal) => resolve({ code, signal, log })));
  return { child, exited, log: () => log };
}

/**
 * An API server process for the fuzzer: the memory store and the k8s.io domain unless the flags name others; with
 * user 'limited', static tokens and RBAC (the fuzzer then speaks as a user allowed little); with agent, a node agent
 * process in fake mode simulating one node, so that exec, attach, port-forward and proxy requests reach a backend.
 */
export async function startFuzzServer(extraFlags: string[] = [], opts: { user?: FuzzUser; agent?: boolean } = {}): Promise<FuzzServer> {
  const dir = mkdtempSync(join(tmpdir(), 'cluster-fuzz-'));
  const user = opts.user ?? 'admin';
  const authFlags: string[] = [];
  if (user === 'limited') {
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, `${limitedToken},${limitedUser},uid-fuzz-user,"fuzz-group"\n`);
    authFlags.push(`--token-auth-file=${tokens}`, '--authorization-mode=Node,RBAC');
  }
  const defaults = [...(flagValue(extraFlags, 'storage-backend') ? [] : ['--storage-backend=memory']), ...(flagValue(extraFlags, 'api-domain') ? [] : ['--api-domain=k8s.io'])];
  const server = spawnLogged([program, '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dir}`, ...defaults,
    '--scheduler=false', '--controller-manager=false', ...authFlags, ...extraFlags]);
  const { child, exited } = server;
  const port = await new Promise<number>((resolve, reject) => {
    const check = () => { const m = /serving on https:\/\/127\.0\.0\.1:(\d+)/.exec(server.log()); if (m) { resolve(Number(m[1])); return true; } return false; };
    child.stdout!.on('data', check); child.stderr!.on('data', check);
    void exited.then(e => reject(new Error(`the server exited before serving (${e.code ?? e.signal}): ${e.log}`)));
  });
  const pki = join(dir, 'pki');
  const domain = flagValue([...defaults, ...extraFlags], 'api-domain')!;
  let agent: ReturnType<typeof spawnLogged> | undefined;
  if (opts.agent) {
    const agentPort = await freePort();
    agent = spawnLogged([agentProgram, `--clusterconfig=${join(dir, 'admin.kubeconfig')}`, '--runtime=fake', `--hostname-override=${fuzzNode}`,
      `--root-dir=${join(dir, 'agent')}`, '--address=127.0.0.1', '--node-ip=127.0.0.1', `--port=${agentPort}`, '--read-only-port=0', '--healthz-port=0',
      `--api-domain=${domain}`]);
  }
  return {
    port, pid: child.pid!, exited, agentExited: agent?.exited, domain, store: flagValue([...defaults, ...extraFlags], 'storage-backend')!, user, dataDir: dir,
    ca: readFileSync(join(pki, 'ca.crt'), 'utf8'), cert: readFileSync(join(pki, 'admin.crt'), 'utf8'), key: readFileSync(join(pki, 'admin.key'), 'utf8'),
    async stop() {
      for (const p of [agent, server]) {
        if (p && p.child.exitCode === null && p.child.signalCode === null) { p.child.kill('SIGKILL'); await p.exited; }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---- generators ----

import { fixtures, fuzzNode, group, limitedUserGrants, ns, widgetCrd, widgetCrdIn } from './fixtures.js';

export { widgetCrd, fuzzNode };

/** the collections the fuzzer aims at, named in the server's API domain */
const collectionsIn = (domain: string) => [
  `/api/v1/namespaces/${ns}/configmaps`, `/api/v1/namespaces/${ns}/pods`, `/api/v1/namespaces/${ns}/secrets`, `/api/v1/namespaces/${ns}/services`,
  `/apis/apps/v1/namespaces/${ns}/deployments`, `/apis/${group}/v1/namespaces/${ns}/widgets`, '/api/v1/nodes', '/api/v1/configmaps',
  `/apis/rbac.authorization.${domain}/v1/clusterroles`, `/apis/batch/v1/namespaces/${ns}/jobs`, `/apis/coordination.${domain}/v1/namespaces/${ns}/leases`,
  `/apis/apiextensions.${domain}/v1/customresourcedefinitions`, `/apis/cluster.io/v1/namespaces/${ns}/nothing`, `/api/v1/namespaces/${ns}/serviceaccounts`,
  `/apis/rbac.authorization.${domain}/v1/namespaces/${ns}/roles`,
];
const knownNames = ['cm-0', 'cm-1', 'p-0', 'd-0', 'w-0', 'fuzz', 'default', 's-0', 'robot', fuzzNode];
const subresources = ['status', 'scale', 'log', 'exec', 'binding', 'eviction', 'ephemeralcontainers', 'proxy', 'attach', 'portforward', 'token', 'proxy/x/y', 'x'];
const fixedPaths = ['/', '/api', '/api/v1', '/apis', '/apis/apps/v1', `/apis/${group}/v1`, '/version', '/openapi/v2', '/openapi/v3',
  '/openapi/v3/api/v1', '/healthz', '/livez', '/readyz?verbose', '/livez/ping', '/metrics', '/readyz/etcd', `/api/v1/namespaces/${ns}`, '/api/v1/namespaces'];

/** strings that break naive code: unicode outside Latin-1, control characters, quotes, separators, long runs */
const nasty = fc.oneof(
  fc.constantFrom('', ' ', 'ж', '€', '😀', 'a\u0000b', '\u202e', '"', '\\', '\r\n', '%', '%zz', '..', '/', '?', '#', '&', '=', ',', '!', '~', '*', 'true',
    '-1', '0', '1e309', 'NaN', 'null', '__proto__', 'constructor', '99999999999999999999', '-99999999999999999999', '9223372036854775808', '0x10', '1.5',
    '2147483648', '1s', '-1s', '999999999999h', 'All', 'Strict', 'Warn', 'Exact', 'NotOlderThan', 'a=b', 'a in (b', 'a!=', 'metadata.name=x', 'Table;v=v1'),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.integer({ min: 1, max: 5000 }).map(n => 'a'.repeat(n)),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
);

const queryNames = ['limit', 'continue', 'timeoutSeconds', 'gracePeriodSeconds', 'resourceVersion', 'resourceVersionMatch', 'labelSelector',
  'fieldSelector', 'fieldValidation', 'dryRun', 'pretty', 'watch', 'timeout', 'propagationPolicy', 'orphanDependents', 'fieldManager', 'force',
  'includeObject', 'allowWatchBookmarks', 'sendInitialEvents', 'exclude', 'verbose', 'container', 'follow', 'tailLines', 'sinceSeconds', 'x'];

/** continue tokens shaped like the server's own, with values it never issued */
const forgedContinue = fc.record({ v: fc.constantFrom('meta.k8s.io/v1', 'x'), rv: fc.oneof(fc.integer(), fc.double(), fc.constant(1e300), nasty), start: fc.oneof(nasty, fc.constantFrom('fuzz/cm-0', 'other/x', '')) })
  .map(t => Buffer.from(JSON.stringify(t)).toString('base64url'));

const query = fc.array(fc.oneof({ weight: 10, arbitrary: fc.tuple(fc.oneof(fc.constantFrom(...queryNames), nasty), nasty) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('continue'), forgedContinue) },
  // a watch asked for anywhere: on lists, single objects, subresources, discovery
  { weight: 1, arbitrary: fc.tuple(fc.constant('watch'), fc.constantFrom('1', 'true', 'True', '')) }), { maxLength: 5 });

const name = fc.oneof(fc.constantFrom(...knownNames), nasty);

/** paths: mostly objects of the collections and their subresources, some fixed, some garbage */
const pathIn = (collections: string[]) => fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...collections), fc.option(name, { nil: undefined }), fc.option(fc.constantFrom(...subresources), { nil: undefined }, ))
    .map(([c, n, s]) => [c, ...(n === undefined ? [] : [n]), ...(n !== undefined && s ? [s] : [])].map((p, i) => (i === 0 ? p : encodeURIComponent(p))).join('/')) },
  { weight: 2, arbitrary: fc.constantFrom(...fixedPaths) },
  { weight: 1, arbitrary: fc.array(nasty, { minLength: 1, maxLength: 8 }).map(parts => `/${parts.map(encodeURIComponent).join('/')}`) },
  // names that an object used as a map answers for itself
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...fixedPaths.map(p => p.split('?')[0]), ...collections, `${collections[0]}/cm-0`, '/apis/apps', '/openapi/v3/apis', '/api/v1/namespaces/fuzz/pods/p-0'),
    fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype')).map(([p, n]) => `${p.replace(/\/$/, '')}/${n}`) },
  { weight: 1, arbitrary: fc.constantFrom('/api/v1/namespaces/../../etc/passwd', '/api/v1/namespaces/%2e%2e/pods', '//api//v1', '/api/v1/namespaces/fuzz/pods/%00',
    '/apis/%E2%82%AC/v1', `/api/v1/namespaces/${ns}/configmaps/${'x'.repeat(10_000)}`, '/api/v1/namespaces/fuzz/configmaps/cm-0/', '/apis/apps/v1/namespaces/fuzz/deployments/d-0/scale/x/y') },
);

const methods = fc.oneof({ weight: 12, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') },
  { weight: 1, arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'PROPFIND', 'get', 'FOO') });

const contentTypes = ['application/json', 'application/yaml', 'application/vnd.cluster.protobuf', 'application/vnd.kubernetes.protobuf',
  'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml',
  'text/plain', '', 'application/json; charset=utf-16', '*/*', 'multipart/form-data; boundary=x', 'application/yaml;;;'];
const accepts = ['application/json', 'application/yaml', 'application/vnd.cluster.protobuf', 'application/json;as=Table;v=v1;g=meta.cluster.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.cluster.io', 'application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json',
  '*/*', 'text/html', 'application/json;q=0', 'application/*;q=abc', '', 'application/vnd.cluster.protobuf;stream=watch'];

/** header values Node's client will send (Latin-1 without control characters), hostile in content */
const headerValue = fc.oneof(fc.string({ maxLength: 40 }).map(s => s.replace(/[^\x20-\x7e]/g, '')), fc.constantFrom('ж'.repeat(3), 'x'.repeat(8000), ' ', 'Bearer', 'Bearer a.b.c', 'Basic Og=='))
  .map(s => Buffer.from(s, 'utf8').toString('latin1').replace(/[^\t\x20-\x7e\x80-\xff]/g, ''));
/** who to impersonate: names the limited user may use (alice, dev), names nobody may, and malformed ones */
const impersonated = fc.constantFrom('alice', 'dev', 'bob', 'system:admin', 'system:masters', 'system:anonymous', 'system:serviceaccount:fuzz:robot',
  'system:serviceaccount:', 'system:serviceaccount::', 'system:serviceaccount:a:b:c', `system:node:${fuzzNode}`, '', 'read');
const extraHeaders = fc.array(fc.tuple(fc.constantFrom('impersonate-user', 'impersonate-group', 'impersonate-uid', 'impersonate-extra-%zz', 'impersonate-extra-a',
  'impersonate-extra-__proto__', 'impersonate-extra-constructor', 'impersonate-extra-', 'authorization', 'accept-encoding', 'x-remote-user', 'x-remote-extra-__proto__',
  'content-encoding', 'audit-id', 'user-agent', 'expect', 'transfer-encoding-x'), fc.oneof(headerValue, impersonated)), { maxLength: 3 });

const deepJson = fc.tuple(fc.integer({ min: 100, max: 20_000 }), fc.constantFrom('obj', 'arr', 'mixed')).map(([n, k]) =>
  k === 'arr' ? '['.repeat(n) + ']'.repeat(n)
    : k === 'obj' ? `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`
      : `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","annotations":${'{"a":['.repeat(n)}1${']}'.repeat(n)}}}`);

const manyKeysJson = fc.tuple(fc.integer({ min: 100, max: 40_000 }), fc.boolean(), fc.constantFrom('k', 'ж', '😀')).map(([n, dup, prefix]) => {
  const keys = Array.from({ length: n }, (_, i) => `"${prefix}${dup ? i % 7 : i}":1`).join(',');
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"many-${n}"},${keys},"data":{}}`;
});

const objectBody = fc.record({
  apiVersion: fc.oneof(fc.constantFrom('v1', 'apps/v1', `${group}/v1`), nasty),
  kind: fc.oneof(fc.constantFrom('ConfigMap', 'Pod', 'Deployment', 'Widget'), nasty),
  metadata: fc.oneof(fc.record({ name: name, labels: fc.option(fc.dictionary(nasty, nasty, { maxKeys: 3 })), resourceVersion: fc.option(nasty),
    finalizers: fc.option(fc.array(nasty, { maxLength: 3 })), generateName: fc.option(nasty), namespace: fc.option(nasty) }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 2 })),
  data: fc.option(fc.dictionary(nasty, fc.oneof(nasty, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 4 })),
  spec: fc.option(fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.record({
    tags: fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 20 }), ports: fc.array(fc.record({ name: fc.constantFrom('a', 'b'), port: fc.integer() }), { maxLength: 5 }),
    size: fc.oneof(fc.integer(), fc.double(), nasty), mode: nasty, free: fc.jsonValue({ maxDepth: 5 }),
    containers: fc.array(fc.record({ name: nasty, image: nasty, ports: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }), { maxLength: 3 }),
  }, { requiredKeys: [] }))),
  [String.fromCharCode(0x436)]: fc.option(fc.integer()),
}, { requiredKeys: [] }).chain(o => fc.dictionary(nasty, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }).map(extra => ({ ...extra, ...o })));

const bigSet = fc.tuple(fc.integer({ min: 1000, max: 50_000 }), fc.boolean()).map(([n, dups]) => JSON.stringify({
  apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: `set-${n}` },
  spec: { tags: Array.from({ length: n }, (_, i) => `t${dups ? i % 1000 : i}`), ports: Array.from({ length: Math.min(n, 50_000) }, (_, i) => ({ name: `p${dups ? i % 3 : i}`, port: 80 })) },
}));

const jsonPatch = fc.array(fc.record({
  op: fc.oneof(fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'), nasty),
  path: fc.oneof(fc.constantFrom('/metadata/labels/a', '/data/k', '/spec/tags/-', '/spec/containers/0/env', '/metadata/finalizers/0', '', '/', '/a~2b',
    '/data/99999999999999999999', '/spec/tags/1e3', '/metadata/managedFields/0/fieldsV1', '/metadata/resourceVersion', '/__proto__/x'), nasty),
  from: fc.option(fc.constantFrom('/data', '/metadata', '/spec', '', '/metadata/labels')),
  value: fc.option(fc.jsonValue({ maxDepth: 3 })),
}, { requiredKeys: ['op'] }), { maxLength: 30 });

/** copy operations that double the object each time: the patch is small, what it builds is not */
const doublingPatch = fc.integer({ min: 10, max: 60 }).map(n =>
  [{ op: 'add', path: '/data', value: { a: 'x'.repeat(1000) } }, ...Array.from({ length: n }, (_, i) => ({ op: 'copy', from: '/data', path: `/data/c${i}` }))]);

const directive = fc.constantFrom('$patch', '$retainKeys', '$deleteFromPrimitiveList/finalizers', '$setElementOrder/containers', '$setElementOrder/env', '$setElementOrder/finalizers', '$x');
const strategicPatch = fc.letrec<{ node: unknown }>(tie => ({
  node: fc.oneof({ depthSize: 'small' },
    fc.jsonValue({ maxDepth: 1 }),
    fc.dictionary(fc.oneof(directive, fc.constantFrom('metadata', 'spec', 'containers', 'env', 'labels', 'finalizers', 'name', 'template', 'ports'), nasty),
      fc.oneof(tie('node'), fc.constantFrom('delete', 'replace', 'merge', 'x'), fc.array(fc.oneof(fc.record({ name: nasty, $patch: fc.constantFrom('delete', 'replace', 'merge') }), fc.string()), { maxLength: 5 })), { maxKeys: 5 }),
    fc.array(tie('node'), { maxLength: 4 })),
}));

/** YAML bodies that are large or deep: rarer, since each costs the server (and the generator) real work */
const heavyYaml = fc.oneof(
  fc.integer({ min: 50, max: 5000 }).map(n => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}a:`).join('\n')),
  fc.integer({ min: 100, max: 20_000 }).map(n => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.integer({ min: 100, max: 20_000 }).map(n => `${'- '.repeat(n)}x`),
  fc.integer({ min: 1000, max: 60_000 }).map(n => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yk-${n}\ndata:\n${Array.from({ length: n }, (_, i) => `  k${i}: v`).join('\n')}\n`),
);

const yamlBody = fc.oneof(
  fc.integer({ min: 3, max: 12 }).map(n => {   // aliases that expand exponentially
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < n; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]`);
    return `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: alias}\ndata: {}\n${lines.join('\n')}\n`;
  }),
  fc.constantFrom('---\na: 1\n---\nb: 2\n', 'a: !!binary AAAA', 'a: !foo bar', 'a: 2001-12-14t21:59:43.10-05:00', 'a:\n\t- b', '{a: 1, a: 2}', '? [a, b]\n: c',
    '<<: {a: 1}', 'a: &x 1\nb: *y', '%YAML 9.9\n---\na: 1', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  ж: "\\u0000"', '"', "'", '|', '>-\n  x'),
  fc.jsonValue({ maxDepth: 4 }).map(v => JSON.stringify(v)),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
);

const protobufBody = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map(b => Buffer.concat([Buffer.from('k8s\0'), Buffer.from(b)])),
  fc.uint8Array({ maxLength: 300 }).map(b => Buffer.from(b)),
  // an envelope naming a kind, with random raw bytes
  fc.tuple(fc.constantFrom('v1/ConfigMap', 'v1/Pod', 'apps/v1/Deployment', 'v1/Status', 'x/Y'), fc.uint8Array({ maxLength: 200 })).map(([gvk, raw]) => {
    const i = gvk.lastIndexOf('/');
    const typeMeta = Buffer.concat([field(1, Buffer.from(gvk.slice(0, i))), field(2, Buffer.from(gvk.slice(i + 1)))]);
    return Buffer.concat([Buffer.from('k8s\0'), field(1, typeMeta), field(2, Buffer.from(raw))]);
  }),
  // deeply nested length-delimited fields
  fc.integer({ min: 100, max: 5000 }).map(n => {
    let inner: Buffer = Buffer.alloc(0);
    for (let k = 0; k < n; k++) inner = field(1, inner);
    const typeMeta = Buffer.concat([field(1, Buffer.from('v1')), field(2, Buffer.from('Pod'))]);
    return Buffer.concat([Buffer.from('k8s\0'), field(1, typeMeta), field(2, inner)]);
  }),
);

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 127) { out.push((n & 127) | 128); n = Math.floor(n / 128); }
  out.push(n);
  return Buffer.from(out);
}
function field(no: number, bytes: Buffer): Buffer { return Buffer.concat([varint((no << 3) | 2), varint(bytes.length), bytes]); }

// weights: most bodies are small and malformed in many ways; a few in a hundred are large or deep
const body: fc.Arbitrary<{ type: string; body: Buffer | undefined }> = fc.oneof(
  { weight: 10, arbitrary: fc.constant({ type: '', body: undefined }) },
  { weight: 40, arbitrary: objectBody.map(o => ({ type: 'application/json', body: Buffer.from(JSON.stringify(o)) })) },
  { weight: 2, arbitrary: deepJson.map(t => ({ type: 'application/json', body: Buffer.from(t) })) },
  { weight: 1, arbitrary: manyKeysJson.map(t => ({ type: 'application/json', body: Buffer.from(t) })) },
  { weight: 1, arbitrary: bigSet.map(t => ({ type: 'application/json', body: Buffer.from(t) })) },
  { weight: 15, arbitrary: yamlBody.map(t => ({ type: 'application/yaml', body: Buffer.from(t) })) },
  { weight: 15, arbitrary: yamlBody.map(t => ({ type: 'application/apply-patch+yaml', body: Buffer.from(t) })) },
  { weight: 2, arbitrary: fc.tuple(heavyYaml, fc.constantFrom('application/yaml', 'application/apply-patch+yaml')).map(([t, type]) => ({ type, body: Buffer.from(t) })) },
  { weight: 20, arbitrary: objectBody.map(o => ({ type: 'application/apply-patch+yaml', body: Buffer.from(JSON.stringify(o)) })) },
  { weight: 20, arbitrary: protobufBody.map(b => ({ type: 'application/vnd.kubernetes.protobuf', body: b })) },
  { weight: 30, arbitrary: jsonPatch.map(p => ({ type: 'application/json-patch+json', body: Buffer.from(JSON.stringify(p)) })) },
  { weight: 3, arbitrary: doublingPatch.map(p => ({ type: 'application/json-patch+json', body: Buffer.from(JSON.stringify(p)) })) },
  { weight: 20, arbitrary: fc.jsonValue({ maxDepth: 5 }).map(p => ({ type: 'application/merge-patch+json', body: Buffer.from(JSON.stringify(p)) })) },
  { weight: 30, arbitrary: strategicPatch.node.map(p => ({ type: 'application/strategic-merge-patch+json', body: Buffer.from(JSON.stringify(p)) })) },
  { weight: 10, arbitrary: fc.uint8Array({ maxLength: 500 }).map(b => ({ type: '', body: Buffer.from(b) })) },
  { weight: 1, arbitrary: fc.integer({ min: 3 * 1024 * 1024 - 10, max: 3 * 1024 * 1024 + 10 }).map(n => ({ type: 'application/json', body: Buffer.alloc(n, 0x20) })) },
);

/** the type a body goes with, most of the time; else another (a mismatch is hostile too) */
const bodyAndType = fc.tuple(body, fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...contentTypes) }))
  .map(([b, other]) => ({ body: b.body, type: other ?? b.type }));

const rawRequest = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 400 }).map(b => Buffer.from(b)),
  fc.tuple(fc.constantFrom('GET', 'POST', 'G\u0000ET', ''), nasty, fc.array(fc.tuple(nasty, nasty), { maxLength: 4 }), fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/9', 'HTTP/2.0', 'HTTP/0.9', ''))
    .map(([m, p, hs, v]) => Buffer.from(`${m} /api/v1/${p} ${v}\r\nHost: x\r\n${hs.map(([k, val]) => `${k}: ${val}`).join('\r\n')}\r\nConnection: close\r\n\r\n`, 'utf8')),
  fc.constantFrom(
    'GET /api HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n',
    'POST /api/v1/namespaces/fuzz/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\nConnection: close\r\n\r\n{}',
    'POST /api/v1/namespaces/fuzz/configmaps HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nfffffffffffffff\r\n',
    'GET /api HTTP/1.1\r\nHost: x\r\nX: ' + 'a'.repeat(20_000) + '\r\nConnection: close\r\n\r\n',
    'GET /api HTTP/1.1\r\nHost: x\r\nAccept: ж\r\nConnection: close\r\n\r\n',
    'CONNECT example.com:443 HTTP/2.0\r\nHost: x\r\nConnection: close\r\n\r\n',
    'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    'GET https://x/api/v1/namespaces?limit=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    'POST /api/v1/namespaces/fuzz/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\nExpect: 100-continue\r\n\r\n',
    'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' + 'x'.repeat(100)).map(s => Buffer.from(s, 'utf8')),
);

/** what the generators need to know of the server: its API domain, and credentials worth presenting to it */
export interface Vocabulary {
  domain: string;
  /** Authorization header values: the limited user's token, service-account tokens (valid, expired, of a deleted
   * account, tampered, signed with the server's key over hostile claims), garbage */
  authorizations: string[];
}

const upgradeTargets = [
  `/api/v1/namespaces/${ns}/pods/p-0/exec?command=sh&stdin=true&stdout=true&tty=true`, `/api/v1/namespaces/${ns}/pods/p-0/exec?command=ls&stdout=true&stderr=true`,
  `/api/v1/namespaces/${ns}/pods/p-0/exec`, `/api/v1/namespaces/${ns}/pods/p-0/attach?stdin=true&stdout=true`, `/api/v1/namespaces/${ns}/pods/p-0/portforward?ports=80`,
  `/api/v1/namespaces/${ns}/pods/p-0/portforward`, `/api/v1/namespaces/${ns}/pods/p-0/proxy/`, `/api/v1/namespaces/${ns}/pods/p-0:80/proxy/x`,
  `/api/v1/namespaces/${ns}/pods/nope/exec?command=ls&stdout=true`, `/api/v1/nodes/${fuzzNode}/proxy/exec/${ns}/p-0/c?command=ls&output=1`,
  `/api/v1/nodes/${fuzzNode}/proxy/healthz`, `/api/v1/nodes/${fuzzNode}:10250/proxy/pods`, '/api/v1/nodes/nope/proxy/x',
  `/api/v1/namespaces/${ns}/services/s-0/proxy/`, `/api/v1/namespaces/${ns}/services/https:s-0:80/proxy/x`, `/api/v1/namespaces/${ns}/services/nope/proxy`,
  `/api/v1/namespaces/${ns}/configmaps?watch=1`, `/api/v1/namespaces/${ns}/configmaps/cm-0`, '/api', '/livez', '/nope',
];

/** Connection: Upgrade requests (SPDY/3.1, WebSocket with and without its headers and channel subprotocols) */
const upgradeRequestIn = (paths: fc.Arbitrary<string>) => fc.record({
  target: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...upgradeTargets) }, { weight: 1, arbitrary: paths }),
  method: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('GET', 'POST') }, { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'OPTIONS') }),
  upgrade: fc.constantFrom('SPDY/3.1', 'websocket', 'WebSocket', 'h2c', 'SPDY/3.1, websocket', 'x', ''),
  connection: fc.constantFrom('Upgrade', 'upgrade', 'keep-alive, Upgrade', 'close', ''),
  wsKey: fc.option(fc.constantFrom('dGhlIHNhbXBsZSBub25jZQ==', 'x', '', 'a'.repeat(300))),
  wsVersion: fc.option(fc.constantFrom('13', '8', 'x', '')),
  protocols: fc.option(fc.array(fc.constantFrom('v4.channel.k8s.io', 'v5.channel.k8s.io', 'channel.k8s.io', 'base64.channel.k8s.io', 'v4.channel.cluster.io',
    'portforward.k8s.io', 'SPDY/3.1+portforward.k8s.io', 'base64url.bearer.authorization.k8s.io.Zm9v', 'base64url.bearer.authorization.k8s.io.%%%', 'x', ''), { maxLength: 3 })),
  streamProtocol: fc.option(fc.constantFrom('v4.channel.k8s.io', 'v3.channel.k8s.io', 'channel.k8s.io', 'portforward.k8s.io', 'x')),
  /** bytes after the handshake: SPDY-like frames, WebSocket-like frames, or noise */
  after: fc.oneof(
    fc.uint8Array({ maxLength: 300 }).map(b => Buffer.from(b)),
    fc.tuple(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0, max: 0xffffff }), fc.uint8Array({ maxLength: 64 }))
      .map(([type, length, payload]) => Buffer.concat([Buffer.from([0x80, 0x03, type >> 8, type & 0xff, 0, length >> 16, (length >> 8) & 0xff, length & 0xff]), Buffer.from(payload)])),
    fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 64 })).map(([a, b, p]) => Buffer.concat([Buffer.from([a, b]), Buffer.from(p)])),
    fc.constant(Buffer.alloc(0)),
  ),
}).map(u => {
  const headers: Array<[string, string]> = [['Host', 'x']];
  if (u.connection) headers.push(['Connection', u.connection]);
  if (u.upgrade) headers.push(['Upgrade', u.upgrade]);
  if (u.wsKey !== null) headers.push(['Sec-WebSocket-Key', u.wsKey]);
  if (u.wsVersion !== null) headers.push(['Sec-WebSocket-Version', u.wsVersion]);
  if (u.protocols !== null) headers.push(['Sec-WebSocket-Protocol', u.protocols.join(', ')]);
  if (u.streamProtocol !== null) headers.push(['X-Stream-Protocol-Version', u.streamProtocol]);
  return { protocol: 'upgrade' as const, method: u.method, target: u.target, headers: Object.fromEntries(headers), body: u.after };
});

/** handshakes as kubectl and client libraries send them (SPDY/3.1, WebSocket v4/v5), so that many reach the node
 * agent's stream servers, with garbage after them */
const wellFormedUpgrade = fc.record({
  target: fc.constantFrom(...upgradeTargets.slice(0, 10)),
  kind: fc.constantFrom('spdy', 'websocket'),
  protocol: fc.constantFrom('v4.channel.k8s.io', 'v5.channel.k8s.io', 'portforward.k8s.io', 'SPDY/3.1+portforward.k8s.io'),
  after: fc.uint8Array({ maxLength: 200 }).map(b => Buffer.from(b)),
}).map((u): HostileRequest => ({
  protocol: 'upgrade', method: u.kind === 'spdy' ? 'POST' : 'GET', target: u.target, body: u.after,
  headers: u.kind === 'spdy'
    ? { Host: 'x', Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': u.protocol }
    : { Host: 'x', Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Protocol': u.protocol },
}));

/** every request the fuzzer sends, for a server of the given vocabulary */
export function hostileRequests(v: Vocabulary): fc.Arbitrary<HostileRequest> {
  const paths = pathIn(collectionsIn(v.domain));
  // mostly the sender's own credentials; one request in four presents one of the others
  const authorization = fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...v.authorizations) });
  return fc.oneof(
    { weight: 20, arbitrary: fc.record({ protocol: fc.constantFrom('h1' as const, 'h2' as const), method: methods, path: paths, query, body: bodyAndType, accept: fc.constantFrom(...accepts), extra: extraHeaders, authorization })
      .map(({ protocol, method, path: p, query: q, body: b, accept, extra, authorization: auth }) => {
        const target = p + (q.length ? `?${q.map(([k, val]) => `${encodeURIComponent(k)}=${encodeURIComponent(val)}`).join('&')}` : '');
        const headers: Record<string, string> = Object.fromEntries(extra.filter(([k]) => protocol === 'h1' || !/^(transfer-encoding|expect|connection)/.test(k)));
        if (accept) headers.accept = accept;
        if (b.type) headers['content-type'] = b.type;
        if (auth !== undefined) headers.authorization = auth;
        const sendsBody = b.body !== undefined && method !== 'GET' && method !== 'HEAD';
        // the query decides a field manager for applies often enough to get past that check
        return { protocol, method, target: method === 'PATCH' && b.type.includes('apply') && !target.includes('fieldManager') ? `${target}${target.includes('?') ? '&' : '?'}fieldManager=fuzz` : target,
          headers, body: sendsBody ? b.body : undefined };
      }) },
    { weight: 1, arbitrary: rawRequest.map(raw => ({ protocol: 'raw' as const, method: '', target: '', headers: {}, raw })) },
    { weight: 2, arbitrary: fc.tuple(fc.oneof(upgradeRequestIn(paths), wellFormedUpgrade), authorization).map(([r, auth]) => (auth === undefined ? r : { ...r, headers: { ...r.headers, Authorization: auth } })) },
  );
}

// ---- sending ----

export interface Outcome {
  status: number;
  ms: number;
  /** the start of the body, for 5xx reports */
  text: string;
  /** the client gave up (network error, or the 10 s budget) */
  error?: string;
}

/** a request not answered within this is a failure (the benchmark's budget; a busy test machine may pass a larger one) */
export const answerBudgetMs = 10_000;

export interface Sender {
  send(r: HostileRequest): Promise<Outcome>;
  close(): void;
}

/** a sender speaking as the administrator (the client certificate) or as the limited user (its bearer token, unless
 * the request brings an Authorization header of its own; raw requests go without credentials) */
export function sender(server: FuzzServer, budgetMs = answerBudgetMs, as: FuzzUser = server.user): Sender {
  const tls = as === 'admin' ? { ca: server.ca, cert: server.cert, key: server.key } : { ca: server.ca };
  const withCredentials = (headers: Record<string, string>) =>
    as === 'admin' || Object.keys(headers).some(k => k.toLowerCase() === 'authorization') ? headers : { ...headers, authorization: `Bearer ${limitedToken}` };
  const agent = new Agent({ ...tls, keepAlive: true, maxSockets: 64 });
  let session: ClientHttp2Session | undefined;
  const h2 = () => {
    if (!session || session.closed || session.destroyed) {
      // Node's client counts a body the server left unread against its session for as long as the session lasts,
      // and past 10 MB (its default) refuses every answer with ENHANCE_YOUR_CALM: three 3 MB bodies were enough
      const s = http2Connect(`https://127.0.0.1:${server.port}`, { ...tls, maxSessionMemory: 4096 });
      session = s;
      s.on('error', () => { /* the requests on it report */ });
      // a server that has had enough of a session's resets sends GOAWAY: later requests open a new one
      s.on('goaway', () => { if (session === s) session = undefined; });
    }
    return session;
  };
  // a flag the server reads as on (present, and neither 0 nor false: an empty value too) makes a stream of the answer
  const flagOn = (v: string | null) => v !== null && v !== '0' && v.toLowerCase() !== 'false';
  const isStream = (r: HostileRequest) => {
    const query = new URLSearchParams(r.target.split('?')[1] ?? '');
    return flagOn(query.get('watch')) || flagOn(query.get('follow')) || /\/(exec|attach|portforward|proxy)/.test(r.target);
  };

  function h1(r: HostileRequest, started: number): Promise<Outcome> {
    return new Promise(resolve => {
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (o: Omit<Outcome, 'ms'>) => { if (!done) { done = true; clearTimeout(timer); resolve({ ...o, ms: performance.now() - started }); } };
      const headers = { ...withCredentials(r.headers), ...(r.body ? { 'content-length': String(r.body.length) } : {}) };
      let req: ReturnType<typeof httpsRequest>;
      try {
        req = httpsRequest({ host: '127.0.0.1', port: server.port, agent, method: r.method, path: r.target, headers }, res => {
          if (isStream(r) && res.statusCode === 200) { finish({ status: 200, text: '' }); res.destroy(); return; }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => { if (size < 2000) chunks.push(c); size += c.length; });
          res.on('end', () => finish({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8').slice(0, 500) }));
          res.on('error', e => finish({ status: res.statusCode!, text: '', error: e.message }));
        });
      } catch (e) {
        finish({ status: 0, text: '', error: `not sendable: ${(e as Error).message}` });
        return;
      }
      timer = setTimeout(() => { finish({ status: 0, text: '', error: 'no answer in time' }); req.destroy(); }, budgetMs);
      req.on('error', e => finish({ status: 0, text: '', error: e.message }));
      // Node's client hands any answer to a CONNECT (a 431 for headers too large, say) or to an upgrade to these
      // events instead of the response callback, and drops it silently when nobody listens
      const tunnel = (res: IncomingMessage, socket: Duplex) => { finish({ status: res.statusCode!, text: '' }); socket.destroy(); };
      req.on('connect', tunnel);
      req.on('upgrade', tunnel);
      req.end(r.body);
    });
  }

  function viaH2(r: HostileRequest, started: number): Promise<Outcome> {
    return new Promise(resolve => {
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (o: Omit<Outcome, 'ms'>) => { if (!done) { done = true; clearTimeout(timer); resolve({ ...o, ms: performance.now() - started }); } };
      let stream: ReturnType<ClientHttp2Session['request']>;
      try {
        stream = h2().request({ ':method': r.method, ':path': r.target, ...withCredentials(r.headers) }, { endStream: !r.body });
      } catch (e) {
        finish({ status: 0, text: '', error: `not sendable: ${(e as Error).message}` });
        return;
      }
      timer = setTimeout(() => { finish({ status: 0, text: '', error: 'no answer in time' }); stream.close(); }, budgetMs);
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on('response', h => {
        status = Number(h[':status']);
        if (isStream(r) && status === 200) { finish({ status, text: '' }); stream.close(); }
      });
      stream.on('data', (c: Buffer) => { if (chunks.length < 4) chunks.push(c); });
      stream.on('end', () => finish({ status, text: Buffer.concat(chunks).toString('utf8').slice(0, 500) }));
      stream.on('close', () => finish({ status, text: Buffer.concat(chunks).toString('utf8').slice(0, 500), ...(status ? {} : { error: `stream closed (code ${stream.rstCode})` }) }));
      stream.on('error', e => finish({ status, text: '', error: e.message }));
      if (r.body) stream.end(r.body);
    });
  }

  function raw(r: HostileRequest, started: number): Promise<Outcome> {
    return new Promise(resolve => {
      let done = false;
      let text = '';
      let timer: NodeJS.Timeout | undefined;
      const finish = (o: Omit<Outcome, 'ms'>) => { if (!done) { done = true; clearTimeout(timer); socket.destroy(); resolve({ ...o, ms: performance.now() - started }); } };
      const socket = tlsConnect({ host: '127.0.0.1', port: server.port, ...tls, ALPNProtocols: ['http/1.1'] }, () => socket.end(r.raw!));
      timer = setTimeout(() => finish({ status: 0, text, error: 'no answer in time' }), budgetMs);
      socket.on('data', (d: Buffer) => { if (text.length < 2000) text += d.toString('latin1'); });
      const status = () => Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
      socket.on('end', () => finish({ status: status(), text: text.slice(0, 500) }));
      socket.on('close', () => finish({ status: status(), text: text.slice(0, 500) }));
      socket.on('error', e => finish({ status: status(), text: '', error: e.message }));
    });
  }

  // the answer's head is the outcome; after a 101 the request's body goes again (garbage inside the tunnel), then the
  // connection is cut, which the server must clean up after
  function upgrade(r: HostileRequest, started: number): Promise<Outcome> {
    return new Promise(resolve => {
      let done = false;
      let received = Buffer.alloc(0);
      let timer: NodeJS.Timeout | undefined;
      const text = () => received.subarray(0, 500).toString('latin1');
      const status = () => Number(/^HTTP\/1\.[01] (\d{3})/.exec(text())?.[1] ?? 0);
      const finish = (o: Omit<Outcome, 'ms'>) => { if (!done) { done = true; clearTimeout(timer); socket.destroy(); resolve({ ...o, ms: performance.now() - started }); } };
      const head = `${r.method} ${r.target} HTTP/1.1\r\n${Object.entries(withCredentials(r.headers)).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
      const socket = tlsConnect({ host: '127.0.0.1', port: server.port, ...tls, ALPNProtocols: ['http/1.1'] }, () => socket.write(Buffer.concat([Buffer.from(head, 'latin1'), r.body ?? Buffer.alloc(0)])));
      timer = setTimeout(() => finish({ status: status(), text: text(), error: 'no answer in time' }), budgetMs);
      socket.on('data', (d: Buffer) => {
        if (done) return;
        received = Buffer.concat([received, d]).subarray(0, 4000);
        if (!received.includes('\r\n\r\n')) return;
        if (status() === 101) socket.write(r.body ?? Buffer.alloc(0), () => finish({ status: 101, text: text() }));
        else finish({ status: status(), text: text() });
      });
      socket.on('end', () => finish({ status: status(), text: text() }));
      socket.on('close', () => finish({ status: status(), text: text() }));
      socket.on('error', e => finish({ status: status(), text: '', error: e.message }));
    });
  }

  return {
    send(r) {
      const started = performance.now();
      return r.protocol === 'h1' ? h1(r, started) : r.protocol === 'h2' ? viaH2(r, started) : r.protocol === 'upgrade' ? upgrade(r, started) : raw(r, started);
    },
    close() { agent.destroy(); session?.destroy(); },
  };
}

// ---- running ----

/**
 * 5xx answers the reference gives for these requests too: they are counted apart, not as failures. A create that
 * names a resourceVersion is a plain 500 in the reference, as is an apply its schema cannot read; a read at a resourceVersion the server has not reached
 * waits, then answers 504. An HTTP/1.1 request line of another version (HTTP/2.0) is a 505 from its HTTP server.
 */
const referenceFiveHundreds: Array<[number, RegExp]> = [
  [500, /resourceVersion should not be set on objects to be created/],
  // an apply configuration its schema cannot read (an undeclared field, duplicate or keyless list entries)
  [500, /failed to create typed patch object/],
  [504, /Too large resource version/],
  // the text may be cut short: bytes the raw client sends after the request line's head end the connection
  [505, /^$|unsupported protocol version/],
  // a proxy to a service without endpoints, or to a backend that refuses the connection
  [503, /no endpoints available for service|error trying to reach|no preferred addresses found/],
];

export interface FuzzReport {
  sent: number;
  byProtocol: Record<string, number>;
  byStatus: Record<string, number>;
  /** answers by protocol and status, and for requests without an answer, why (the first words of the error) */
  byProtocolStatus: Record<string, number>;
  /** answers of 500 and above that the reference does not give */
  serverErrors: Array<{ request: string; status: number; text: string }>;
  referenceServerErrors: number;
  /** requests without an answer within 10 s */
  slow: Array<{ request: string; ms: number; error?: string }>;
  /** connections the server closed without an answer (not failures by themselves: a refused request may close) */
  noAnswer: number;
  /** generated requests Node's own client refused to send (invalid header characters, methods or paths): not counted as sent */
  unsendable: number;
  crashed?: string;
  slowestMs: number;
  /** the five slowest answers, to replay alone when a /livez probe was slow */
  slowest: Array<{ request: string; ms: number; status: number }>;
  livezSlowestMs: number;
  /** /livez probes slower than a second, with the requests in flight when each was sent (the suspects of a stall) */
  livezStalls: Array<{ ms: number; inFlight: string[] }>;
  seconds: number;
}

const describe = (r: HostileRequest) => r.protocol === 'raw'
  ? `raw ${JSON.stringify(r.raw!.subarray(0, 200).toString('latin1'))}`
  : `${r.protocol} ${r.method} ${r.target.slice(0, 300)} ${JSON.stringify(r.headers).slice(0, 300)} body=${r.body ? `${r.body.length}B ${JSON.stringify(r.body.subarray(0, 200).toString('utf8'))}` : 'none'}`;

export async function setUpFixtures(s: Sender, domain = 'k8s.io'): Promise<void> {
  const json = (path: string, body: unknown, method = 'POST') => s.send({ protocol: 'h1', method, target: path, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) });
  await json(`/apis/apiextensions.${domain}/v1/customresourcedefinitions`, widgetCrdIn(domain));
  // the custom resource is served once its definition is established
  for (let i = 0; i < 200; i++) {
    const r = await s.send({ protocol: 'h1', method: 'GET', target: `/apis/${group}/v1/namespaces/${ns}/widgets`, headers: {} });
    if (r.status === 200) break;
    await new Promise(res => setTimeout(res, 50));
  }
  for (const f of [...fixtures, ...limitedUserGrants(domain, limitedUser)]) await json(f.path, f.body);
}

/**
 * Credentials worth presenting: the limited user's token, service-account tokens the server issued (one of an account
 * since deleted), the valid one tampered with, and tokens signed with the server's own key (read from its data folder)
 * over claims that are expired, not yet valid or malformed, besides plain garbage.
 */
export async function vocabulary(server: FuzzServer, admin: Sender): Promise<Vocabulary> {
  const json = (path: string, body: unknown, method = 'POST') => admin.send({ protocol: 'h1', method, target: path, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) });
  const tokenOf = async (account: string) => {
    await json(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account } });
    // the whole answer (the sender keeps only its start)
    const answer = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port: server.port, ca: server.ca, cert: server.cert, key: server.key, method: 'POST', agent: false,
        path: `/api/v1/namespaces/${ns}/serviceaccounts/${account}/token`, headers: { 'content-type': 'application/json' } }, res => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString()));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ apiVersion: `authentication.${server.domain}/v1`, kind: 'TokenRequest', spec: {} }));
    });
    try { return (JSON.parse(answer) as { status: { token: string } }).status.token; } catch { throw new Error(`no token for ${account}: ${answer.slice(0, 500)}`); }
  };
  const valid = await tokenOf('robot');
  const ofDeleted = await tokenOf('gone');
  await admin.send({ protocol: 'h1', method: 'DELETE', target: `/api/v1/namespaces/${ns}/serviceaccounts/gone`, headers: {} });
  const [header, payload] = valid.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, any>;
  const jose = await import('jose');
  const key = createPrivateKey(readFileSync(join(server.dataDir, 'pki', 'sa.key')));
  const alg = (JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg: string }).alg;
  const now = Math.floor(Date.now() / 1000);
  const signed = (c: Record<string, unknown>) => new jose.SignJWT(c).setProtectedHeader({ alg }).sign(key);
  const privateKey = Object.keys(claims).find(k => typeof claims[k] === 'object' && claims[k] && 'serviceaccount' in claims[k])!;
  const forged = await Promise.all([
    { ...claims, iat: now - 7200, nbf: now - 7200, exp: now - 3600 },
    { ...claims, nbf: now + 3600 },
    { ...claims, aud: 'someone-else' },
    { ...claims, aud: { x: 1 } },
    { ...claims, sub: 'system:serviceaccount:other:robot' },
    { ...claims, [privateKey]: { ...claims[privateKey], namespace: 7 } },
    { ...claims, [privateKey]: { ...claims[privateKey], serviceaccount: null } },
    { ...claims, [privateKey]: { ...claims[privateKey], serviceaccount: { name: 'robot', uid: 'not-its-uid' } } },
    { ...claims, [privateKey]: { ...claims[privateKey], pod: { name: 'p-0', uid: 'x' } } },
    { ...claims, [privateKey]: { ...claims[privateKey], secret: { name: '__proto__' }, warnafter: 'soon' } },
    { ...claims, [privateKey]: 'x' },
    { ...claims, exp: 1e300 },
    { ...claims, exp: 'never' },
    { ...claims, iss: ['a', 'b'] },
  ].map(signed));
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const tokens = [limitedToken, valid, ofDeleted, ...forged, `${valid.slice(0, -4)}AAAA`, `${header}.${payload}.`,
    `${b64({ alg: 'none' })}.${payload}.`, `${b64({ alg: 'HS256' })}.${payload}.${'A'.repeat(43)}`, `${header}.${b64({ ...claims, exp: now - 1 })}.${valid.split('.')[2]}`,
    'a.b.c', '..', `${'a'.repeat(5000)}.b.c`, 'garbage', limitedToken.toUpperCase(), `${limitedToken} extra`];
  return { domain: server.domain, authorizations: [...tokens.map(t => `Bearer ${t}`), 'Bearer', 'Bearer ', 'bearer x', 'Basic Zm9vOmJhcg==', '', `Bearer ${'x'.repeat(9000)}`] };
}

/** watch parameters that are odd but mostly accepted, so that the watches stay open */
const watchQuery = fc.record({
  resourceVersion: fc.constantFrom(undefined, '', '0', '1', '99999999999', 'x'),
  timeoutSeconds: fc.constantFrom(undefined, '0', '1', '5', '3600', '-1', '2147483648'),
  allowWatchBookmarks: fc.constantFrom(undefined, 'true', 'false', 'x'),
  sendInitialEvents: fc.constantFrom(undefined, 'true', 'false'),
  resourceVersionMatch: fc.constantFrom(undefined, 'NotOlderThan', 'Exact', 'x'),
  labelSelector: fc.constantFrom(undefined, 'a=b', 'a', '!a', 'a in (b,c)', 'a notin ()', ''),
  fieldSelector: fc.constantFrom(undefined, 'metadata.name=cm-0', 'metadata.namespace!=x', 'spec.nodeName=fuzz-node', 'x=y'),
  limit: fc.constantFrom(undefined, '1', '0'),
  watch: fc.constantFrom('1', 'true', ''),
}, { requiredKeys: [] });
const watchAccept = fc.constantFrom('application/json', 'application/vnd.kubernetes.protobuf;stream=watch', 'application/yaml',
  'application/json;as=Table;v=v1;g=meta.k8s.io', '*/*');

/**
 * Watches held open on one HTTP/2 session of their own while the fuzzer runs, each reopened with new parameters when
 * the server ends it. A watch must be answered (its head) within the budget; what it streams is read and dropped.
 */
function holdWatches(server: FuzzServer, collections: string[], seed: number, budgetMs: number, count: number, report: FuzzReport, crashed: () => boolean) {
  const tls = server.user === 'admin' ? { ca: server.ca, cert: server.cert, key: server.key } : { ca: server.ca };
  const credentials = server.user === 'admin' ? {} : { authorization: `Bearer ${limitedToken}` };
  const session = http2Connect(`https://127.0.0.1:${server.port}`, tls);
  session.on('error', () => { /* the watches on it report */ });
  const targets = fc.sample(fc.tuple(fc.constantFrom(...collections, `${collections[0]}/cm-0`, '/api/v1/namespaces', `/api/v1/watch/namespaces/${ns}/configmaps`, '/api'), watchQuery, watchAccept), { numRuns: 1000, seed });
  let opened = 0;
  let stopping = false;
  const open = (): void => {
    if (stopping || crashed() || session.closed || session.destroyed) return;
    const [path, q, accept] = targets[opened++ % targets.length]!;
    const target = `${path}?${Object.entries(q).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${encodeURIComponent(v!)}`).join('&')}`;
    const started = performance.now();
    let answered = false;
    const stream = session.request({ ':path': target, accept, ...credentials });
    const timer = setTimeout(() => { if (!answered && !crashed()) report.slow.push({ request: `held watch h2 GET ${target}`, ms: performance.now() - started, error: 'no answer in time' }); }, budgetMs);
    let status = 0;
    let text = '';
    stream.on('response', h => {
      answered = true;
      clearTimeout(timer);
      status = Number(h[':status']);
      report.byStatus[`watch ${status}`] = (report.byStatus[`watch ${status}`] ?? 0) + 1;
    });
    // what a watch streams is dropped; a refusal's Status is kept for the report
    stream.on('data', (c: Buffer) => { if (status >= 500 && text.length < 500) text += c.toString(); });
    stream.on('error', () => { /* ends as a close */ });
    // a watch the server ends (its timeout, a refusal) makes room for the next one, a moment later
    stream.on('close', () => {
      clearTimeout(timer);
      if (status >= 500) {
        if (referenceFiveHundreds.some(([code, re]) => code === status && re.test(text))) report.referenceServerErrors++;
        else if (report.serverErrors.length < 50) report.serverErrors.push({ request: `held watch h2 GET ${target}`, status, text });
      }
      if (!stopping) setTimeout(open, 100);
    });
  };
  for (let i = 0; i < count; i++) open();
  return {
    async stop() {
      stopping = true;
      session.destroy();
    },
  };
}

export async function runFuzz(opts: { requests: number; seed: number; concurrency?: number; server: FuzzServer; budgetMs?: number; heldWatches?: number; progress?: (done: number, report: FuzzReport) => void }): Promise<FuzzReport> {
  const { server } = opts;
  const budgetMs = opts.budgetMs ?? answerBudgetMs;
  const admin = sender(server, budgetMs, 'admin');
  const s = sender(server, budgetMs);
  const report: FuzzReport = { sent: 0, byProtocol: {}, byStatus: {}, byProtocolStatus: {}, serverErrors: [], referenceServerErrors: 0, slow: [], noAnswer: 0, unsendable: 0, slowestMs: 0, slowest: [], livezSlowestMs: 0, livezStalls: [], seconds: 0 };
  const inFlight = new Set<HostileRequest>();
  const started = performance.now();
  let crashed = false;
  void server.exited.then(e => { crashed = true; report.crashed = `exit ${e.code ?? e.signal}: ${e.log.slice(-3000)}`; });
  void server.agentExited?.then(e => { crashed = true; report.crashed = `the node agent exited ${e.code ?? e.signal}: ${e.log.slice(-3000)}`; });
  // a probe of /livez once a second, timed, throughout
  let probing = true;
  const probes = (async () => {
    while (probing && !crashed) {
      const suspects = [...inFlight];
      const o = await admin.send({ protocol: 'h1', method: 'GET', target: '/livez', headers: {} });
      if (o.ms > 1000 && report.livezStalls.length < 10) report.livezStalls.push({ ms: Math.round(o.ms), inFlight: suspects.map(r => describe(r).slice(0, 300)) });
      if (o.status === 200) report.livezSlowestMs = Math.max(report.livezSlowestMs, o.ms);
      else if (!crashed) report.slow.push({ request: 'GET /livez', ms: o.ms, error: `status ${o.status} ${o.error ?? ''}` });
      await new Promise(res => setTimeout(res, 1000));
    }
  })();
  await setUpFixtures(admin, server.domain);
  const hostileRequest = hostileRequests(await vocabulary(server, admin));
  const watches = holdWatches(server, collectionsIn(server.domain), opts.seed, budgetMs, opts.heldWatches ?? 12, report, () => crashed);
  const batch = 500;
  const concurrency = opts.concurrency ?? 16;
  for (let offset = 0; report.sent < opts.requests && !crashed; offset += batch) {
    const requests = fc.sample(hostileRequest, { numRuns: Math.min(batch, opts.requests - report.sent), seed: opts.seed + offset });
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < requests.length && !crashed) {
        const r = requests[next++];
        inFlight.add(r);
        const o = await s.send(r);
        inFlight.delete(r);
        if (o.error?.startsWith('not sendable')) { report.unsendable++; continue; }
        report.sent++;
        report.byProtocol[r.protocol] = (report.byProtocol[r.protocol] ?? 0) + 1;
        report.byStatus[o.status || 'none'] = (report.byStatus[o.status || 'none'] ?? 0) + 1;
        const key = `${r.protocol} ${o.status || `none: ${o.error?.slice(0, 40) ?? 'closed'}`}`;
        report.byProtocolStatus[key] = (report.byProtocolStatus[key] ?? 0) + 1;
        report.slowestMs = Math.max(report.slowestMs, o.ms);
        if (report.slowest.length < 5 || o.ms > report.slowest[4]!.ms) {
          report.slowest = [...report.slowest, { request: describe(r), ms: Math.round(o.ms), status: o.status }].sort((a, b) => b.ms - a.ms).slice(0, 5);
        }
        if (o.ms > budgetMs || o.error === 'no answer in time') report.slow.push({ request: describe(r), ms: o.ms, error: o.error });
        else if (!o.status) report.noAnswer++;
        if (o.status >= 500) {
          // a HEAD answer has no body to tell its reason: the same request as a GET (a read) shows it
          if (r.method === 'HEAD' && !o.text) {
            const asGet = await s.send({ ...r, method: 'GET' });
            if (asGet.status === o.status) o.text = asGet.text;
          }
          if (referenceFiveHundreds.some(([code, re]) => code === o.status && re.test(o.text))) report.referenceServerErrors++;
          else if (report.serverErrors.length < 50) report.serverErrors.push({ request: describe(r), status: o.status, text: o.text });
          else report.serverErrors.length++;
        }
      }
    }));
    // what the fuzzer deleted comes back, so later requests still find targets
    if (!crashed) for (const f of fixtures) await admin.send({ protocol: 'h1', method: 'POST', target: f.path, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(f.body)) });
    opts.progress?.(report.sent, report);
  }
  probing = false;
  await probes;
  await watches.stop();
  // the server still answers after the run
  if (!crashed) {
    const after = await admin.send({ protocol: 'h1', method: 'GET', target: `/api/v1/namespaces/${ns}/configmaps/cm-0`, headers: {} });
    if (after.status !== 200 && after.status !== 404) report.slow.push({ request: 'GET cm-0 after the run', ms: after.ms, error: `status ${after.status} ${after.error ?? after.text}` });
  }
  s.close();
  admin.close();
  report.seconds = (performance.now() - started) / 1000;
  return report;
}
