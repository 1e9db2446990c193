// The OpenAPI endpoints: /openapi/v2 (Swagger 2.0 as JSON or gnostic protobuf, also at the legacy
// /swagger-2.0.0.pb-v1 and /swagger.json) and /openapi/v3 (an index of per-group-version documents
// addressed by content hash). Documents are built on first request, never at start, kept until the API
// changes, and shared by the servers of one process that serve the same API.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Naming } from '../api/naming.js';
import type { ApiResources } from '../registry/resources.js';
import type { RequestContext } from '../api/request.js';
import { parseAccept } from '../endpoints/negotiation.js';
import { setWarnings } from '../endpoints/respond.js';
import { methodNotSupported, notAcceptable, pathNotFound } from '../api/status.js';
import type { Model } from './documents.js';

// the document builders load on the first OpenAPI request, keeping them out of start-up
type Builders = typeof import('./documents.js') & typeof import('./protobuf.js') & typeof import('./protobuf-v3.js')
  & typeof import('./convert-v2.js');
let builders: Builders | undefined;
const loadBuilders = async (): Promise<Builders> => (builders ??= {
  ...(await import('./documents.js')), ...(await import('./protobuf.js')), ...(await import('./protobuf-v3.js')),
  ...(await import('./convert-v2.js')),
});

/** the protobuf forms' media types as clients ask for them, and as answered (Go's MIME parser rejects `@`) */
const protobufV2Asked = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
export const protobufV2ContentType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const protobufV3Asked = 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf';
export const protobufV3ContentType = 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf';

interface Encoded { body: Buffer; etag: string; hash: string; gzipped?: Buffer }

function encoded(body: Buffer): Encoded {
  const hash = createHash('sha512').update(body).digest('hex').toUpperCase();
  return { body, hash, etag: `"${hash}"` };
}

/** gzip pays off past a few packets; the compressed form is kept with the document */
const gzipFrom = 1400;

function send(ctx: RequestContext, doc: Encoded, contentType: string, cacheControl = 'no-cache, private') {
  const { res } = ctx;
  if (res.headersSent) return;
  setWarnings(ctx);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('ETag', doc.etag);
  res.setHeader('Vary', 'Accept, Accept-Encoding');
  res.setHeader('Audit-Id', ctx.id);
  const inm = String(ctx.headers['if-none-match'] ?? '');
  if (inm && inm.split(',').some(t => t.trim().replace(/^W\//, '') === doc.etag || t.trim() === '*')) {
    res.writeHead(304);
    res.end();
    return;
  }
  let payload = doc.body;
  if (payload.length >= gzipFrom && /\bgzip\b/.test(String(ctx.headers['accept-encoding'] ?? ''))) {
    payload = doc.gzipped ??= gzipSync(doc.body, { level: 6 });
    res.setHeader('Content-Encoding', 'gzip');
  }
  res.setHeader('Content-Length', payload.length);
  res.writeHead(200);
  res.end(ctx.method === 'HEAD' ? undefined : payload);
}

/** which form of a document the Accept header asks for, in the client's order of preference; JSON for any */
function documentForm(accept: string | undefined, protobufTypes: string[]): 'json' | 'protobuf' | undefined {
  for (const m of parseAccept(accept)) {
    if (protobufTypes.includes(m.type)) return 'protobuf';
    if (m.type === 'application/json' || m.type === 'application/*' || m.type === '*/*') return 'json';
  }
  return undefined;
}

/** the documents of one API, each built when first asked for */
interface Documents {
  model?: Model;
  v2?: { json: Encoded; proto?: Encoded; doc: unknown };
  /** protos: the protobuf forms asked for so far, tagged as their JSON forms are */
  v3?: { index: Encoded; groups: Map<string, Encoded>; protos: Map<string, Encoded> };
}

/** A key that is equal for two servers exactly when their documents are: the domain and, for each served
 *  resource version, the identity of its definition and schema (built-in ones are shared by the process;
 *  a custom resource's are its own). */
const ids = new WeakMap<object, number>();
let nextId = 1;
const identity = (o: object | undefined) => {
  if (!o) return 0;
  let id = ids.get(o);
  if (id === undefined) ids.set(o, id = nextId++);
  return id;
};

function apiKey(resources: ApiResources, names: Naming): string {
  const parts = [names.domain, ...resources.groups().map(g => `${g.name}:${g.versions.join(',')}:${g.preferredVersion}`)];
  for (const e of resources.all()) parts.push(`${e.group}/${e.version}/${e.resource}:${identity(e.def)}:${identity(e.schema)}`);
  return parts.join('|');
}

/** the documents of the APIs served lately in this process; a few, as each set is some megabytes */
const recent = new Map<string, Documents>();
const recentLimit = 4;

function documentsFor(key: string): Documents {
  let docs = recent.get(key);
  if (docs) recent.delete(key);
  else docs = {};
  recent.set(key, docs);
  while (recent.size > recentLimit) recent.delete(recent.keys().next().value!);
  return docs;
}

/** the backends of APIServices: their group versions and their v2 documents, as last fetched */
export interface RemoteSpecs {
  /** the remote group versions, as `apis/<group>/<version>` (their v3 documents are proxied to the backend) */
  groupVersions(): string[];
  /** the remote group versions whose backends serve no v3 documents, with their v2 documents (converted here) */
  v2OnlyGroupVersions(): Array<{ key: string; document: Record<string, unknown> }>;
  v2Documents(): Array<{ paths?: Record<string, unknown>; definitions?: Record<string, unknown> }>;
  onChange(fn: () => void): void;
}

/** the backends' paths and definitions joined to this server's; this server's own win where a name is taken */
function mergeV2(doc: Record<string, unknown>, remote: ReturnType<RemoteSpecs['v2Documents']>) {
  const paths = { ...(doc.paths as object) } as Record<string, unknown>;
  const definitions = { ...(doc.definitions as object) } as Record<string, unknown>;
  for (const r of remote) {
    for (const [k, v] of Object.entries(r.paths ?? {})) paths[k] ??= v;
    for (const [k, v] of Object.entries(r.definitions ?? {})) definitions[k] ??= v;
  }
  return { ...doc, paths, definitions };
}

/** a group version document's protobuf form, tagged and addressed by the hash of its JSON form as the reference does */
function protobufV3(protos: Map<string, Encoded>, key: string, json: Encoded): Encoded {
  let proto = protos.get(key);
  if (!proto) protos.set(key, proto = { ...json, gzipped: undefined, body: builders!.encodeOpenAPIv3Document(JSON.parse(json.body.toString())) });
  return proto;
}

export function openapiEndpoints(resources: ApiResources, names: Naming, remote?: RemoteSpecs) {
  let docs: Documents | undefined;
  let merged: { json: Encoded; proto?: Encoded; doc: unknown } | undefined;
  let remoteIndex: Encoded | undefined;
  /** the v3 documents converted from backends' v2 documents, and their protobuf forms when asked for */
  let converted: { groups: Map<string, Encoded>; protos: Map<string, Encoded> } | undefined;
  resources.onChange(() => { docs = undefined; merged = undefined; remoteIndex = undefined; });
  remote?.onChange(() => { merged = undefined; remoteIndex = undefined; converted = undefined; });
  const current = () => (docs ??= documentsFor(apiKey(resources, names)));

  const currentModel = () => (current().model ??= builders!.buildModel(resources, names));

  function swagger() {
    const d = current();
    if (!d.v2) {
      const doc = builders!.swaggerDocument(currentModel(), names);
      d.v2 = { doc, json: encoded(Buffer.from(JSON.stringify(doc))) };
    }
    return d.v2;
  }

  /** the v2 document with the backends' documents merged in */
  function swaggerWithRemote() {
    const own = swagger();
    const docs = remote?.v2Documents() ?? [];
    if (!docs.length) return own;
    if (!merged) {
      const doc = mergeV2(own.doc as Record<string, unknown>, docs);
      merged = { doc, json: encoded(Buffer.from(JSON.stringify(doc))) };
    }
    return merged;
  }

  function convertedDocuments() {
    if (!converted) {
      converted = { groups: new Map(), protos: new Map() };
      for (const { key, document } of remote?.v2OnlyGroupVersions() ?? [])
        converted.groups.set(key, encoded(Buffer.from(JSON.stringify(builders!.swaggerToOpenAPI3(document)))));
    }
    return converted;
  }

  /** the v3 index with the remote group versions listed */
  function indexWithRemote() {
    const own = openapi3().index;
    const gvs = remote?.groupVersions() ?? [];
    const v2Only = convertedDocuments().groups;
    if (!gvs.length && !v2Only.size) return own;
    if (!remoteIndex) {
      const paths = { ...(JSON.parse(own.body.toString()) as { paths: Record<string, unknown> }).paths };
      for (const key of gvs) paths[key] = { serverRelativeURL: `/openapi/v3/${key}` };
      for (const [key, doc] of v2Only) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
      remoteIndex = encoded(Buffer.from(JSON.stringify({ paths })));
    }
    return remoteIndex;
  }

  function openapi3() {
    const d = current();
    if (!d.v3) {
      const m = currentModel();
      const groups = new Map<string, Encoded>();
      const paths: Record<string, { serverRelativeURL: string }> = {};
      for (const gv of m.groupVersions) {
        const doc = encoded(Buffer.from(JSON.stringify(builders!.openapi3Document(m, gv, names))));
        groups.set(gv.key, doc);
        paths[gv.key] = { serverRelativeURL: `/openapi/v3/${gv.key}?hash=${doc.hash}` };
      }
      d.v3 = { groups, protos: new Map(), index: encoded(Buffer.from(JSON.stringify({ paths }))) };
    }
    return d.v3;
  }

  return {
    async handle(ctx: RequestContext): Promise<boolean> {
      const p = ctx.path;
      const ours = p === '/openapi/v2' || p === '/swagger-2.0.0.pb-v1' || p === '/swagger.json' || p === '/openapi/v3' || p.startsWith('/openapi/v3/');
      if (!ours) return false;
      await loadBuilders();
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw methodNotSupported(p, ctx.method);
      const accept = ctx.headers.accept;
      if (p === '/openapi/v2' || p === '/swagger-2.0.0.pb-v1' || p === '/swagger.json') {
        const form = p === '/swagger-2.0.0.pb-v1' ? 'protobuf' : p === '/swagger.json' ? 'json' : documentForm(accept, [protobufV2Asked, protobufV2ContentType]);
        if (!form) throw notAcceptable(['application/json', protobufV2ContentType]);
        const doc = swaggerWithRemote();
        if (form === 'json') send(ctx, doc.json, 'application/json');
        else send(ctx, doc.proto ??= encoded(builders!.encodeSwaggerDocument(doc.doc as Record<string, unknown>)), protobufV2ContentType);
        return true;
      }
      if (p === '/openapi/v3' || p === '/openapi/v3/') {
        // the index has one form, whatever the client accepts (as the reference answers it)
        send(ctx, indexWithRemote(), 'application/json');
        return true;
      }
      if (p.startsWith('/openapi/v3/')) {
        const key = p.slice('/openapi/v3/'.length).replace(/\/$/, '');
        const local = openapi3();
        const v3 = local.groups.has(key) ? local : convertedDocuments();
        const doc = v3.groups.get(key);
        if (!doc) throw pathNotFound(p);
        const form = documentForm(accept, [protobufV3Asked, protobufV3ContentType]);
        if (!form) throw notAcceptable(['application/json', protobufV3ContentType]);
        const hash = ctx.query.get('hash');
        if (hash !== null && hash !== doc.hash) {
          // an old address: point at the current document (clients follow it and refresh their index)
          ctx.res.setHeader('Location', `/openapi/v3/${key}?hash=${doc.hash}`);
          ctx.res.setHeader('Cache-Control', 'no-cache, private');
          ctx.res.writeHead(301);
          ctx.res.end();
          return true;
        }
        // a document addressed by its hash never changes
        if (hash !== null) ctx.res.setHeader('Expires', new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString());
        const cacheControl = hash !== null ? 'public, immutable' : 'no-cache, private';
        if (form === 'json') send(ctx, doc, 'application/json', cacheControl);
        else send(ctx, protobufV3(v3.protos, key, doc), protobufV3ContentType, cacheControl);
        return true;
      }
      return false;
    },
  };
}
