// The operations of each served resource, as the reference lays them out: collection and item paths,
// the deprecated watch paths, subresources. Kept in one neutral form; the documents write it out.
import type { Schema } from '../api/schema.js';
import type { ResourceInfo } from '../registry/resources.js';
import type { Verb } from '../registry/types.js';
import type { Gvk } from '../api/schemas/definitions.js';

export interface Param {
  name: string;
  in: 'query' | 'path';
  type: 'string' | 'integer' | 'boolean';
  description: string;
  required?: boolean;
  uniqueItems?: boolean;
}

export type Method = 'get' | 'put' | 'post' | 'patch' | 'delete' | 'head';

export interface Operation {
  method: Method;
  /** x-kubernetes-action */
  action: 'get' | 'list' | 'watch' | 'watchlist' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection' | 'connect';
  id: string;
  tag: string;
  description: string;
  gvk: Gvk;
  params: Param[];
  /** strategic: false when strategic merge patch is not accepted (custom resources) */
  body?: { schema: Schema; required: boolean; patch?: boolean; strategic?: boolean };
  /** status code → response schema; 'text' for plain text answers */
  responses: Array<[code: string, schema: Schema | 'text' | undefined]>;
  /** answers a stream of watch events */
  stream?: boolean;
  /** an operation on custom resources, which are read and written as JSON or YAML only */
  custom?: boolean;
}

export interface PathItem { path: string; params: Param[]; operations: Operation[] }

const q = (name: string, type: Param['type'], description: string, extra: Partial<Param> = {}): Param =>
  ({ name, in: 'query', type, description, ...extra });

export const params = {
  name: { name: 'name', in: 'path', type: 'string', description: 'name of the object', required: true, uniqueItems: true } as Param,
  namespace: { name: 'namespace', in: 'path', type: 'string', description: 'object name and auth scope, such as for teams and projects', required: true, uniqueItems: true } as Param,
  pretty: q('pretty', 'string', "If 'true', the output is indented.", { uniqueItems: true }),
  allowWatchBookmarks: q('allowWatchBookmarks', 'boolean', 'Asks for BOOKMARK watch events; the server may send them or not.', { uniqueItems: true }),
  continue: q('continue', 'string', 'The continue token of the previous page of a paged list.', { uniqueItems: true }),
  fieldSelector: q('fieldSelector', 'string', 'Restricts the objects by their fields. Everything by default.', { uniqueItems: true }),
  labelSelector: q('labelSelector', 'string', 'Restricts the objects by their labels. Everything by default.', { uniqueItems: true }),
  limit: q('limit', 'integer', 'The most items to answer; the rest is reachable with the continue token.', { uniqueItems: true }),
  resourceVersion: q('resourceVersion', 'string', 'The resource version the answer must be at least as new as (see resourceVersionMatch).', { uniqueItems: true }),
  resourceVersionMatch: q('resourceVersionMatch', 'string', 'How resourceVersion applies to list calls: Exact or NotOlderThan.', { uniqueItems: true }),
  sendInitialEvents: q('sendInitialEvents', 'boolean', 'With watch=true, starts the stream with the current objects as ADDED events, then a bookmark.', { uniqueItems: true }),
  timeoutSeconds: q('timeoutSeconds', 'integer', 'Time limit of the list or watch call, whatever the activity.', { uniqueItems: true }),
  watch: q('watch', 'boolean', 'Watch for changes to the described objects and answer them as a stream of add, update and remove events.', { uniqueItems: true }),
  dryRun: q('dryRun', 'string', 'When present, the change is checked but not stored. The only value is All.', { uniqueItems: true }),
  fieldManager: q('fieldManager', 'string', 'The name of the actor making the change, recorded in managedFields.', { uniqueItems: true }),
  fieldValidation: q('fieldValidation', 'string', 'What the server does with unknown or duplicate fields in the object: Ignore, Warn or Strict (the request fails).', { uniqueItems: true }),
  force: q('force', 'boolean', 'Apply requests take over the fields other managers own. Only for apply patches.', { uniqueItems: true }),
  gracePeriodSeconds: q('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; zero deletes at once.', { uniqueItems: true }),
  orphanDependents: q('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy. Whether dependents are orphaned.', { uniqueItems: true }),
  propagationPolicy: q('propagationPolicy', 'string', 'Whether and how dependents are deleted: Orphan, Background or Foreground.', { uniqueItems: true }),
};

const p = params;

/** the query parameters of the subresources that answer text or upgrade the connection (their *Options kinds) */
const connectParams: Record<string, Param[]> = (() => {
  const container = q('container', 'string', 'The container to use; may be left out when the pod has one container.', { uniqueItems: true });
  const streams = ['stderr', 'stdin', 'stdout'].map(s => q(s, 'boolean', `Whether the ${s} stream of the container is connected.`, { uniqueItems: true }));
  const tty = q('tty', 'boolean', 'Whether the container is given a terminal (stdin is then its input).', { uniqueItems: true });
  const path = q('path', 'string', 'The path of the request passed on to the proxied address.', { uniqueItems: true });
  return {
    log: [container,
      q('follow', 'boolean', 'Keep the stream open and follow the log as it grows.', { uniqueItems: true }),
      q('insecureSkipTLSVerifyBackend', 'boolean', "Reads the log without verifying the node agent's serving certificate.", { uniqueItems: true }),
      q('limitBytes', 'integer', 'The most bytes of the log to answer; the log is cut there.', { uniqueItems: true }),
      q('previous', 'boolean', "The log of the container's previous run, the one before its last restart.", { uniqueItems: true }),
      q('sinceSeconds', 'integer', 'Only the lines written in the last this many seconds.', { uniqueItems: true }),
      q('tailLines', 'integer', 'Only this many lines, counted from the end of the log.', { uniqueItems: true }),
      q('timestamps', 'boolean', 'Each line begins with the time it was written (RFC 3339, nanoseconds).', { uniqueItems: true })],
    exec: [q('command', 'string', 'The command to run and its arguments, one value each; no shell is involved.', { uniqueItems: true }),
      container, streams[0], streams[1], streams[2], tty],
    attach: [container, streams[0], streams[1], streams[2], tty],
    portforward: [q('ports', 'integer', 'The ports of the pod to forward to, one value each.', { uniqueItems: true })],
    proxy: [path],
  };
})();
const listParams = [p.allowWatchBookmarks, p.continue, p.fieldSelector, p.labelSelector, p.limit, p.resourceVersion,
  p.resourceVersionMatch, p.sendInitialEvents, p.timeoutSeconds, p.watch];
const writeParams = [p.dryRun, p.fieldManager, p.fieldValidation];
const deleteParams = [p.dryRun, p.gracePeriodSeconds, p.orphanDependents, p.propagationPolicy];
const deleteCollectionParams = [p.continue, p.dryRun, p.fieldSelector, p.gracePeriodSeconds, p.labelSelector, p.limit,
  p.orphanDependents, p.propagationPolicy, p.resourceVersion, p.resourceVersionMatch, p.sendInitialEvents, p.timeoutSeconds];

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
/** 'rbac.authorization' → 'RbacAuthorization'; the core group is 'Core' */
const camelGroup = (group: string) => (group ? group.split(/[.-]/).filter(Boolean).map(capital).join('') : 'Core');

/** the schemas an entry's operations use */
export interface EntrySchemas {
  kind: Schema;
  list: Schema;
  status: Schema;
  deleteOptions: Schema;
  patch: Schema;
  watchEvent: Schema;
  /** the subresource's kind, when it is not the parent's; undefined answers plain text */
  subresourceKind(name: string): { schema?: Schema; gvk: Gvk };
}

/** The paths of one served (group, version, resource). */
export function resourcePaths(e: ResourceInfo, s: EntrySchemas, prefix: string): PathItem[] {
  const gvk: Gvk = { group: e.group, kind: e.kind, version: e.version };
  const scope = e.namespaced ? 'Namespaced' : '';
  const gv = `${camelGroup(e.def.group)}${capital(e.version)}`;
  const tag = `${camelGroup(e.def.group).replace(/^./, c => c.toLowerCase())}_${e.version}`;
  const can = (v: Verb) => e.verbs.includes(v);
  const custom = !!e.def.custom;
  const op = (o: Omit<Operation, 'tag' | 'gvk'> & { gvk?: Gvk }): Operation => ({ tag, gvk, ...o, ...(custom ? { custom } : {}) });
  const kindOk: Operation['responses'] = [['200', s.kind]];
  const base = e.namespaced ? `${prefix}/namespaces/{namespace}/${e.resource}` : `${prefix}/${e.resource}`;
  const scopeParams = e.namespaced ? [p.namespace] : [];
  const out: PathItem[] = [];

  const collection: Operation[] = [];
  if (can('list')) collection.push(op({ method: 'get', action: 'list', id: `list${gv}${scope}${e.kind}`, description: `list or watch objects of kind ${e.kind}`, params: listParams, responses: [['200', s.list]] }));
  if (can('create')) collection.push(op({ method: 'post', action: 'post', id: `create${gv}${scope}${e.kind}`, description: `create a ${e.kind}`, params: writeParams, body: { schema: s.kind, required: true }, responses: [['200', s.kind], ['201', s.kind], ['202', s.kind]] }));
  if (can('deletecollection')) collection.push(op({ method: 'delete', action: 'deletecollection', id: `deleteCollection${gv}${scope}${e.kind}`, description: `delete a collection of ${e.kind}`, params: deleteCollectionParams, body: { schema: s.deleteOptions, required: false }, responses: [['200', s.status]] }));
  if (collection.length) out.push({ path: base, params: [...scopeParams, p.pretty], operations: collection });

  const item: Operation[] = [];
  if (can('get')) item.push(op({ method: 'get', action: 'get', id: `read${gv}${scope}${e.kind}`, description: `read the specified ${e.kind}`, params: [], responses: kindOk }));
  if (can('update')) item.push(op({ method: 'put', action: 'put', id: `replace${gv}${scope}${e.kind}`, description: `replace the specified ${e.kind}`, params: writeParams, body: { schema: s.kind, required: true }, responses: [['200', s.kind], ['201', s.kind]] }));
  if (can('patch')) item.push(op({ method: 'patch', action: 'patch', id: `patch${gv}${scope}${e.kind}`, description: `partially update the specified ${e.kind}`, params: [...writeParams, p.force], body: { schema: s.patch, required: true, patch: true, strategic: !e.def.custom }, responses: [['200', s.kind], ['201', s.kind]] }));
  if (can('delete')) item.push(op({ method: 'delete', action: 'delete', id: `delete${gv}${scope}${e.kind}`, description: `delete a ${e.kind}`, params: deleteParams, body: { schema: s.deleteOptions, required: false }, responses: [['200', s.status], ['202', s.status]] }));
  if (item.length) out.push({ path: `${base}/{name}`, params: [p.name, ...scopeParams, p.pretty], operations: item });

  if (e.namespaced && can('list'))
    out.push({ path: `${prefix}/${e.resource}`, params: [p.pretty], operations: [op({ method: 'get', action: 'list', id: `list${gv}${e.kind}ForAllNamespaces`, description: `list or watch objects of kind ${e.kind} in every namespace`, params: listParams, responses: [['200', s.list]] })] });

  // the reference publishes no watch paths for custom resources (watching is the list operation's watch parameter)
  if (can('watch') && !custom) {
    const watchBase = e.namespaced ? `${prefix}/watch/namespaces/{namespace}/${e.resource}` : `${prefix}/watch/${e.resource}`;
    const deprecated = 'deprecated: use the watch parameter of a list operation';
    const watch = (action: 'watch' | 'watchlist', id: string, description: string): Operation =>
      op({ method: 'get', action, id, description: `${description}; ${deprecated}`, params: listParams, responses: [['200', s.watchEvent]], stream: true });
    out.push({ path: watchBase, params: [...scopeParams, p.pretty], operations: [watch('watchlist', `watch${gv}${scope}${e.kind}List`, `watch changes to a list of ${e.kind}`)] });
    out.push({ path: `${watchBase}/{name}`, params: [p.name, ...scopeParams, p.pretty], operations: [watch('watch', `watch${gv}${scope}${e.kind}`, `watch changes to one ${e.kind}`)] });
    if (e.namespaced)
      out.push({ path: `${prefix}/watch/${e.resource}`, params: [p.pretty], operations: [watch('watchlist', `watch${gv}${e.kind}ListForAllNamespaces`, `watch changes to a list of ${e.kind} in every namespace`)] });
  }

  for (const [name, sub] of Object.entries(e.subresources)) {
    const { schema, gvk: subGvk } = s.subresourceKind(name);
    const id = (verb: string) => `${verb}${gv}${scope}${e.kind}${capital(name)}`;
    const ops: Operation[] = [];
    if (!schema) {
      // log, exec, attach, port-forward and proxy answer text or upgrade the connection; a proxy answers every method,
      // also with a path after it. The operation names put the method after the group version: connectCoreV1GetNamespacedPodExec
      const item = `${base}/{name}/${name}`;
      const withPath = name === 'proxy' ? [item, `${item}/{path}`] : [item];
      for (const path of withPath) {
        const suffix = path === item ? '' : 'WithPath';
        const ops = connectMethods(sub.verbs, name).map(method => name === 'log'
          ? op({ method, action: 'get', id: id('read'), description: `read the log of a ${e.kind}`, gvk: subGvk, params: [], responses: [['200', 'text']] })
          : op({ method, action: 'connect', id: `connect${gv}${capital(method)}${scope}${e.kind}${capital(name)}${suffix}`, description: `connect ${capital(method).toUpperCase()} requests to ${name} of a ${e.kind}`, gvk: subGvk, params: [], responses: [['200', 'text']] }));
        const pathParam: Param[] = suffix ? [{ name: 'path', in: 'path', type: 'string', description: 'the path passed on to the proxied address', required: true, uniqueItems: true }] : [];
        if (ops.length) out.push({ path, params: [p.name, ...scopeParams, ...pathParam, ...(connectParams[name] ?? []), ...(name === 'log' ? [p.pretty] : [])], operations: ops });
      }
      continue;
    }
    const methods: Array<[Verb, Method, string]> = [['get', 'get', 'read'], ['create', 'post', 'create'], ['update', 'put', 'replace'], ['patch', 'patch', 'patch']];
    for (const [verb, method, word] of methods) {
      if (!sub.verbs.includes(verb)) continue;
      const body = method === 'patch' ? { schema: s.patch, required: true, patch: true, strategic: !e.def.custom } : { schema, required: true };
      const described = `the ${name} of the specified ${e.kind}`;
      if (method === 'get') ops.push(op({ method, action: 'get', id: id(word), description: `read ${described}`, gvk: subGvk, params: [], responses: [['200', schema]] }));
      else if (method === 'post') ops.push(op({ method, action: 'post', id: id(word), description: `create ${described}`, gvk: subGvk, params: writeParams, body, responses: [['200', schema], ['201', schema], ['202', schema]] }));
      else if (method === 'put') ops.push(op({ method, action: 'put', id: id(word), description: `replace ${described}`, gvk: subGvk, params: writeParams, body, responses: [['200', schema], ['201', schema]] }));
      else if (method === 'patch') ops.push(op({ method, action: 'patch', id: id(word), description: `partially update ${described}`, gvk: subGvk, params: [...writeParams, p.force], body, responses: [['200', schema], ['201', schema]] }));
    }
    if (ops.length) out.push({ path: `${base}/{name}/${name}`, params: [p.name, ...scopeParams, p.pretty], operations: ops });
  }
  return out;
}

/** the HTTP methods of a subresource that answers text or upgrades the connection, in the reference's order */
function connectMethods(verbs: readonly Verb[], name: string): Method[] {
  const byVerb: Array<[Verb, Method]> = [['delete', 'delete'], ['get', 'get'], ['patch', 'patch'], ['create', 'post'], ['update', 'put']];
  const methods = byVerb.filter(([v]) => verbs.includes(v)).map(([, m]) => m);
  // a proxy passes HEAD on as well (the reference also OPTIONS, which this server does not proxy)
  if (name === 'proxy') methods.splice(methods.indexOf('get') + 1, 0, 'head');
  return methods;
}
