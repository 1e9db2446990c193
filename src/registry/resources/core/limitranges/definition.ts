// core/v1 limit ranges (enforced by the LimitRanger admission plugin). A Container item's defaults are filled in as
// the reference fills them: a missing default limit is the max, a missing default request the default limit, else
// the min, so `kubectl describe limitrange` shows the requests containers will get. The bounds of each resource must
// agree (min <= default request <= default <= max, a ratio of at least 1 and at most max/min), as the reference checks.
import type { Stored } from '../../../../api/meta.js';
import type { LimitRange } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import { defineStrategy } from '../../../strategy.js';
import { quantityValue } from '../../../../api/quantity.js';
import { type Causes, duplicate, forbidden, invalid, required } from '../../../validation/fields.js';
import { define, only } from '../../define.js';
import { createdAt } from '../../columns.js';

function defaultLimitRange(lr: LimitRange) {
  for (const item of lr.spec?.limits ?? []) {
    if (!item || item.type !== 'Container') continue;
    const fill = (to: Record<string, string | number>, from: Record<string, string | number> | undefined) => {
      for (const [k, v] of Object.entries(from ?? {})) if (k !== '__proto__' && !Object.hasOwn(to, k)) to[k] = v;
    };
    const limits = item.default ?? {};
    const requests = item.defaultRequest ?? {};
    fill(limits, item.max);
    fill(requests, limits);
    fill(requests, item.min);
    // empty maps are left out, as the reference's encoding leaves them
    if (Object.keys(limits).length) item.default = limits;
    if (Object.keys(requests).length) item.defaultRequest = requests;
  }
}

type Amounts = Record<string, string | number>;

/** the bounds of one resource in one item must agree, as the reference checks them (after the defaults are filled in) */
function resourceBounds(at: string, r: string, b: { min?: string | number; max?: string | number; def?: string | number; defReq?: string | number; ratio?: string | number }): Causes {
  const out: Causes = [];
  const v = (q: string | number | undefined) => (q === undefined ? undefined : quantityValue(q));
  const [min, max, def, defReq, ratio] = [v(b.min), v(b.max), v(b.def), v(b.defReq), v(b.ratio)];
  const has = (n: number | undefined): n is number => n !== undefined;
  if (has(min) && has(max) && min > max) out.push(invalid(`${at}.min[${r}]`, String(b.min), `min value ${b.min} is greater than max value ${b.max}`));
  if (has(defReq) && has(min) && min > defReq) out.push(invalid(`${at}.defaultRequest[${r}]`, String(b.defReq), `min value ${b.min} is greater than default request value ${b.defReq}`));
  if (has(defReq) && has(max) && defReq > max) out.push(invalid(`${at}.defaultRequest[${r}]`, String(b.defReq), `default request value ${b.defReq} is greater than max value ${b.max}`));
  if (has(defReq) && has(def) && defReq > def) out.push(invalid(`${at}.defaultRequest[${r}]`, String(b.defReq), `default request value ${b.defReq} is greater than default limit value ${b.def}`));
  if (has(def) && has(min) && min > def) out.push(invalid(`${at}.default[${r}]`, String(b.min), `min value ${b.min} is greater than default value ${b.def}`));
  if (has(def) && has(max) && def > max) out.push(invalid(`${at}.default[${r}]`, String(b.max), `default value ${b.def} is greater than max value ${b.max}`));
  if (has(ratio) && ratio < 1) out.push(invalid(`${at}.maxLimitRequestRatio[${r}]`, String(b.ratio), `ratio ${b.ratio} is less than 1`));
  if (has(ratio) && has(min) && has(max) && min > 0 && ratio > max / min)
    out.push(invalid(`${at}.maxLimitRequestRatio[${r}]`, String(b.ratio), `ratio ${b.ratio} is greater than max/min = ${(max / min).toFixed(6)}`));
  // hugepages and extended resources (names with a domain) cannot be overcommitted: their default limit and request must be one
  const overcommits = !r.startsWith('hugepages-') && !r.includes('/');
  if (!overcommits && has(def) && has(defReq) && def !== defReq)
    out.push(invalid(`${at}.defaultRequest[${r}]`, String(b.defReq), `default value ${b.def} must equal to defaultRequest value ${b.defReq} in ${r}`));
  return out;
}

const standardTypes = ['Pod', 'Container', 'PersistentVolumeClaim'];

function validateLimitRange(lr: LimitRange): Causes {
  const out: Causes = [];
  const seen = new Set<string>();
  (lr.spec?.limits ?? []).forEach((item, i) => {
    const at = `spec.limits[${i}]`;
    if (!item) return;
    if (!String(item.type).includes('/') && !standardTypes.includes(item.type)) out.push(invalid(`${at}.type`, item.type, 'must be a standard limit type or fully qualified'));
    if (seen.has(item.type)) out.push(duplicate(`${at}.type`, item.type));
    seen.add(item.type);
    const maps: Record<'min' | 'max' | 'def' | 'defReq' | 'ratio', Amounts> = {
      min: item.min ?? {}, max: item.max ?? {}, def: item.default ?? {}, defReq: item.defaultRequest ?? {}, ratio: item.maxLimitRequestRatio ?? {} };
    if (item.type === 'Pod') {
      if (Object.keys(maps.def).length) out.push(forbidden(`${at}.default`, "may not be specified when `type` is 'Pod'"));
      if (Object.keys(maps.defReq).length) out.push(forbidden(`${at}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
    }
    if (item.type === 'PersistentVolumeClaim' && maps.min.storage === undefined && maps.max.storage === undefined)
      out.push(required(`${at}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
    const resources = [...new Set(Object.values(maps).flatMap(m => Object.keys(m)))].sort();
    for (const r of resources)
      out.push(...resourceBounds(at, r, { min: maps.min[r], max: maps.max[r], def: maps.def[r], defReq: maps.defReq[r], ratio: maps.ratio[r] }));
  });
  return out;
}

// a PUT may create a limit range, as the reference allows
export const strategy = defineStrategy<Stored<LimitRange>>({
  generation: false,
  defaults: defaultLimitRange, allowCreateOnUpdate: true, validate: validateLimitRange, validateUpdate: validateLimitRange,
});

export const definition = define<LimitRange>({
  group: '', resource: 'limitranges', kind: 'LimitRange', shortNames: ['limits'], namespaced: true,
  versions: only('v1', s.limitRange), columns: [createdAt], strategy,
});
