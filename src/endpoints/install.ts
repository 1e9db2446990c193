// Routes a resource request to its verb handler: the resource, its scope, and the verbs it serves.
import type { RequestContext } from '../api/request.js';
import type { Naming } from '../api/naming.js';
import type { ApiResources, ResourceInfo } from '../registry/resources.js';
import type { Backends } from '../registry/backends.js';
import type { Verb } from '../registry/types.js';
import { methodNotSupported, notFound, pathNotFound, ApiError, statusBody } from '../api/status.js';
import type { Scope } from './scope.js';
import { get, list } from './read.js';
import { watch } from './watch.js';
import { create, update, patch, remove, removeCollection } from './write.js';
import { createReview, reviewHandlers, type ReviewDeps } from './reviews.js';
import { tokenRequest } from './token-request.js';
import { bind, evict, getScale, writeScale } from './subresources.js';
import type { AdmissionPlugin } from '../api/admission.js';

export interface ResourceEndpointsConfig {
  resources: ApiResources;
  names: Naming;
  backends: Backends;
  plugins: AdmissionPlugin[];
  bookmarkIntervalMs: number;
  minRequestTimeoutSeconds: number;
  reviews: ReviewDeps;
  /** a request reached a deprecated version (for the apiserver_requested_deprecated_apis gauge) */
  deprecatedApiRequested?(info: ResourceInfo, subresource: string): void;
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

/** subresources served by the generic store: each changes only its own part of the object */
const genericSubresources = new Set(['status', 'finalize', 'ephemeralcontainers', 'approval']);

export function resourceEndpoints(c: ResourceEndpointsConfig) {
  const reviews = reviewHandlers(c.reviews);
  /** the review kinds of the authentication and authorization groups are answered, never stored */
  const reviewFor = (info: ResourceInfo) =>
    info.def.domainGroup && (info.def.group === 'authentication' || info.def.group === 'authorization') ? reviews[info.resource] : undefined;
  const { backendFor } = c.backends;

  /** the disruption budgets of a namespace, for evictions */
  const budgetsIn = async (namespace: string) => {
    const pdbs = c.resources.preferred('policy', 'poddisruptionbudgets');
    if (!pdbs) return [];
    const { items } = await backendFor(pdbs).reads.list({ namespace, selective: false });
    return items.map(i => i.obj);
  };

  const scopeFor = (info: ResourceInfo, subresource: string): Scope => ({
    info, subresource, ...backendFor(info), names: c.names, plugins: c.plugins, authorizer: c.reviews.authorizer,
    bookmarkIntervalMs: c.bookmarkIntervalMs, minRequestTimeoutSeconds: c.minRequestTimeoutSeconds,
  });

  return {
    async handle(ctx: RequestContext): Promise<void> {
      const ri = ctx.info;
      const info = c.resources.lookup(ri.apiGroup, ri.apiVersion, ri.parts[0] ?? '');
      if (!info) throw pathNotFound(ctx.path);
      if (info.versionDef.deprecated) {
        ctx.warnings.push(deprecationWarning(info, c.resources));
        c.deprecatedApiRequested?.(info, ri.parts[2] ?? '');
      }
      const parts = ri.parts;
      if (parts.length > 3) throw pathNotFound(ctx.path);
      const namespace = info.namespaced ? ri.namespace : '';
      if (!info.namespaced && ri.namespace && !(info.group === '' && info.resource === 'namespaces')) throw pathNotFound(ctx.path);
      const name = parts[1] ?? '';
      const sub = parts[2] ?? '';
      const verb = ri.verb as Verb;
      const allowed = (verbs: Verb[], v: Verb) => {
        if (!verbs.includes(v)) throw methodNotSupported(`${info.resource}${sub ? `/${sub}` : ''}`, ctx.method);
      };

      if (sub) {
        const s = info.subresources[sub];
        if (!s) throw pathNotFound(ctx.path);
        const scope = scopeFor(info, sub);
        allowed(s.verbs, verb);
        if (sub === 'scale') return verb === 'get' ? getScale(ctx, scope, namespace, name) : writeScale(ctx, scope, namespace, name);
        if (sub === 'binding' && info.group === '' && info.resource === 'pods') return bind(ctx, scope, namespace, name);
        if (sub === 'eviction' && info.group === '' && info.resource === 'pods') return evict(ctx, scope, namespace, name, () => budgetsIn(namespace));
        if (sub === 'token' && info.group === '' && info.resource === 'serviceaccounts' && c.reviews.tokenRequest) {
          if (verb !== 'create') throw methodNotSupported(`${info.resource}/${sub}`, ctx.method);
          return tokenRequest(ctx, scopeFor(info, sub), namespace, name, c.reviews.tokenRequest);
        }
        if (!genericSubresources.has(sub))
          throw new ApiError(statusBody(405, 'MethodNotAllowed', `the ${info.resource}/${sub} subresource is not supported by this server yet`));
        if (verb === 'get') return get(ctx, scope, namespace, name);
        if (verb === 'update') return update(ctx, scope, namespace, name);
        if (verb === 'patch') return patch(ctx, scope, namespace, name);
        throw methodNotSupported(`${info.resource}/${sub}`, ctx.method);
      }

      const scope = scopeFor(info, '');
      if (info.namespaced && !namespace && name) throw pathNotFound(ctx.path);
      const review = reviewFor(info);
      if (review) {
        if (verb !== 'create' || name) throw methodNotSupported(info.resource, ctx.method);
        if (info.namespaced && !namespace) throw methodNotSupported(info.resource, ctx.method);
        return createReview(ctx, scope, namespace, review);
      }
      // the bindings resource binds the pod its body names
      if (info.group === '' && info.resource === 'bindings' && verb === 'create') {
        const pods = c.resources.lookup('', 'v1', 'pods');
        if (pods) return bind(ctx, scopeFor(pods, 'binding'), namespace, '');
      }
      if (!name) {
        switch (verb) {
          case 'list': allowed(info.verbs, 'list'); return list(ctx, scope, namespace);
          case 'watch': allowed(info.verbs, 'watch'); return watch(ctx, scope, namespace);
          case 'create':
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
