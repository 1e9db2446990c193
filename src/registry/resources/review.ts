// The review kinds (access reviews, token reviews, who am I): objects that are created, answered and never stored.
// Each review's definition gives its answer; this does the rest: the body's checks, and the object sent back with
// its status.
import type { ApiObject } from '../../api/meta.js';
import { badRequest } from '../../api/status.js';
import type { RestHandler, RestRequest } from '../types.js';

export function objectBody(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be an object');
  return body as Record<string, unknown>;
}

/** a review resource: `answer` gives the status of the review it is sent (with its spec, {} when absent), or refuses it */
export function review<T extends { spec?: unknown; status?: unknown }>(answer: (req: RestRequest, review: T) => Promise<T['status']>,
  opts: { hasSpec?: boolean } = {}): RestHandler {
  return {
    async create(req, body) {
      const { info, namespace } = req;
      const obj = objectBody(body) as Partial<ApiObject>;
      if (obj.kind !== undefined && obj.kind !== info.kind) throw badRequest(`the kind in the body (${obj.kind}) does not match the kind on the URL (${info.kind})`);
      if (obj.apiVersion !== undefined && obj.apiVersion !== info.apiVersion)
        throw badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${info.apiVersion})`);
      // as every create: an object naming another namespace than its URL is refused
      const bodyNamespace = (obj.metadata as { namespace?: unknown } | undefined)?.namespace;
      if (namespace && bodyNamespace && bodyNamespace !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      const spec = obj.spec ?? {};
      const status = await answer(req, { ...obj, spec } as T);
      const metadata = { ...(obj.metadata ?? {}), creationTimestamp: null, ...(namespace ? { namespace } : {}) };
      // a kind without a spec (who am I) answers without one, as the reference's type has none
      return { kind: info.kind, apiVersion: info.apiVersion, metadata, ...(opts.hasSpec === false ? {} : { spec }), status };
    },
  };
}
