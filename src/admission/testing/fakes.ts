// Fakes for unit tests of single plugins: listers over an in-memory object list, and request attributes.
import type { ApiObject, ObjectMeta } from '../../api/meta.js';
import type { PodSpec } from '../../api/types/core-v1.js';
import { defaultApiDomain, naming } from '../../api/naming.js';
import { alwaysAllow } from '../../authz/types.js';
import type { AdmissionDeps } from '../types.js';
import type { Authorizer } from '../../api/auth.js';
import type { AdmissionAttributes, Listers } from '../../api/admission.js';

export interface Stored { group: string; resource: string; obj: ApiObject }

export function fakeDeps(stored: Stored[] = [], authorizer: Authorizer = alwaysAllow): AdmissionDeps & { statusWrites: ApiObject[] } {
  const statusWrites: ApiObject[] = [];
  const find = (g: string, r: string, ns: string) => stored.filter(s => s.group === g && s.resource === r && (!ns || (s.obj.metadata.namespace ?? '') === ns));
  const listers: Listers = {
    async get(g, r, ns, name) { return find(g, r, ns).find(s => s.obj.metadata.name === name)?.obj; },
    async list(g, r, ns) { return find(g, r, ns).map(s => s.obj); },
  };
  return {
    listers, names: naming(defaultApiDomain), authorizer, statusWrites,
    writers: {
      async create(_g, _r, _ns, obj) { return obj; },
      async updateStatus(g, r, ns, name, change) {
        const s = find(g, r, ns).find(x => x.obj.metadata.name === name);
        if (!s) throw new Error('not found');
        const next = change(structuredClone(s.obj));
        if (next) { s.obj = next; statusWrites.push(next); }
      },
    },
  };
}

export const attrs = (a: Partial<AdmissionAttributes>): AdmissionAttributes => ({
  operation: 'CREATE', group: '', version: 'v1', resource: 'pods', subresource: '', kind: { group: '', version: 'v1', kind: 'Pod' }, namespace: 'ns', name: a.object?.metadata?.name ?? 'p',
  dryRun: false, user: { username: 'alice', groups: [] }, ...a,
});

export const pod = (spec: Partial<PodSpec>, meta: ObjectMeta = {}): ApiObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...meta }, spec });
