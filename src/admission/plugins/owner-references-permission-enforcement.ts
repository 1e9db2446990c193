// OwnerReferencesPermissionEnforcement: changing an object's owner references needs permission to delete the
// object (except at its creation), and setting blockOwnerDeletion on a reference needs permission to update
// the owner's finalizers, since a blocking reference holds the owner's foreground deletion back.
import { isDeepStrictEqual } from 'node:util';
import { definePlugin } from '../types.js';
import { refuse } from '../util.js';
import { parseApiVersion, type ApiObject, type OwnerReference } from '../../api/meta.js';
import type { AdmissionAttributes } from '../../api/admission.js';
import type { AuthzAttributes } from '../../api/auth.js';

const refsOf = (o: ApiObject | undefined): OwnerReference[] => (Array.isArray(o?.metadata?.ownerReferences) ? o!.metadata.ownerReferences! : []);

/** references that block their owner's deletion now and did not before (matched by owner uid) */
function newlyBlocking(a: Readonly<AdmissionAttributes>): OwnerReference[] {
  const before = new Set(refsOf(a.oldObject).filter(r => r.blockOwnerDeletion === true).map(r => r.uid));
  return refsOf(a.object).filter(r => r.blockOwnerDeletion === true && !before.has(r.uid));
}

export default definePlugin({
  name: 'OwnerReferencesPermissionEnforcement',
  defaultOn: false,
  create: ({ authorizer, catalog }) => ({
    name: 'OwnerReferencesPermissionEnforcement',
    operations: ['CREATE', 'UPDATE'],
    async validate(a) {
      // the agent's pod status writes carry the pod's references unchanged; they are never checked
      if (a.group === '' && a.resource === 'pods' && a.subresource === 'status') return;
      if (!a.object || !a.user || isDeepStrictEqual(refsOf(a.object), refsOf(a.oldObject))) return;
      const user = a.user;
      const ask = async (attrs: Omit<AuthzAttributes, 'user' | 'isResourceRequest' | 'path'>) => {
        const d = await authorizer.authorize({ user, isResourceRequest: true, path: '', ...attrs });
        return { allowed: d.decision === 'Allow', reason: d.reason ?? '' };
      };
      if (a.operation !== 'CREATE') {
        const d = await ask({ verb: 'delete', apiGroup: a.group, apiVersion: a.version, namespace: a.namespace, resource: a.resource, subresource: a.subresource, name: a.name });
        if (!d.allowed) throw refuse(a, `cannot set an ownerRef on a resource you can't delete${d.reason ? `: ${d.reason}` : ''}`);
      }
      const blocking = newlyBlocking(a);
      if (!blocking.length) return;
      // one question answers for every owner when the user may finalize anything
      if ((await ask({ verb: 'update', apiGroup: '*', apiVersion: '*', namespace: '', resource: '*', subresource: 'finalizers', name: '*' })).allowed) return;
      for (const ref of blocking) {
        const { group, version } = parseApiVersion(ref.apiVersion ?? '');
        const served = catalog?.byKind(group, version, ref.kind) ?? [];
        if (!served.length)
          throw refuse(a, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion} Kind ${ref.kind}: no matches for kind "${ref.kind}" in version "${ref.apiVersion}"`);
        for (const r of served) {
          const d = await ask({ verb: 'update', apiGroup: r.group, apiVersion: r.version, namespace: r.namespaced ? a.namespace : '', resource: r.resource, subresource: 'finalizers', name: ref.name });
          if (!d.allowed) throw refuse(a, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on${d.reason ? `: ${d.reason}` : ''}`);
        }
      }
    },
  }),
});
