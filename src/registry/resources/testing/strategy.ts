// A resource's strategy run as the store runs it, without storage: defaults, prepare, then validation. For the
// strategy tests beside each resource.
import type { ApiObject, StatusCause, Stored } from '../../../api/meta.js';
import { naming } from '../../../api/naming.js';
import { defaultStrategy, type Strategy, type StrategyContext } from '../../strategy.js';
import { ofKind } from '../../types.js';
import { builtinResources } from '../index.js';

export const ctx: StrategyContext = {
  names: naming(), now: '2024-01-01T00:00:00Z', user: { username: 'carol', uid: 'u-1', groups: ['devs', 'system:authenticated'] },
};

/** a built-in resource's strategy, by its group as the catalog spells it ('' for core) and its resource */
export function strategyOf(group: string, resource: string): Strategy {
  const def = builtinResources.find(d => d.group === group && d.resource === resource);
  if (!def) throw new Error(`no built-in resource ${resource} in group "${group}"`);
  return def.strategy ?? defaultStrategy;
}

export const text = (causes: StatusCause[]) => causes.map(c => `${c.field}: ${c.message}`);

/** a create: the object (with a name, namespace and uid, as the store gives it) after defaults and prepare, and its causes */
export async function create<T extends { metadata?: object }>(strategy: Strategy, body: object): Promise<{ obj: Stored<T>; causes: string[] }> {
  const obj: ApiObject = structuredClone({ metadata: { name: 'x', namespace: 'ns', uid: 'u-1' }, ...body });
  strategy.defaults?.(obj, ctx);
  await strategy.prepareForCreate?.(obj, ctx);
  return { obj: ofKind<T>(obj), causes: text(strategy.validate?.(obj, ctx) ?? []) };
}

/** an update of `old` made by `change`: defaults, prepare, and the update's causes */
export async function update<T extends { metadata?: object }>(strategy: Strategy, old: Stored<T>, change: (obj: Stored<T>) => void): Promise<string[]> {
  const before: ApiObject = structuredClone(old) as object as ApiObject;
  const next = structuredClone(before);
  change(ofKind<T>(next));
  strategy.defaults?.(next, ctx);
  await strategy.prepareForUpdate?.(next, before, ctx);
  return text(strategy.validateUpdate?.(next, before, ctx) ?? []);
}

/** fixtures of pod specs and templates, for the kinds that carry them */
export const container = (extra: object = {}) => ({ name: 'a', image: 'img:1', ...extra });
export const podSpec = (extra: object = {}) => ({ containers: [container()], ...extra });
export const template = (spec: object = podSpec(), labels: Record<string, string> = { app: 'a' }) => ({ metadata: { labels }, spec });
export const selector = { matchLabels: { app: 'a' } };
