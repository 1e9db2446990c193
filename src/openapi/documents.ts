// The OpenAPI documents of the installed API: one Swagger 2.0 document for everything (/openapi/v2) and
// one OpenAPI 3.0 document per group version (/openapi/v3/<path>), both written from the same model.
import type { Naming } from '../api/naming.js';
import type { ApiResources, ResourceInfo } from '../registry/resources.js';
import type { Schema } from '../api/schema.js';
import { scale } from '../api/schemas/autoscaling.js';
import { eviction } from '../api/schemas/policy-v1.js';
import { tokenRequest } from '../api/schemas/core-v1.js';
import { versionInfo } from '../endpoints/version.js';
import {
  collectDefinitions, customDefinitionName, listSchema, openapi3, schemaWriter, swagger2,
  type Definitions, type Gvk, type Json, type Root,
} from '../api/schemas/definitions.js';
import { resourcePaths, type EntrySchemas, type Operation, type Param, type PathItem } from './operations.js';
import { deleteOptions, everyGroupVersion, patchBody, status, watchEvent } from './meta-schemas.js';
import { compareStrings } from '../util/order.js';
import { publishedCustomSchema } from './custom-schemas.js';

/** kinds served only at subresources, which no resource entry carries */
export const subresourceKinds: Record<string, Schema> = { Scale: scale, Eviction: eviction, TokenRequest: tokenRequest };

export interface GroupVersionModel {
  /** 'api/v1', 'apis/apps/v1' */
  key: string;
  group: string;
  version: string;
  paths: PathItem[];
}

export interface Model {
  definitions: Definitions;
  /** the custom kinds' definitions as the Swagger 2.0 document writes them */
  v2Bodies: ReadonlyMap<string, Schema>;
  groupVersions: GroupVersionModel[];
}

const permissiveObject: Schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

export function buildModel(resources: ApiResources, names: Naming): Model {
  const entries = resources.all();
  const gvkOf = (e: ResourceInfo): Gvk => ({ group: e.group, kind: e.kind, version: e.version });

  // kinds without a reference name (custom resources) are named as the reference names them
  const kindSchemas = new Map<ResourceInfo, Schema>();
  const v2Bodies = new Map<string, Schema>();
  for (const e of entries) {
    if (e.schema?.['x-ref']) { kindSchemas.set(e, e.schema); continue; }
    const name = customDefinitionName(e.group, e.version, e.kind);
    kindSchemas.set(e, { ...publishedCustomSchema(e.schema ?? permissiveObject, false), 'x-ref': name });
    v2Bodies.set(name, publishedCustomSchema(e.schema ?? permissiveObject, true));
  }

  // the meta kinds defined here own their names over copies elsewhere in the catalog
  const roots: Root[] = [];
  const servedGroupVersions = resources.groups().flatMap(g => g.versions.map(version => ({ group: g.name, version })));
  roots.push({ schema: status, gvks: [{ group: '', kind: 'Status', version: 'v1' }], owner: true });
  for (const s of everyGroupVersion) {
    const kind = s['x-ref']!.slice(s['x-ref']!.lastIndexOf('.') + 1);
    roots.push({ schema: s, gvks: servedGroupVersions.map(gv => ({ ...gv, kind })), owner: true });
  }
  roots.push({ schema: patchBody, owner: true });

  const schemasOf = (e: ResourceInfo): EntrySchemas => {
    const kind = kindSchemas.get(e)!;
    return {
      kind, list: listSchema(kind, e.kind, e.listKind), status, deleteOptions, patch: patchBody, watchEvent,
      subresourceKind(name) {
        const sub = e.subresources[name];
        const group = sub.group === undefined ? e.group : sub.domainGroup ? names.group(sub.group) : sub.group;
        const gvk = { group, kind: sub.kind ?? e.kind, version: sub.version ?? e.version };
        // log answers text; the *Options kinds (exec, attach, port-forward, proxy) upgrade the connection
        if (name === 'log' || sub.kind?.endsWith('Options')) return { gvk };
        if (!sub.kind) return { schema: kind, gvk };
        const entry = entries.find(x => x.group === gvk.group && x.version === gvk.version && x.kind === gvk.kind);
        return { schema: entry ? kindSchemas.get(entry) : subresourceKinds[sub.kind], gvk };
      },
    };
  };

  const groupVersions: GroupVersionModel[] = [];
  for (const g of resources.groups()) for (const version of g.versions) {
    const key = g.name ? `apis/${g.name}/${version}` : `api/${version}`;
    const paths: PathItem[] = [];
    for (const e of resources.byGroupVersion(g.name, version).sort((a, b) => compareStrings(a.resource, b.resource))) {
      const s = schemasOf(e);
      roots.push({ schema: s.kind, gvks: [gvkOf(e)] }, { schema: s.list, gvks: [{ ...gvkOf(e), kind: e.listKind }] });
      for (const name of Object.keys(e.subresources)) {
        const { schema, gvk } = s.subresourceKind(name);
        if (schema) roots.push({ schema, gvks: [gvk] });
      }
      paths.push(...resourcePaths(e, s, `/${key}`));
    }
    groupVersions.push({ key, group: g.name, version, paths });
  }
  return { definitions: collectDefinitions(roots), groupVersions, v2Bodies };
}

const patchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

function mediaTypes(o: Operation, names: Naming) {
  if (o.custom) {
    const objects = ['application/json', 'application/yaml'];
    return { consumes: o.body?.patch ? patchTypes.filter(t => !t.includes('strategic')) : objects, produces: objects };
  }
  const objects = ['application/json', 'application/yaml', names.protobufMediaType];
  const produces = o.stream ? [...objects, 'application/json;stream=watch', `${names.protobufMediaType};stream=watch`]
    : o.responses.some(([, s]) => s === 'text') ? ['text/plain', ...objects] : objects;
  const consumes = !o.body?.patch ? ['*/*'] : o.body.strategic === false ? patchTypes.filter(t => !t.includes('strategic')) : patchTypes;
  return { consumes, produces };
}

const codeText: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted', '401': 'Unauthorized' };

/** the pieces both dialects share, given how each writes a parameter, an operation and a response */
function writePaths(paths: PathItem[], writeParam: (p: Param) => Json, writeOp: (o: Operation) => Json): Json {
  const out: Json = {};
  for (const item of paths) {
    const written: Json = {};
    for (const o of item.operations) written[o.method] = { ...writeOp(o), 'x-kubernetes-action': o.action, 'x-kubernetes-group-version-kind': o.gvk };
    written.parameters = item.params.map(writeParam);
    out[item.path] = written;
  }
  return out;
}

/** how clients authenticate, as the reference declares it: a bearer token in the Authorization header */
const bearerToken = { description: 'Bearer token authentication', type: 'apiKey', name: 'authorization', in: 'header' };
const security = [{ BearerToken: [] }];

const info = (names: Naming) => ({ title: names.vendor.charAt(0).toUpperCase() + names.vendor.slice(1), version: versionInfo().gitVersion });

export function swaggerDocument(model: Model, names: Naming): Json {
  const w = schemaWriter(model.definitions, swagger2, names, undefined, model.v2Bodies);
  const param = (p: Param): Json => ({ ...p });
  const op = (o: Operation): Json => {
    const { consumes, produces } = mediaTypes(o, names);
    const body = o.body ? [{ name: 'body', in: 'body', required: o.body.required, schema: w.use(o.body.schema) }] : [];
    return {
      description: o.description, consumes, produces, schemes: ['https'], tags: [o.tag], operationId: o.id,
      parameters: [...body, ...o.params.map(param)],
      responses: Object.fromEntries([...o.responses, ['401', undefined] as const].map(([code, s]) =>
        [code, { description: codeText[code], ...(s ? { schema: s === 'text' ? { type: 'string' } : w.use(s) } : {}) }])),
    };
  };
  const paths: Json = {};
  for (const gv of model.groupVersions) Object.assign(paths, writePaths(gv.paths, param, op));
  return { swagger: '2.0', info: info(names), paths, definitions: w.definitions(), securityDefinitions: { BearerToken: bearerToken }, security };
}

/** the definitions that list every served group version (DeleteOptions, WatchEvent) list only the
 *  document's own in a group version document, so each document changes only with its group version */
const everyGroupVersionNames = new Set(everyGroupVersion.map(s => s['x-ref']));

export function openapi3Document(model: Model, gv: GroupVersionModel, names: Naming): Json {
  const gvks = (name: string) => {
    const all = model.definitions.gvks.get(name);
    return everyGroupVersionNames.has(name) ? all?.filter(g => g.group === gv.group && g.version === gv.version) : all;
  };
  const w = schemaWriter(model.definitions, openapi3, names, gvks);
  const param = ({ type, uniqueItems, ...rest }: Param): Json => ({ ...rest, schema: { type, uniqueItems } });
  const op = (o: Operation): Json => {
    const { consumes, produces } = mediaTypes(o, names);
    const content = (types: string[], s: Json) => Object.fromEntries(types.map(t => [t, { schema: s }]));
    return {
      tags: [o.tag], description: o.description, operationId: o.id,
      parameters: o.params.map(param),
      ...(o.body ? { requestBody: { content: content(consumes, w.use(o.body.schema)), required: o.body.required } } : {}),
      responses: Object.fromEntries([...o.responses, ['401', undefined] as const].map(([code, s]) =>
        [code, { description: codeText[code], ...(s ? { content: content(produces, s === 'text' ? { type: 'string' } : w.use(s)) } : {}) }])),
    };
  };
  return {
    openapi: '3.0.0', info: info(names), paths: writePaths(gv.paths, param, op),
    components: { schemas: w.definitions(), securitySchemes: { BearerToken: bearerToken } }, security,
  };
}

