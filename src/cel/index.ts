// The CEL engine loads on first use: a server whose custom resources have no validation rules never pays for it.
import type { ValidationSchema } from '../schema/validate.js';

export type RulesEngine = typeof import('./rules.js');
let engine: RulesEngine | undefined;

export async function loadRules(): Promise<RulesEngine> {
  return (engine ??= await import('./rules.js'));
}

/** the engine when it has been loaded */
export const loadedRules = (): RulesEngine | undefined => engine;

/** whether any node of a schema has x-kubernetes-validations */
export function hasRules(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const s = schema as ValidationSchema;
  if (Array.isArray(s['x-kubernetes-validations']) && s['x-kubernetes-validations'].length) return true;
  return Object.values(s.properties ?? {}).some(hasRules) || hasRules(s.items) || hasRules(s.additionalProperties)
    || (['allOf', 'anyOf', 'oneOf'] as const).some(k => (s[k] ?? []).some(hasRules));
}

export type AdmissionCel = typeof import('./admission.js');
let admission: AdmissionCel | undefined;

/** the CEL of admission policies and match conditions, loaded when a request or an object first needs it */
export async function loadAdmissionCel(): Promise<AdmissionCel> {
  return (admission ??= await import('./admission.js'));
}

/** the admission CEL when it has been loaded */
export const loadedAdmissionCel = (): AdmissionCel | undefined => admission;
