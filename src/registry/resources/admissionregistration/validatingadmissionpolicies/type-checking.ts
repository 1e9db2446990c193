// Type checking of ValidatingAdmissionPolicies: each validation's expression and message expression is checked
// against the schema of every kind the policy's match constraints name exactly (no wildcards), with `params`
// typed from the policy's parameter kind. What does not check is reported in status.typeChecking as warnings
// (the policy still runs: the objects it sees at runtime may carry more than their schema), and
// status.observedGeneration says which generation was checked.
import { isDeepStrictEqual } from 'node:util';
import type { Stored } from '../../../../api/meta.js';
import { parseApiVersion } from '../../../../api/meta.js';
import type { Naming } from '../../../../api/naming.js';
import type { Schema } from '../../../../api/schema.js';
import type { ExpressionWarning, ValidatingAdmissionPolicy } from '../../../../api/types/admissionregistration-v1alpha1.js';
import type { ResourceCaches } from '../../../../api/cache.js';
import { loadAdmissionCel, type AdmissionCel } from '../../../../cel/index.js';
import type { ApiResources, ResourceInfo } from '../../../resources.js';
import { noAdmission, type Store } from '../../../store.js';
import { sliceClock, yieldToLoop } from '../../../../util/slices.js';

type Policy = Stored<ValidatingAdmissionPolicy>;

export interface TypeCheckingDeps {
  resources: ApiResources;
  names: Naming;
  caches: ResourceCaches;
  backendFor(info: ResourceInfo): { store: Store };
}

/** the kinds a policy names exactly, with their schemas */
function kindsOf(p: Policy, resources: ApiResources): Array<{ label: string; schema: Schema }> {
  const out = new Map<string, { label: string; schema: Schema }>();
  for (const r of p.spec?.matchConstraints?.resourceRules ?? []) {
    const exact = (xs: string[] | undefined) => (xs ?? []).filter(x => x !== '*' && !x.includes('/'));
    for (const group of exact(r.apiGroups)) for (const version of exact(r.apiVersions)) for (const resource of exact(r.resources)) {
      const info = resources.lookup(group, version, resource);
      if (!info?.schema) continue;
      const label = `${group}/${version}, Kind=${info.kind}`;
      out.set(label, { label, schema: info.schema });
    }
  }
  return [...out.values()];
}

/**
 * The warnings of a policy's expressions. Checked in slices with the event loop given back between them: each expression compiles once per kind, and a policy may have thousands.
 */
export async function policyWarnings(cel: AdmissionCel, p: Policy, resources: ApiResources): Promise<ExpressionWarning[]> {
  const kinds = kindsOf(p, resources);
  if (!kinds.length) return [];
  const pk = p.spec?.paramKind;
  const paramInfo = pk ? resources.all().find(i => {
    const { group, version } = parseApiVersion(pk.apiVersion ?? '');
    return i.group === group && i.version === version && i.kind === pk.kind;
  }) : undefined;
  const out: ExpressionWarning[] = [];
  const clock = sliceClock();
  for (const [i, v] of (p.spec?.validations ?? []).entries()) {
    if (clock.due()) await yieldToLoop();
    if (!v) continue;
    const checks: Array<[string, string | undefined, 'bool' | 'string']> = [['expression', v.expression, 'bool'], ['messageExpression', v.messageExpression, 'string']];
    for (const [field, source, result] of checks) {
      if (!source) continue;
      const warnings = cel.typeWarnings(source, result, kinds, paramInfo?.schema);
      if (warnings.length) out.push({ fieldRef: `spec.validations[${i}].${field}`, warning: warnings.join('\n') });
    }
  }
  return out;
}

export function startPolicyTypeChecking(deps: TypeCheckingDeps, log: { warn(m: string): void }) {
  const info = deps.resources.preferred(deps.names.group('admissionregistration'), 'validatingadmissionpolicies');
  if (!info) return { stop() {} };
  const cache = deps.caches.cache(info.keyPrefix);
  let stopped = false;
  const pending = new Set<string>();
  let draining: Promise<void> | undefined;

  async function check(name: string) {
    const p = cache.get(info!.keyPrefix + name)?.obj as Policy | undefined;
    if (!p || p.status?.observedGeneration === p.metadata.generation) return;
    const cel = await loadAdmissionCel();
    const expressionWarnings = await policyWarnings(cel, p, deps.resources);
    await deps.backendFor(info!).store.guaranteedUpdate('', name, 'status', cur => {
      if (!cur) throw Object.assign(new Error('gone'), { code: 404 });
      const c = cur as Policy;
      // the list is left out when empty, as the reference's omitempty field
      const status = { ...c.status, observedGeneration: c.metadata.generation, typeChecking: expressionWarnings.length ? { expressionWarnings } : {} };
      if (isDeepStrictEqual(status, c.status)) return cur;
      c.status = status;
      return cur;
    }, noAdmission, { dryRun: false }).catch(e => { if ((e as { code?: number }).code !== 404) throw e; });
  }
  function enqueue(name: string) {
    pending.add(name);
    draining ??= (async () => {
      while (pending.size && !stopped) {
        const [next] = pending;
        pending.delete(next!);
        try { await check(next!); } catch (e) { log.warn(`type checking validatingadmissionpolicy ${next}: ${(e as Error).message}`); }
      }
    })().finally(() => { draining = undefined; });
  }
  const unsubscribe = cache.subscribe({ send(ev) { if (ev.type !== 'DELETED') enqueue(ev.cur.obj.metadata.name!); }, end() {} });
  const ready = cache.ready.then(() => { for (const c of cache.snapshot(info.keyPrefix)) enqueue(c.obj.metadata.name!); });
  return { ready, stop() { stopped = true; unsubscribe(); } };
}
