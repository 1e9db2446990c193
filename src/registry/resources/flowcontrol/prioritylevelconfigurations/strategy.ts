// PriorityLevelConfiguration defaults and validation: a limited level's shares (30), lending (0) and queuing
// (64 queues, hand of 8, 50 long) when left out; only the level named exempt is Exempt; a hand fits its deck and
// deals at most 60 bits of entropy, as the reference checks.
import type { Stored } from '../../../../api/meta.js';
import type { PriorityLevelConfiguration } from '../../../../api/types/flowcontrol-v1beta3.js';
import { defineStrategy } from '../../../strategy.js';
import { fill } from '../../../defaults/fill.js';
import { type Causes, forbidden, invalid, oneOf, required } from '../../../validation/fields.js';

/** bits it takes to name one hand of handSize cards dealt from deckSize in order */
const entropyBits = (deckSize: number, handSize: number) => {
  let bits = 0;
  for (let i = 0; i < handSize; i++) bits += Math.log2(deckSize - i);
  return bits;
};

const positive = (field: string, v: unknown): Causes =>
  (typeof v === 'number' && Number.isInteger(v) && v > 0 ? [] : [invalid(field, v, 'must be positive')]);
const percent = (field: string, v: unknown, max?: number): Causes =>
  (v === undefined || (typeof v === 'number' && Number.isInteger(v) && v >= 0 && (max === undefined || v <= max)) ? []
    : [invalid(field, v, max === undefined ? 'must be a non-negative integer' : `must be between 0 and ${max}, inclusive`)]);

export const strategy = defineStrategy<Stored<PriorityLevelConfiguration>>({
  // a new object's status is empty, and shown so (`status: {}`), as the reference's status struct is never left out
  prepareForCreate(obj) { obj.status = {}; },
  defaults(pl) {
    const limited = pl.spec?.limited as (NonNullable<PriorityLevelConfiguration['spec']>['limited'] & { assuredConcurrencyShares?: number }) | undefined;
    if (!limited) return;
    // the older version's name for the shares
    if (limited.nominalConcurrencyShares === undefined && limited.assuredConcurrencyShares === undefined) limited.nominalConcurrencyShares = 30;
    limited.lendablePercent ??= 0;
    if (limited.limitResponse?.type === 'Queue') fill(limited.limitResponse.queuing ??= {}, { queues: 64, handSize: 8, queueLengthLimit: 50 });
  },
  validate(pl) {
    const out: Causes = [];
    const spec = pl.spec;
    if (!spec) return [required('spec')];
    out.push(...oneOf('spec.type', spec.type, ['Exempt', 'Limited']));
    const exemptName = pl.metadata.name === 'exempt';
    if ((spec.type === 'Exempt') !== exemptName) out.push(invalid('spec.type', spec.type, "type must be 'Exempt' if and only if name is 'exempt'"));
    if (spec.type === 'Exempt' && spec.limited) out.push(forbidden('spec.limited', 'must be nil if the type is not Limited'));
    if (spec.type !== 'Limited') return out;
    const l = spec.limited as (typeof spec.limited & { assuredConcurrencyShares?: number }) | undefined;
    if (!l) return [...out, required('spec.limited', 'must not be empty when type is Limited')];
    out.push(...positive('spec.limited.nominalConcurrencyShares', l.nominalConcurrencyShares ?? l.assuredConcurrencyShares));
    out.push(...percent('spec.limited.lendablePercent', l.lendablePercent, 100), ...percent('spec.limited.borrowingLimitPercent', l.borrowingLimitPercent));
    const response = l.limitResponse;
    if (!response) return [...out, required('spec.limited.limitResponse')];
    out.push(...oneOf('spec.limited.limitResponse.type', response.type, ['Queue', 'Reject']));
    if (response.type === 'Reject' && response.queuing) out.push(forbidden('spec.limited.limitResponse.queuing', 'must be nil if limited.limitResponse.type is not Limited'));
    if (response.type === 'Queue') {
      const q = response.queuing;
      if (!q) return [...out, required('spec.limited.limitResponse.queuing', 'must not be empty if limited.limitResponse.type is Queue')];
      const at = 'spec.limited.limitResponse.queuing';
      out.push(...positive(`${at}.queues`, q.queues), ...positive(`${at}.handSize`, q.handSize), ...positive(`${at}.queueLengthLimit`, q.queueLengthLimit));
      if (typeof q.queues === 'number' && typeof q.handSize === 'number' && q.queues > 0 && q.handSize > 0) {
        if (q.handSize > q.queues) out.push(invalid(`${at}.handSize`, q.handSize, `should not be greater than queues (${q.queues})`));
        else if (entropyBits(q.queues, q.handSize) > 60)
          out.push(invalid(`${at}.handSize`, q.handSize, `required entropy bits of deckSize ${q.queues} and handSize ${q.handSize} should not be greater than 60`));
      }
    }
    return out;
  },
});
