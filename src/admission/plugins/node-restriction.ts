// NodeRestriction: a node agent (user system:node:<name> in group system:nodes) may change only its own Node
// and the pods bound to it. It may create only mirror pods of itself that refer to no other object, update only
// the status of its pods, delete and evict only its pods, write only its own lease and CSINode, change only the
// capacity, conditions and resize state of claims' status, ask only for service-account tokens bound to a pod of
// its own, never change its taints or delete its Node, and set
// only the labels agents own: hostname, arch, os, instance type, region and zone (plain, beta and
// failure-domain forms) and those under kubelet.<domain>/ and node.<domain>/. Other labels under the vendor's
// domains, and every label under node-restriction.<domain>/, are the administrator's.
import { isDeepStrictEqual } from 'node:util';
import { definePlugin } from '../types.js';
import { refuse } from '../util.js';
import type { AdmissionAttributes } from '../../api/admission.js';
import type { ApiObject } from '../../api/meta.js';
import type { Naming } from '../../api/naming.js';
import type { Node, PersistentVolumeClaim, Pod } from '../../api/types/core-v1.js';
import type { TokenRequest } from '../../api/types/authentication-v1.js';
import { notFound } from '../../api/status.js';
import { nodeNameOf, podReferences } from '../../api/nodes.js';

type Labels = Record<string, string>;

/** label keys added, removed or changed between two label sets */
const changedLabels = (now: Labels = {}, before: Labels = {}) =>
  [...new Set([...Object.keys(now), ...Object.keys(before)])].filter(k => now[k] !== before[k]);

const labelNamespace = (key: string) => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const under = (namespace: string, domain: string) => namespace === domain || namespace.endsWith(`.${domain}`);

/** the labels an agent may not set, of those it changes */
export function forbiddenNodeLabels(keys: string[], names: Naming): string[] {
  const d = names.labelDomain;
  const vendorDomains = [...new Set([d, names.domain])];
  const agentLabels = new Set([
    'hostname', 'os', 'arch', 'instance-type'].flatMap(l => [`${d}/${l}`, `beta.${d}/${l}`])
    .concat([`node.${d}/instance-type`, `topology.${d}/zone`, `topology.${d}/region`,
      `failure-domain.beta.${d}/zone`, `failure-domain.beta.${d}/region`]));
  const agentNamespaces = [`kubelet.${d}`, `node.${d}`];
  return keys.filter(k => {
    const ns = labelNamespace(k);
    if (under(ns, `node-restriction.${d}`)) return true;
    if (!vendorDomains.some(v => under(ns, v))) return false;
    return !agentLabels.has(k) && !agentNamespaces.some(a => under(ns, a));
  }).sort();
}

export default definePlugin({
  name: 'NodeRestriction',
  defaultOn: false,
  create: ({ listers, names }) => {
    const mirror = names.label('config.mirror');
    const storedPod = async (a: Readonly<AdmissionAttributes>) =>
      (a.oldObject ?? await listers.get('', 'pods', a.namespace, a.name)) as Pod | undefined;

    async function pod(node: string, a: Readonly<AdmissionAttributes>) {
      const deny = (why: string) => refuse(a, `node "${node}" ${why}`);
      switch (a.subresource) {
        case '':
          if (a.operation === 'DELETE') {
            const p = await storedPod(a);
            if (p && p.spec?.nodeName !== node) throw deny('can only delete pods with spec.nodeName set to itself');
            return;
          }
          if (a.operation !== 'CREATE') throw deny('can only create and delete mirror pods; it updates pods through their status');
          return mirrorPod(node, a.object as Pod, a, deny);
        case 'status': {
          const p = await storedPod(a);
          if (p?.spec?.nodeName !== node) throw deny('can only update pod status for pods with spec.nodeName set to itself');
          return;
        }
        case 'eviction': {
          const p = await storedPod(a);
          if (p && p.spec?.nodeName !== node) throw deny('can only evict pods with spec.nodeName set to itself');
          return;
        }
        default:
          throw refuse(a, `unexpected pod subresource "${a.subresource}", only 'status' and 'eviction' are allowed`);
      }
    }

    async function mirrorPod(node: string, p: Pod, a: Readonly<AdmissionAttributes>, deny: (why: string) => Error) {
      if (p.metadata?.annotations?.[mirror] === undefined) throw refuse(a, `pod does not have "${mirror}" annotation, node "${node}" can only create mirror pods`);
      if (p.spec?.nodeName !== node) throw deny('can only create pods with spec.nodeName set to itself');
      const owners = p.metadata?.ownerReferences ?? [];
      if (owners.length > 1) throw deny('can only create pods with a single owner reference set to itself');
      const owner = owners[0];
      if (owner) {
        if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) throw deny('can only create pods with an owner reference set to itself');
        if (owner.controller !== true) throw deny('can only create pods with a controller owner reference set to itself');
        if (owner.blockOwnerDeletion === true) throw deny('must not set blockOwnerDeletion on an owner reference');
        const self = await listers.get('', 'nodes', '', node);
        if (!self) throw deny('has no Node object to own its pods');
        if (owner.uid !== self.metadata.uid) throw refuse(a, `node ${node} UID mismatch: expected ${self.metadata.uid} got ${owner.uid}`);
      }
      const obj = p as ApiObject;
      if (p.spec?.serviceAccountName) throw deny('can not create pods that reference a service account');
      if (podReferences(obj, 'secrets').length) throw deny('can not create pods that reference secrets');
      if (podReferences(obj, 'configmaps').length) throw deny('can not create pods that reference configmaps');
      if ((p.spec?.volumes ?? []).some(v => v?.persistentVolumeClaim || v?.ephemeral)) throw deny('can not create pods that reference persistentvolumeclaims');
    }

    function nodeObject(node: string, a: Readonly<AdmissionAttributes>) {
      const deny = (why: string) => refuse(a, `node "${node}" ${why}`);
      if (a.name !== node) throw deny(`is not allowed to modify node "${a.name}"`);
      if (a.operation === 'DELETE') throw deny('is not allowed to delete its Node object');
      const n = a.object as Node | undefined, old = a.oldObject as Node | undefined;
      // the agent reads what its Node's configSource names: pointing it elsewhere would widen what it may read
      if (a.operation === 'CREATE' && n?.spec?.configSource) throw deny('is not allowed to create pods with a non-nil configSource');
      if (a.operation === 'UPDATE' && n?.spec?.configSource && !isDeepStrictEqual(n.spec.configSource, old?.spec?.configSource))
        throw deny('is not allowed to update configSource to a new non-nil configSource');
      if (a.operation === 'CREATE') {
        const forbidden = forbiddenNodeLabels(Object.keys(n?.metadata?.labels ?? {}), names);
        if (forbidden.length) throw deny(`is not allowed to set the following labels: ${forbidden.join(', ')}`);
      }
      if (a.operation === 'UPDATE' && n && old) {
        if (!isDeepStrictEqual(n.spec?.taints ?? [], old.spec?.taints ?? [])) throw deny('is not allowed to modify taints');
        const forbidden = forbiddenNodeLabels(changedLabels(n.metadata?.labels, old.metadata?.labels), names);
        if (forbidden.length) throw deny(`is not allowed to modify labels: ${forbidden.join(', ')}`);
      }
    }

    function claimStatus(node: string, a: Readonly<AdmissionAttributes>) {
      if (a.subresource !== 'status') throw refuse(a, 'may only update PVC status');
      if (a.operation !== 'UPDATE' || !a.object || !a.oldObject) return;
      // what an agent may change in a claim: its capacity, conditions and resize progress
      const rest = (o: ApiObject) => {
        const { metadata: { resourceVersion: _rv, managedFields: _mf, ...meta }, status, ...others } = o as PersistentVolumeClaim & ApiObject;
        const { capacity: _c, conditions: _cd, allocatedResources: _ar, resizeStatus: _rs, ...keep } = status ?? {};
        return { ...others, metadata: meta, status: keep };
      };
      if (!isDeepStrictEqual(rest(a.object), rest(a.oldObject)))
        throw refuse(a, `node "${node}" is not allowed to update fields other than status.capacity and status.conditions`);
    }

    /** a token an agent asks for must be bound to a pod of its own, named with its uid */
    async function serviceAccountToken(node: string, a: Readonly<AdmissionAttributes>) {
      if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
      const ref = (a.object as TokenRequest | undefined)?.spec?.boundObjectRef;
      if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw refuse(a, 'node requested token not bound to a pod');
      if (!ref.uid) throw refuse(a, 'node requested token with a pod binding without a uid');
      const pod = await listers.get('', 'pods', a.namespace, ref.name, true);
      if (!pod) throw notFound('', 'pods', ref.name);
      if (ref.uid !== pod.metadata.uid)
        throw refuse(a, `the UID in the bound object reference (${ref.uid}) does not match the UID in record (${pod.metadata.uid}). The object might have been deleted and then recreated`);
      if ((pod as Pod).spec?.nodeName !== node) throw refuse(a, 'node requested token bound to a pod scheduled on a different node');
    }

    function ownObject(node: string, a: Readonly<AdmissionAttributes>, what: string, namespace?: string) {
      if (namespace !== undefined && a.namespace !== namespace) throw refuse(a, `can only access leases in the ${namespace} namespace`);
      if (a.name !== node || (a.object && a.object.metadata.name !== node))
        throw refuse(a, `can only access ${what} with the same name as the requesting node`);
    }

    return {
      name: 'NodeRestriction',
      operations: ['CREATE', 'UPDATE', 'DELETE'],
      async validate(a) {
        const node = nodeNameOf(a.user);
        if (node === undefined) return;
        if (!node) throw refuse(a, `could not determine node from user "${a.user?.username}"`);
        if (a.group === '') {
          if (a.resource === 'pods') return pod(node, a);
          if (a.resource === 'nodes') return nodeObject(node, a);
          if (a.resource === 'persistentvolumeclaims') return claimStatus(node, a);
          if (a.resource === 'serviceaccounts') return serviceAccountToken(node, a);
        }
        if (a.group === names.group('coordination') && a.resource === 'leases') return ownObject(node, a, 'node lease', names.nodeLeaseNamespace);
        if (a.group === names.group('storage') && a.resource === 'csinodes') return ownObject(node, a, 'CSINode');
      },
    };
  },
});
