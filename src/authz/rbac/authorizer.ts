// Role-based access control: roles, cluster roles and their bindings, read from an in-memory index the watch
// cache keeps current, so a decision never waits on storage. Bindings are indexed by subject, so a request
// only looks at the bindings that name its user or one of its groups.
import type { ApiObject } from '../../api/meta.js';
import { ruleAllows } from './rules.js';
import { aggregateText } from '../types.js';
import type { Authorizer, AuthzAttributes, Decision, PolicyRule, RulesAnswer, UserInfo } from '../../api/auth.js';
import type { ResourceCache, StoredObject } from '../../api/cache.js';

export interface Subject { kind: string; name: string; namespace?: string; apiGroup?: string }
interface Binding { kind: 'RoleBinding' | 'ClusterRoleBinding'; namespace: string; name: string; roleRef: { kind: string; name: string }; subjects: Subject[] }
type Role = ApiObject & { rules?: PolicyRule[] };

export interface RbacSources {
  clusterRoles: ResourceCache; roles: ResourceCache; clusterRoleBindings: ResourceCache; roleBindings: ResourceCache;
  /** the RBAC API group, named in the errors about roles a binding refers to but that do not exist */
  group?: string;
}
/** a role a binding names that does not exist */
export interface MissingRole { kind: string; name: string }
/** the rules a user holds, and the roles their bindings name that could not be found */
export interface HeldRules { rules: PolicyRule[]; missing: MissingRole[] }

export interface RbacAuthorizer extends Authorizer {
  /** answered from memory, synchronously */
  authorize(a: AuthzAttributes): { decision: Decision; reason: string };
  rulesFor(user: UserInfo, namespace: string): RulesAnswer;
  /** every rule the user holds in a namespace ('' for cluster-wide ones only) */
  rulesOf(user: UserInfo, namespace: string): HeldRules;
  clusterRole(name: string): Role | undefined;
  role(namespace: string, name: string): Role | undefined;
  /** resolves once the index holds everything stored */
  ready: Promise<void>;
  /** called after the cluster roles change (aggregation listens) */
  onClusterRolesChanged(fn: () => void): void;
  clusterRoles(): Role[];
  stop(): void;
}

/** the user name a subject stands for ('u:' users, 'g:' groups), or undefined when it names nobody */
function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  if (s.kind === 'User') return `u:${s.name}`;
  if (s.kind === 'Group') return `g:${s.name}`;
  if (s.kind === 'ServiceAccount') {
    const ns = s.namespace || bindingNamespace;
    return ns ? `u:system:serviceaccount:${ns}:${s.name}` : undefined;
  }
  return undefined;
}

const keysOf = (u: UserInfo) => [`u:${u.username}`, ...u.groups.map(g => `g:${g}`)];

export function rbacAuthorizer(src: RbacSources): RbacAuthorizer {
  const clusterRoles = new Map<string, Role>();
  const roles = new Map<string, Role>(); // "<ns>/<name>"
  const bindings = new Map<string, { binding: Binding; keys: string[] }>(); // by storage key
  const clusterBySubject = new Map<string, Set<Binding>>();
  const nsBySubject = new Map<string, Map<string, Set<Binding>>>();
  const revs = new Map<string, number>();
  const listeners: Array<() => void> = [];
  const unsubscribers: Array<() => void> = [];
  let stopped = false;

  const indexFor = (b: Binding) => {
    if (b.kind === 'ClusterRoleBinding') return clusterBySubject;
    let m = nsBySubject.get(b.namespace);
    if (!m) nsBySubject.set(b.namespace, m = new Map());
    return m;
  };
  function removeBinding(key: string) {
    const old = bindings.get(key);
    if (!old) return;
    bindings.delete(key);
    const idx = indexFor(old.binding);
    for (const k of old.keys) idx.get(k)?.delete(old.binding);
  }
  function putBinding(key: string, obj: ApiObject, kind: Binding['kind']) {
    removeBinding(key);
    const o = obj as ApiObject & { roleRef?: Binding['roleRef']; subjects?: Subject[] };
    if (!o.roleRef) return;
    const binding: Binding = { kind, namespace: o.metadata.namespace ?? '', name: o.metadata.name!, roleRef: o.roleRef, subjects: o.subjects ?? [] };
    const keys = [...new Set(binding.subjects.map(s => subjectKey(s, binding.namespace)).filter((k): k is string => !!k))];
    bindings.set(key, { binding, keys });
    const idx = indexFor(binding);
    for (const k of keys) { let set = idx.get(k); if (!set) idx.set(k, set = new Set()); set.add(binding); }
  }

  type Apply = (c: StoredObject, deleted: boolean) => void;
  const appliers: Array<[ResourceCache, Apply]> = [
    [src.clusterRoles, (c, del) => { if (del) clusterRoles.delete(c.obj.metadata.name!); else clusterRoles.set(c.obj.metadata.name!, c.obj as Role); }],
    [src.roles, (c, del) => { const k = `${c.obj.metadata.namespace}/${c.obj.metadata.name}`; if (del) roles.delete(k); else roles.set(k, c.obj as Role); }],
    [src.clusterRoleBindings, (c, del) => (del ? removeBinding(c.key) : putBinding(c.key, c.obj, 'ClusterRoleBinding'))],
    [src.roleBindings, (c, del) => (del ? removeBinding(c.key) : putBinding(c.key, c.obj, 'RoleBinding'))],
  ];
  const notify = (cache: ResourceCache) => { if (cache === src.clusterRoles) for (const fn of listeners) fn(); };

  function follow(cache: ResourceCache, apply: Apply): Promise<void> {
    // newer revisions win, so an event seen before the snapshot is never undone by it
    const take = (c: StoredObject, deleted: boolean) => {
      if ((revs.get(c.key) ?? -1) > c.rev) return;
      revs.set(c.key, c.rev);
      apply(c, deleted);
    };
    return cache.ready.then(() => {
      if (stopped) return;
      // the cache keeps the index whole: after it lists storage again, the difference comes as events
      const unsubscribe = cache.subscribe({
        send(ev) { take(ev.cur, ev.type === 'DELETED'); notify(cache); },
        end() {},
      });
      unsubscribers.push(unsubscribe);
      for (const c of cache.snapshot(cache.prefix)) take(c, false);
      notify(cache);
    });
  }
  const ready = Promise.all(appliers.map(([c, a]) => follow(c, a))).then(() => {});

  // a missing role is an error of the binding, reported in denials and rule lists as the reference's listers word it
  // (the kind in lower case: `clusterrole.<group> "x" not found`)
  const missingText = (m: MissingRole) => `${m.kind.toLowerCase()}${src.group ? `.${src.group}` : ''} "${m.name}" not found`;
  const resolve = (b: Binding): { rules: PolicyRule[]; missing?: MissingRole } => {
    const { kind, name } = b.roleRef;
    const role = kind === 'ClusterRole' ? clusterRoles.get(name)
      : kind === 'Role' && b.kind === 'RoleBinding' ? roles.get(`${b.namespace}/${name}`) : undefined;
    return role ? { rules: role.rules ?? [] } : { rules: [], missing: { kind, name } };
  };
  function* bindingsFor(user: UserInfo, namespace: string): Generator<Binding> {
    const keys = keysOf(user);
    for (const k of keys) { const set = clusterBySubject.get(k); if (set) yield* set; }
    if (!namespace) return;
    const m = nsBySubject.get(namespace);
    if (m) for (const k of keys) { const set = m.get(k); if (set) yield* set; }
  }
  const subjectText = (b: Binding, user: UserInfo) => {
    const hit = b.subjects.find(s => { const k = subjectKey(s, b.namespace); return k && keysOf(user).includes(k); });
    return hit ? `${hit.kind} "${hit.kind === 'ServiceAccount' ? `${hit.name}/${hit.namespace || b.namespace}` : hit.name}"` : '';
  };

  function rulesOf(user: UserInfo, namespace: string): HeldRules {
    const seen = new Set<Binding>();
    const out: HeldRules = { rules: [], missing: [] };
    for (const b of bindingsFor(user, namespace)) {
      if (seen.has(b)) continue;
      seen.add(b);
      const { rules, missing } = resolve(b);
      out.rules.push(...rules);
      if (missing) out.missing.push(missing);
    }
    return out;
  }

  return {
    ready,
    authorize(a: AuthzAttributes) {
      const errors: string[] = [];
      for (const b of bindingsFor(a.user, a.isResourceRequest ? a.namespace : '')) {
        const { rules, missing } = resolve(b);
        if (missing) errors.push(missingText(missing));
        for (const rule of rules) {
          if (!ruleAllows(rule, a)) continue;
          const where = b.kind === 'RoleBinding' ? `RoleBinding "${b.name}/${b.namespace}"` : `ClusterRoleBinding "${b.name}"`;
          return { decision: 'Allow' as const, reason: `RBAC: allowed by ${where} of ${b.roleRef.kind} "${b.roleRef.name}" to ${subjectText(b, a.user)}` };
        }
      }
      return { decision: 'NoOpinion' as const, reason: errors.length ? `RBAC: ${aggregateText(errors)}` : '' };
    },
    rulesOf,
    rulesFor(user, namespace) {
      const { rules, missing } = rulesOf(user, namespace);
      return {
        resourceRules: rules.filter(r => r.resources?.length).map(r => ({
          verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources, ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
        })),
        nonResourceRules: rules.filter(r => r.nonResourceURLs?.length).map(r => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
        // as the reference: the lists hold what could be resolved, and the missing roles are an evaluation error
        incomplete: false,
        ...(missing.length ? { evaluationError: aggregateText(missing.map(missingText)) } : {}),
      };
    },
    clusterRole: name => clusterRoles.get(name),
    role: (ns, name) => roles.get(`${ns}/${name}`),
    clusterRoles: () => [...clusterRoles.values()],
    onClusterRolesChanged(fn) { listeners.push(fn); },
    stop() { stopped = true; for (const u of unsubscribers.splice(0)) u(); },
  };
}
