// Routes a resource request to its verb handler: the resource, its scope, and the verbs it serves.
import type { RequestContext } from '../api/request.js';
import type { Naming } from '../api/naming.js';
import type { ApiResources, ResourceInfo } from '../registry/resources.js';
import type { Backends } from '../registry/backends.js';
import type { RestServices, Verb } from '../registry/types.js';
import { methodNotSupported, pathNotFound, ApiError, statusBody } from '../api/status.js';
import type { Scope } from './scope.js';
import { get, list } from './read.js';
import { watch } from './watch.js';
import { create, update, patch, remove, removeCollection } from './write.js';
import { serveRest } from './rest.js';
import type { AdmissionPlugin } from '../api/admission.js';

export interface ResourceEndpointsConfig {
  resources: ApiResources;
  names: Naming;
  backends: Backends;
  plugins: AdmissionPlugin[];
  bookmarkIntervalMs: number;
  minRequestTimeoutSeconds: number;
  /** how many deletes a DELETE of a collection runs at once */
  deleteCollectionWorkers?: number;
  /** what resources' own handlers need (the authorizer, the authenticator, the token signer) */
  services: RestServices;
  /** a request reached a deprecated version (for the apiserver_requested_deprecated_apis gauge) */
  deprecatedApiRequested?(info: ResourceInfo, subresource: string): void;
  watchEventSent?(info: ResourceInfo, bytes: number): void;
}

/** the reference's warning for a deprecated version, naming the version to use instead */
export function deprecationWarning(info: ResourceInfo, resources: ApiResources): string {
  const v = info.versionDef;
  if (v.deprecationWarning) return v.deprecationWarning;
  const preferred = resources.preferred(info.group, info.resource);
  return `${info.apiVersion} ${info.kind} is deprecated${v.deprecatedIn ? ` in v${v.deprecatedIn}+` : ''}`
    + `${v.removedIn ? `, unavailable in v${v.removedIn}+` : ''}`
    + `${preferred && preferred.version !== info.version ? `; use ${preferred.apiVersion} ${preferred.kind}` : ''}`;
}

/** the entry now served is the one a watch began on, or one put in its place with the same serving key */
function servedAlike(was: ResourceInfo, now: ResourceInfo | undefined): boolean {
  return now === was || (!!now && was.def.servingKey !== undefined && now.def.servingKey === was.def.servingKey);
}

export function resourceEndpoints(c: ResourceEndpointsConfig) {
  const { backendFor } = c.backends;
  const scopeFor = (info: ResourceInfo, subresource: string): Scope => ({
    info, subresource, ...backendFor(info), names: c.names, plugins: c.plugins, authorizer: c.services.authorizer,
    bookmarkIntervalMs: c.bookmarkIntervalMs, minRequestTimeoutSeconds: c.minRequestTimeoutSeconds, deleteCollectionWorkers: c.deleteCollectionWorkers, watchEventSent: c.watchEventSent,
    whenReplaced: fn => c.resources.onChange(() => { if (!servedAlike(info, c.resources.lookup(info.group, info.version, info.resource))) fn(); }),
  });
  const restDeps = { resources: c.resources, listers: c.backends.listers, services: c.services, scopeFor };

  return {
    async handle(ctx: RequestContext): Promise<void> {
      const ri = ctx.info;
      const info = c.resources.lookup(ri.apiGroup, ri.apiVersion, ri.parts[0] ?? '');
      if (!info) throw pathNotFound(ctx.path);
      if (info.versionDef.deprecated) {
        ctx.warnings.push(deprecationWarning(info, c.resources));
        ctx.audit?.annotate(`${c.names.domain}/deprecated`, 'true');
        if (info.versionDef.removedIn) ctx.audit?.annotate(`${c.names.domain}/removed-release`, info.versionDef.removedIn);
        c.deprecatedApiRequested?.(info, ri.parts[2] ?? '');
      }
      const parts = ri.parts;
      // only proxy subresources have a path of their own after them
      if (parts.length > 3 && !info.subresources[parts[2]!]?.rest?.connect) throw pathNotFound(ctx.path);
      const namespace = info.namespaced ? ri.namespace : '';
      if (!info.namespaced && ri.inNamespace) throw pathNotFound(ctx.path);
      const name = parts[1] ?? '';
      const sub = parts[2] ?? '';
      const verb = ri.verb as Verb;
      const allowed = (verbs: Verb[], v: Verb) => {
        if (!verbs.includes(v)) throw methodNotSupported(`${info.resource}${sub ? `/${sub}` : ''}`, ctx.method);
      };

      if (sub) {
        const s = Object.hasOwn(info.subresources, sub) ? info.subresources[sub] : undefined;
        if (!s) throw pathNotFound(ctx.path);
        const scope = scopeFor(info, sub);
        allowed(s.verbs, verb);
        if (s.rest) return serveRest(ctx, scope, s.rest, namespace, name, restDeps);
        if (!s.changes)
          throw new ApiError(statusBody(405, 'MethodNotAllowed', `the ${info.resource}/${sub} subresource is not supported by this server yet`));
        if (verb === 'get') return get(ctx, scope, namespace, name);
        if (verb === 'update') return update(ctx, scope, namespace, name);
        if (verb === 'patch') return patch(ctx, scope, namespace, name);
        throw methodNotSupported(`${info.resource}/${sub}`, ctx.method);
      }

      const scope = scopeFor(info, '');
      if (info.namespaced && !namespace && name) throw pathNotFound(ctx.path);
      // a resource that is never stored answers creates on its collection, in its namespace, and reads when it has them
      if (info.def.rest) {
        const read = (verb === 'get' || verb === 'list') && info.def.rest.get;
        if (read) allowed(info.verbs, verb);
        else if (verb !== 'create' || name || (info.namespaced && !namespace)) throw methodNotSupported(info.resource, ctx.method);
        return serveRest(ctx, scope, info.def.rest, namespace, name, restDeps);
      }
      if (!name) {
        switch (verb) {
          case 'list': allowed(info.verbs, 'list'); return list(ctx, scope, namespace);
          case 'watch': allowed(info.verbs, 'watch'); return watch(ctx, scope, namespace);
          case 'create':
            if (info.def.createRefusal)
              throw new ApiError(statusBody(405, 'MethodNotAllowed', info.def.createRefusal, { group: info.group, kind: info.resource }));
            allowed(info.verbs, 'create');
            if (info.namespaced && !namespace) throw methodNotSupported(info.resource, ctx.method);
            return create(ctx, scope, namespace);
          case 'deletecollection': allowed(info.verbs, 'deletecollection'); return removeCollection(ctx, scope, namespace);
          default: throw methodNotSupported(info.resource, ctx.method);
        }
      }
      // a list or watch narrowed by field selector keeps its collection path; an object path names one
      if (ctx.method === 'GET' || ctx.method === 'HEAD') {
        if (verb === 'watch') { allowed(info.verbs, 'watch'); return watch(ctx, scope, namespace, name); }
        allowed(info.verbs, 'get');
        return get(ctx, scope, namespace, name);
      }
      switch (ctx.method) {
        case 'PUT': allowed(info.verbs, 'update'); return update(ctx, scope, namespace, name);
        case 'PATCH': allowed(info.verbs, 'patch'); return patch(ctx, scope, namespace, name);
        case 'DELETE': allowed(info.verbs, 'delete'); return remove(ctx, scope, namespace, name);
        case 'POST': throw methodNotSupported(`${info.resource} "${name}"`, ctx.method);
        default: throw methodNotSupported(info.resource, ctx.method);
      }
    },
  };
}
