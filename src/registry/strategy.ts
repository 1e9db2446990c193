// A strategy holds the per-resource hooks the generic store calls. Every hook is optional;
// defaultStrategy fills in the reference's common behaviour.
import type { ApiObject, StatusCause } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { KV } from '../storage/types.js';


export type NameRule = 'dns-subdomain' | 'dns-label' | 'path-segment';

export interface StrategyContext {
  /** the API domain's names, for strategies that set well-known labels */
  names: Naming;
  now: string;
  /** the storage and this resource's key prefix, for strategies that look at their kind's other objects (Service IPs and ports) */
  kv?: KV;
  keyPrefix?: string;
  /** --service-cluster-ip-range: at most one CIDR per IP family */
  serviceClusterIpRanges?: string[];
  /** --service-node-port-range */
  serviceNodePortRange?: { base: number; size: number };
  /** who makes the request, for strategies that record the requester (CertificateSigningRequests) */
  user?: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> };
}

export interface Strategy {
  nameRule: NameRule;
  /** PUT of a missing object creates it */
  allowCreateOnUpdate: boolean;
  /** PUT without metadata.resourceVersion is accepted */
  allowUnconditionalUpdate: boolean;
  /** metadata.generation starts at 1 and grows with every change outside metadata and status */
  generation: boolean;
  /** fields usable in field selectors beyond metadata.name and metadata.namespace */
  selectableFields: Record<string, (obj: any) => string | undefined>;
  prepareForCreate?(obj: ApiObject, ctx: StrategyContext): void | Promise<void>;
  prepareForUpdate?(obj: ApiObject, old: ApiObject, ctx: StrategyContext): void | Promise<void>;
  validate?(obj: ApiObject): StatusCause[];
  validateUpdate?(obj: ApiObject, old: ApiObject): StatusCause[];
  /** rules for a write through the status subresource (the main update rules do not apply there) */
  validateStatusUpdate?(obj: ApiObject, old: ApiObject): StatusCause[];
  /** finalizers still to run before the object may go (default: metadata.finalizers) */
  pendingFinalizers?(obj: ApiObject): boolean;
  /** called when deletion starts (deletionTimestamp set) */
  prepareForDelete?(obj: ApiObject): void;
  /** a delete that removes the object at once answers with the object rather than a Status */
  returnDeletedObject?: boolean;
  /** grace period for a delete without one in its options; undefined or 0 deletes at once */
  defaultGracePeriod?(obj: ApiObject): number | undefined;
}

export const defaultStrategy: Strategy = {
  nameRule: 'dns-subdomain',
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  generation: true,
  selectableFields: {},
};

export const defineStrategy = (s: Partial<Strategy>): Strategy => ({ ...defaultStrategy, ...s });

/** a field selector's value: the field at a dotted path as a string, '' when absent (as the reference reads it) */
export const fieldAt = (path: string) => (obj: any): string => {
  const v = path.split('.').reduce((x: any, k) => x?.[k], obj);
  return v === undefined || v === null ? '' : String(v);
};

/** selectable fields read straight from their paths */
export const selectable = (...paths: string[]) => Object.fromEntries(paths.map(p => [p, fieldAt(p)]));
