// Aggregated cluster roles: a cluster role with an aggregationRule holds the rules of every cluster role its
// selectors match. Recomputed whenever cluster roles change, and written back only when the rules differ. As the
// reference's controller does, this runs whatever the authorization mode: roles are data even when RBAC decides
// nothing.
import { labelSelectorFromObject, matchLabels, type LabelSelectorObject } from '../../api/selectors.js';
import type { RbacAuthorizer } from './authorizer.js';
import type { ApiObject } from '../../api/meta.js';
import type { PolicyRule } from '../../api/auth.js';
import type { ResourceCache } from '../../api/cache.js';
import { compareStrings } from '../../util/order.js';

/** the cluster roles as the aggregation reads them: the RBAC authorizer's index, or the watch cache's view */
export type ClusterRoleSource = Pick<RbacAuthorizer, 'clusterRoles' | 'onClusterRolesChanged'>;

/** a cluster-role source read from the watch cache, for when no RBAC authorizer keeps an index of them */
export function clusterRolesFromCache(cache: ResourceCache): ClusterRoleSource & { stop(): void } {
  const listeners: Array<() => void> = [];
  let unsubscribe: (() => void) | undefined;
  let stopped = false;
  const notify = () => { for (const fn of listeners) fn(); };
  void cache.ready.then(() => {
    if (stopped) return;
    unsubscribe = cache.subscribe({ send: notify, end() {} });
    notify();
  });
  return {
    clusterRoles: () => cache.snapshot(cache.prefix).map(c => c.obj as ApiObject & { rules?: PolicyRule[] }),
    onClusterRolesChanged(fn) { listeners.push(fn); },
    stop() { stopped = true; unsubscribe?.(); },
  };
}

export interface AggregationDeps {
  roles: ClusterRoleSource;
  /** stores new rules on a cluster role */
  writeRules(name: string, rules: PolicyRule[]): Promise<void>;
  log: { warn(m: string): void };
}

export function aggregatedRules(roles: ReturnType<ClusterRoleSource['clusterRoles']>, target: string, selectors: LabelSelectorObject[]): PolicyRule[] {
  const seen = new Set<string>();
  const out: PolicyRule[] = [];
  const sels = selectors.map(s => { try { return labelSelectorFromObject(s); } catch { return undefined; } }).filter(s => !!s);
  for (const r of [...roles].sort((a, b) => compareStrings(a.metadata.name!, b.metadata.name!))) {
    if (r.metadata.name === target || !sels.some(s => matchLabels(s, r.metadata.labels))) continue;
    for (const rule of r.rules ?? []) {
      const k = JSON.stringify(rule);
      if (!seen.has(k)) { seen.add(k); out.push(rule); }
    }
  }
  return out;
}

export function startAggregation(d: AggregationDeps) {
  let scheduled: NodeJS.Timeout | undefined;
  let running = false, again = false, stopped = false;
  async function run() {
    scheduled = undefined;
    if (running) { again = true; return; }
    running = true;
    try {
      const roles = d.roles.clusterRoles();
      for (const role of roles) {
        const selectors = (role as { aggregationRule?: { clusterRoleSelectors?: LabelSelectorObject[] } }).aggregationRule?.clusterRoleSelectors;
        if (!selectors || stopped) continue;
        const rules = aggregatedRules(roles, role.metadata.name!, selectors);
        if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) continue;
        await d.writeRules(role.metadata.name!, rules).catch(e => d.log.warn(`aggregating cluster role ${role.metadata.name}: ${(e as Error).message}`));
      }
    } finally {
      running = false;
      if (again && !stopped) { again = false; schedule(); }
    }
  }
  // changes come in bursts (start-up creates dozens of roles): gather them
  const schedule = () => { if (!scheduled && !stopped) scheduled = setTimeout(() => void run(), 20); };
  d.roles.onClusterRolesChanged(schedule);
  schedule();
  return { stop() { stopped = true; if (scheduled) clearTimeout(scheduled); } };
}
