// The admission plugins the server knows, in the order they run. The flags select a set; the order lives here.
import type { AdmissionPluginSpec } from './types.js';
import namespaceLifecycle from './plugins/namespace-lifecycle.js';

export const admissionPlugins: readonly AdmissionPluginSpec[] = [
  namespaceLifecycle,
];

/** the enabled plugins: the defaults, plus those enabled, less those disabled; unknown names are refused */
export function selectPlugins(enable: string[], disable: string[]): AdmissionPluginSpec[] {
  const known = new Set(admissionPlugins.map(p => p.name));
  for (const n of [...enable, ...disable])
    if (!known.has(n)) throw new Error(`unknown admission plugin "${n}": known plugins are ${[...known].join(', ')}`);
  return admissionPlugins.filter(p => (p.defaultOn || enable.includes(p.name)) && !disable.includes(p.name));
}
