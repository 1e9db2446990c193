// LimitRanger: the LimitRanges of a namespace fill in containers' default requests and limits, then bound
// what containers, pods and claims may ask for (min, max, and the limit-to-request ratio).
import { definePlugin } from '../types.js';
import { aggregate, formatQuantity, isWriteOf, podSpec, quantity, refuse, specOf, type AdmittedPodSpec } from '../util.js';
import type { AdmissionAttributes } from '../../api/admission.js';
import type { ApiObject } from '../../api/meta.js';
import type { Container, LimitRange, LimitRangeItem as LimitItem, PersistentVolumeClaim, PersistentVolumeClaimSpec } from '../../api/types/core-v1.js';
import type { Quantity } from '../../api/types/meta-v1.js';

type Amounts = Record<string, Quantity>;

/** the LimitRange defaults of the reference: default limits from max, default requests from default limits, else from min */
function withDefaults(item: LimitItem): LimitItem {
  if (item.type !== 'Container') return item;
  const def: Amounts = { ...(item.max ?? {}), ...(item.default ?? {}) };
  const defReq: Amounts = { ...(item.min ?? {}), ...def, ...(item.defaultRequest ?? {}) };
  return { ...item, default: def, defaultRequest: defReq };
}

/** each LimitRange's items: the reference applies and checks one LimitRange at a time */
const itemsByRange = (ranges: ApiObject[]): LimitItem[][] =>
  ranges.map(r => ((r as LimitRange).spec?.limits ?? []).map(withDefaults)).filter(l => l.length);

/** a LimitRange's container defaults: with several Container items, a later item's value for a resource replaces an earlier's */
function containerDefaults(limits: LimitItem[]): { limits: Amounts; requests: Amounts } {
  const container = limits.filter(l => l.type === 'Container');
  return {
    limits: Object.assign({}, ...container.map(l => l.default ?? {})) as Amounts,
    requests: Object.assign({}, ...container.map(l => l.defaultRequest ?? {})) as Amounts,
  };
}

/** the annotation text of the reference: which resources were set for which container (`container c`, `init container i`) */
function setMessage(kind: string, names: string[], container: string) {
  return `${names.sort().join(', ')} ${kind} for ${container}`;
}

/** containers, then init containers, with the words naming each: the reference's order for defaults and refusals */
function labelledContainers(spec: AdmittedPodSpec): Array<readonly [string, Container]> {
  const list = (x: unknown): Container[] => (Array.isArray(x) ? x : []);
  return [...list(spec.containers).map(c => ['container', c] as const), ...list(spec.initContainers).map(c => ['init container', c] as const)];
}

function applyDefaults(spec: AdmittedPodSpec, defaults: { limits: Amounts; requests: Amounts }): string[] {
  const notes: string[] = [];
  for (const [label, c] of labelledContainers(spec)) {
    if (!c) continue;
    const requested: string[] = [], limited: string[] = [];
    c.resources ??= {};
    for (const [r, q] of Object.entries(defaults.limits))
      if ((c.resources.limits ?? {})[r] === undefined) { (c.resources.limits ??= {})[r] = q; limited.push(r); }
    for (const [r, q] of Object.entries(defaults.requests))
      if ((c.resources.requests ?? {})[r] === undefined) { (c.resources.requests ??= {})[r] = q; requested.push(r); }
    if (requested.length) notes.push(setMessage('request', requested, `${label} ${c.name}`));
    if (limited.length) notes.push(setMessage('limit', limited, `${label} ${c.name}`));
  }
  return notes;
}

/** the min/max/ratio checks of one item against one set of requests and limits: at most one refusal per bound, as the reference */
function check(kind: string, item: LimitItem, requests: Amounts, limits: Amounts): string[] {
  const errs: string[] = [];
  const has = (amounts: Amounts, r: string) => amounts[r] !== undefined;
  for (const [r, min] of Object.entries(item.min ?? {})) {
    if (!has(requests, r)) errs.push(`minimum ${r} usage per ${kind} is ${min}.  No request is specified`);
    else if (quantity(requests[r]) < quantity(min)) errs.push(`minimum ${r} usage per ${kind} is ${min}, but request is ${requests[r]}`);
    else if (has(limits, r) && quantity(limits[r]) < quantity(min)) errs.push(`minimum ${r} usage per ${kind} is ${min}, but limit is ${limits[r]}`);
  }
  for (const [r, max] of Object.entries(item.max ?? {})) {
    if (!has(limits, r)) errs.push(`maximum ${r} usage per ${kind} is ${max}.  No limit is specified`);
    else if (quantity(limits[r]) > quantity(max)) errs.push(`maximum ${r} usage per ${kind} is ${max}, but limit is ${limits[r]}`);
    else if (has(requests, r) && quantity(requests[r]) > quantity(max)) errs.push(`maximum ${r} usage per ${kind} is ${max}, but request is ${requests[r]}`);
  }
  for (const [r, ratio] of Object.entries(item.maxLimitRequestRatio ?? {})) {
    const req = quantity(requests[r]), lim = quantity(limits[r]);
    if (!req) errs.push(`${r} max limit to request ratio per ${kind} is ${ratio}, but no request is specified or request is 0`);
    else if (!lim) errs.push(`${r} max limit to request ratio per ${kind} is ${ratio}, but no limit is specified or limit is 0`);
    else if (lim / req > quantity(ratio)) errs.push(`${r} max limit to request ratio per ${kind} is ${ratio}, but provided ratio is ${(lim / req).toFixed(6)}`);
  }
  return errs;
}

function podErrors(spec: AdmittedPodSpec, limits: LimitItem[]): string[] {
  const errs: string[] = [];
  for (const item of limits) {
    if (item.type === 'Container')
      for (const [, c] of labelledContainers(spec)) errs.push(...check('Container', item, c?.resources?.requests ?? {}, c?.resources?.limits ?? {}));
    if (item.type === 'Pod') {
      // a pod needs what its containers need together, and at least what its largest init container needs
      // (a sum is written in the form of the quantities summed: 800Mi and 800Mi make 1600Mi)
      const sum = (which: 'requests' | 'limits') => {
        const total: Record<string, number> = {}, like: Record<string, Quantity> = {};
        for (const c of spec.containers ?? []) for (const [r, q] of Object.entries(c?.resources?.[which] ?? {})) { total[r] = (total[r] ?? 0) + quantity(q); like[r] ??= q; }
        for (const c of spec.initContainers ?? []) for (const [r, q] of Object.entries(c?.resources?.[which] ?? {})) { total[r] = Math.max(total[r] ?? 0, quantity(q)); like[r] ??= q; }
        return Object.fromEntries(Object.entries(total).map(([r, n]) => [r, formatQuantity(n, like[r])]));
      };
      errs.push(...check('Pod', item, sum('requests'), sum('limits')));
    }
  }
  return errs;
}

/** a claim is bounded by what it requests */
function claimErrors(spec: Partial<PersistentVolumeClaimSpec>, limits: LimitItem[]): string[] {
  const requests: Amounts = spec.resources?.requests ?? {};
  const errs: string[] = [];
  for (const item of limits.filter(l => l.type === 'PersistentVolumeClaim')) {
    for (const [r, min] of Object.entries(item.min ?? {}))
      if (requests[r] === undefined) errs.push(`minimum ${r} usage per PersistentVolumeClaim is ${min}.  No request is specified`);
      else if (quantity(requests[r]) < quantity(min)) errs.push(`minimum ${r} usage per PersistentVolumeClaim is ${min}, but request is ${requests[r]}`);
    for (const [r, max] of Object.entries(item.max ?? {}))
      if (requests[r] === undefined) errs.push(`maximum ${r} usage per PersistentVolumeClaim is ${max}.  No request is specified`);
      else if (quantity(requests[r]) > quantity(max)) errs.push(`maximum ${r} usage per PersistentVolumeClaim is ${max}, but request is ${requests[r]}`);
  }
  return errs;
}

/** pods are bounded when made (their containers' resources cannot change after); claims also when changed, so a claim cannot grow past the max */
const concerns = (a: Readonly<AdmissionAttributes>) =>
  (a.operation === 'CREATE' && isWriteOf(a, '', 'pods')) || isWriteOf(a, '', 'persistentvolumeclaims');

export default definePlugin({
  name: 'LimitRanger',
  defaultOn: true,
  create: ({ listers, names }) => {
    const annotation = names.label('limit-ranger');
    const rangesOf = async (ns: string) => itemsByRange(await listers.list('', 'limitranges', ns));
    return {
      name: 'LimitRanger',
      operations: ['CREATE', 'UPDATE'],
      resources: [['', 'pods'], ['', 'persistentvolumeclaims']],
      async admit(a) {
        if (!concerns(a) || a.resource !== 'pods') return;
        // one LimitRange after another: what an earlier one filled in stays, and the annotation names the last one's changes
        for (const limits of await rangesOf(a.namespace)) {
          const notes = applyDefaults(podSpec(a.object), containerDefaults(limits));
          if (notes.length) (a.object!.metadata.annotations ??= {})[annotation] = `LimitRanger plugin set: ${notes.join('; ')}`;
        }
      },
      async validate(a) {
        if (!concerns(a)) return;
        // the first LimitRange the object breaks refuses it, naming what breaks that one
        for (const limits of await rangesOf(a.namespace)) {
          const errs = a.resource === 'pods' ? podErrors(podSpec(a.object), limits) : claimErrors(specOf<PersistentVolumeClaim>(a.object), limits);
          if (errs.length) throw refuse(a, aggregate(errs));
        }
      },
    };
  },
});
