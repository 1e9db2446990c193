// The Node authorizer: a node agent (user system:node:<name> in group system:nodes) may read only the
// secrets, config maps, claims and service-account tokens of pods scheduled to its node, its own lease
// and CSINode, plus what the system:node rules allow. Everyone else gets no opinion.
import type { ApiObject } from '../api/meta.js';
import { nodeNameOf, podReferences as references } from '../api/nodes.js';
import { ruleAllows } from './rbac/rules.js';
import type { Authorizer, AuthzAttributes, PolicyRule, RulesAnswer } from '../api/auth.js';
import type { ResourceCache } from '../api/cache.js';


export interface NodeAuthorizerDeps {
  pods: ResourceCache;
  /** the rules every node holds (the system:node cluster role's rules) */
  nodeRules: PolicyRule[];
  coordinationGroup: string;
  storageGroup: string;
  nodeLeaseNamespace: string;
}

type Pod = ApiObject & { spec?: any };

export function nodeAuthorizer(d: NodeAuthorizerDeps): Authorizer {
  const podsOn = (node: string, namespace: string) =>
    d.pods.snapshot(`${d.pods.prefix}${namespace}/`).map(c => c.obj as Pod).filter(p => p.spec?.nodeName === node);
  const byRules = (a: AuthzAttributes) =>
    d.nodeRules.some(r => ruleAllows(r, a)) ? { decision: 'Allow' as const, reason: '' } : { decision: 'NoOpinion' as const, reason: '' };
  const noRelation = (node: string, a: AuthzAttributes) =>
    ({ decision: 'NoOpinion' as const, reason: `no relationship found between node '${node}' and this object` });

  return {
    authorize(a) {
      const node = nodeNameOf(a.user);
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
      if (nodeNameOf(user) === undefined) return { resourceRules: [], nonResourceRules: [], incomplete: false };
      return {
        resourceRules: d.nodeRules.filter(r => r.resources?.length).map(r => ({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources })),
        nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution',
      };
    },
  };
}
