// A strategy holds the per-resource hooks the generic store calls. Every hook is optional;
// defaultStrategy fills in the reference's common behaviour. A strategy is written against its kind's type
// (src/api/types); the store calls it in the reference's order (see store.ts).
import type { ApiObject, StatusCause } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { UserInfo } from '../api/auth.js';
import type { PodSpec } from '../api/types/core-v1.js';
import type { ObjectStore } from '../storage/objects.js';


export type NameRule = 'dns-subdomain' | 'dns-label' | 'dns-1035-label' | 'path-segment';

/** what defaulting may read: defaults are pure, fill only unset fields, and may run more than once */
export interface DefaultingContext {
  /** the API domain's names, for defaults that are well-known labels */
  names: Naming;
}

export interface StrategyContext extends DefaultingContext {
  now: string;
  /** the storage and this resource's key prefix, for strategies that keep state of their own (Service IPs and ports) */
  objects?: ObjectStore;
  keyPrefix?: string;
  /** --service-cluster-ip-range: at most one CIDR per IP family */
  serviceClusterIpRanges?: string[];
  /** --service-node-port-range */
  serviceNodePortRange?: { base: number; size: number };
  /** --feature-gates: a gated field is dropped from writes while its gate is off */
  featureGates?: Readonly<Record<string, boolean>>;
  /** who makes the request, for strategies that record the requester (CertificateSigningRequests) */
  user?: UserInfo;
  /** the write is a dry run: nothing outside the object may change either */
  dryRun?: boolean;
  /** work for when the write's outcome is known (stored: the object was written), such as giving back what a failed write took */
  onFinish?(finish: (stored: boolean) => Promise<void> | void): void;
}

export interface Strategy<T = ApiObject> {
  nameRule: NameRule;
  /** PUT of a missing object creates it */
  allowCreateOnUpdate: boolean;
  /** PUT without metadata.resourceVersion is accepted */
  allowUnconditionalUpdate: boolean;
  /** metadata.generation starts at 1 and grows with every change outside metadata and status */
  generation: boolean;
  /** status changes move metadata.generation too (custom resources: every change outside metadata does; through
   *  the main resource status only changes where there is no status subresource) */
  generationCountsStatus?: boolean;
  /** fields usable in field selectors beyond metadata.name and metadata.namespace */
  selectableFields: Record<string, (obj: T) => string | undefined>;
  /** the reference's defaults, applied as the object is decoded (before admission) and again to what a mutating
   *  webhook returns */
  defaults?(obj: T, ctx: DefaultingContext): void;
  /** after mutating admission: what the server sets on a new object (initial status, allocations, the requester) */
  prepareForCreate?(obj: T, ctx: StrategyContext): void | Promise<void>;
  /** after mutating admission: what an update through the main resource may not change, or what the server keeps up */
  prepareForUpdate?(obj: T, old: T, ctx: StrategyContext): void | Promise<void>;
  /** after mutating admission, for a write through a subresource that changes fields of its own (status, a CSR's
   *  approval): what the server keeps up there */
  prepareForSubresourceUpdate?(subresource: string, obj: T, old: T, ctx: StrategyContext): void | Promise<void>;
  /** the rules of a new object (the context names the API domain, for rules about its group names) */
  validate?(obj: T, ctx: DefaultingContext): StatusCause[];
  /** where this kind holds pod specs, by field path: the server's own pod policy (--allow-privileged) applies to them */
  podSpecs?(obj: T): Array<[string, PodSpec | undefined]>;
  validateUpdate?(obj: T, old: T, ctx: DefaultingContext): StatusCause[];
  /** what a valid create (old absent) or update through the main resource warns the client of, as the reference's WarningsOnCreate/Update */
  warnings?(obj: T, old: T | undefined, ctx: DefaultingContext): string[];
  /** rules for a write through the status subresource (the main update rules do not apply there) */
  validateStatusUpdate?(obj: T, old: T): StatusCause[];
  /** rules for a write through another subresource that changes fields of its own (a CSR's approval) */
  validateSubresourceUpdate?(subresource: string, obj: T, old: T): StatusCause[];
  /**
   * checks that take steps of their own, run after the rules above for the same write and given what those found (a
   * custom resource's validation rules, which give the event loop back between rules)
   */
  validateInSteps?(obj: T, old: T | undefined, subresource: string, found: StatusCause[]): Promise<StatusCause[]>;
  /** finalizers still to run before the object may go (default: metadata.finalizers) */
  pendingFinalizers?(obj: T): boolean;
  /** called when deletion starts (deletionTimestamp and deletionGracePeriodSeconds set) */
  prepareForDelete?(obj: T): void;
  /** called once the object is gone from storage, with its last state */
  afterDelete?(obj: T, ctx: StrategyContext): Promise<void> | void;
  /** a delete that removes the object at once answers with the object rather than a Status */
  returnDeletedObject?: boolean;
  /** graceful deletion (pods alone among the built-in kinds): the grace period a delete gives the object, from the one
   *  asked (undefined when none) and the object; kinds without it have none, whatever a delete asks (0 deletes at once) */
  gracePeriod?(obj: T, requested: number | undefined): number;
  /** a delete without a propagation policy orphans the dependents (the older kinds' default); otherwise they go in the background */
  orphanDependentsByDefault?: boolean;
  /** said in a warning on a delete (or deletecollection) that leaves the dependents to that default */
  orphanByDefaultWarning?: string;
  /** a create keeps the status it is given (a Node: its agent registers it with its status), where other kinds start with none */
  keepsStatusOnCreate?: boolean;
}

export const defineStrategy = <T = ApiObject>(s: Partial<Strategy<T>>): Strategy<T> => ({
  nameRule: 'dns-subdomain',
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  generation: true,
  selectableFields: {},
  ...s,
});

export const defaultStrategy: Strategy = defineStrategy({});

/** a field selector's value: the field at a dotted path as a string, '' when absent (as the reference reads it) */
export const fieldAt = (path: string) => {
  // split once: the getter runs per object per watcher on every event
  const steps = path.split('.');
  return (obj: unknown): string => {
    let x = obj;
    for (const k of steps) x = x && typeof x === 'object' ? (x as Record<string, unknown>)[k] : undefined;
    return x === undefined || x === null ? '' : String(x);
  };
};

/** selectable fields read straight from their paths */
export const selectable = (...paths: string[]) => Object.fromEntries(paths.map(p => [p, fieldAt(p)]));
