// The Node authorizer: a node agent (user system:node:<name> in group system:nodes) may read only the
// secrets, config maps, claims and service-account tokens of pods scheduled to its node, its own lease
// and CSINode, plus what the system:node rules allow. Everyone else gets no opinion.
import type { ApiObject } from '../api/meta.js';
import { ruleAllows } from './rbac/rules.js';
import type { Authorizer, AuthzAttributes, PolicyRule, RulesAnswer } from '../api/auth.js';
import type { ResourceCache } from '../api/cache.js';

export const nodesGroup = 'system:nodes';
export const nodeUserPrefix = 'system:node:';

export interface NodeAuthorizerDeps {
  pods: ResourceCache;
  /** the rules every node holds (the system:node cluster role's rules) */
  nodeRules: PolicyRule[];
  coordinationGroup: string;
  storageGroup: string;
  nodeLeaseNamespace: string;
}

type Pod = ApiObject & { spec?: any };

/** names of objects of a kind a pod refers to */
function references(pod: Pod, kind: 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'serviceaccounts'): string[] {
  const s = pod.spec ?? {};
  const out: string[] = [];
  const containers = [...(s.initContainers ?? []), ...(s.containers ?? []), ...(s.ephemeralContainers ?? [])];
  if (kind === 'serviceaccounts') return [s.serviceAccountName || s.serviceAccount || 'default'];
  if (kind === 'persistentvolumeclaims') {
    for (const v of s.volumes ?? []) {
      if (v.persistentVolumeClaim?.claimName) out.push(v.persistentVolumeClaim.claimName);
      if (v.ephemeral) out.push(`${pod.metadata.name}-${v.name}`);
    }
    return out;
  }
  const secret = kind === 'secrets';
  if (secret) for (const p of s.imagePullSecrets ?? []) if (p?.name) out.push(p.name);
  for (const c of containers) {
    for (const e of c.envFrom ?? []) { const r = secret ? e.secretRef : e.configMapRef; if (r?.name) out.push(r.name); }
    for (const e of c.env ?? []) { const r = secret ? e.valueFrom?.secretKeyRef : e.valueFrom?.configMapKeyRef; if (r?.name) out.push(r.name); }
  }
  for (const v of s.volumes ?? []) {
    if (secret) {
      if (v.secret?.secretName) out.push(v.secret.secretName);
      for (const src of [v.azureFile, v.cephfs, v.cinder, v.flexVolume, v.iscsi, v.rbd, v.scaleIO, v.storageos, v.csi])
        { const n = src?.secretRef?.name ?? src?.nodePublishSecretRef?.name ?? src?.secretName; if (n) out.push(n); }
    } else if (v.configMap?.name) out.push(v.configMap.name);
    for (const p of v.projected?.sources ?? []) { const r = secret ? p.secret : p.configMap; if (r?.name) out.push(r.name); }
  }
  return out;
}

export function nodeAuthorizer(d: NodeAuthorizerDeps): Authorizer {
  const nodeOf = (a: AuthzAttributes['user']) =>
    a.username.startsWith(nodeUserPrefix) && a.groups.includes(nodesGroup) ? a.username.slice(nodeUserPrefix.length) : undefined;
  const podsOn = (node: string, namespace: string) =>
    d.pods.snapshot(`${d.pods.prefix}${namespace}/`).map(c => c.obj as Pod).filter(p => p.spec?.nodeName === node);
  const byRules = (a: AuthzAttributes) =>
    d.nodeRules.some(r => ruleAllows(r, a)) ? { decision: 'Allow' as const, reason: '' } : { decision: 'NoOpinion' as const, reason: '' };
  const noRelation = (node: string, a: AuthzAttributes) =>
    ({ decision: 'NoOpinion' as const, reason: `no relationship found between node '${node}' and this object` });

  return {
    authorize(a) {
      const node = nodeOf(a.user);
      if (node === undefined) return { decision: 'NoOpinion', reason: '' };
      if (!node) return { decision: 'NoOpinion', reason: 'unknown node for user' };
      if (!a.isResourceRequest) return byRules(a);
      const graphKinds = ['secrets', 'configmaps', 'persistentvolumeclaims'] as const;
      const kind = graphKinds.find(k => k === a.resource);
      if (a.apiGroup === '' && kind && !a.subresource) {
        if (a.verb !== 'get') return { decision: 'NoOpinion', reason: 'can only get individual resources of this type' };
        if (!a.name) return noRelation(node, a);
        return podsOn(node, a.namespace).some(p => references(p, kind).includes(a.name)) ? { decision: 'Allow', reason: '' } : noRelation(node, a);
      }
      if (a.apiGroup === '' && a.resource === 'serviceaccounts' && a.subresource === 'token') {
        if (a.verb !== 'create') return { decision: 'NoOpinion', reason: 'can only create tokens for individual service accounts' };
        return podsOn(node, a.namespace).some(p => references(p, 'serviceaccounts').includes(a.name)) ? { decision: 'Allow', reason: '' } : noRelation(node, a);
      }
      if (a.apiGroup === d.coordinationGroup && a.resource === 'leases') {
        if (a.namespace !== d.nodeLeaseNamespace || a.subresource) return { decision: 'NoOpinion', reason: `can only access node lease in the ${d.nodeLeaseNamespace} namespace` };
        if (a.verb !== 'create' && a.name !== node) return { decision: 'NoOpinion', reason: 'can only access node lease with the same name as the requesting node' };
        return byRules(a);
      }
      if (a.apiGroup === d.storageGroup && a.resource === 'csinodes') {
        if (a.verb !== 'create' && a.name !== node) return { decision: 'NoOpinion', reason: 'can only access CSINode with the same name as the requesting node' };
        return byRules(a);
      }
      return byRules(a);
    },
    rulesFor(user): RulesAnswer {
      if (nodeOf(user) === undefined) return { resourceRules: [], nonResourceRules: [], incomplete: false };
      return {
        resourceRules: d.nodeRules.filter(r => r.resources?.length).map(r => ({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources })),
        nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution',
      };
    },
  };
}
