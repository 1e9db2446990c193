// core/v1 limit ranges (enforced by the LimitRanger admission plugin). A Container item's defaults are filled in as
// the reference fills them: a missing default limit is the max, a missing default request the default limit, else
// the min, so `kubectl describe limitrange` shows the requests containers will get.
import type { Stored } from '../../../../api/meta.js';
import type { LimitRange } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import { defineStrategy } from '../../../strategy.js';
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

// a PUT may create a limit range, as the reference allows
export const strategy = defineStrategy<Stored<LimitRange>>({ defaults: defaultLimitRange, allowCreateOnUpdate: true });

export const definition = define<LimitRange>({
  group: '', resource: 'limitranges', kind: 'LimitRange', shortNames: ['limits'], namespaced: true,
  versions: only('v1', s.limitRange), columns: [createdAt], strategy,
});
