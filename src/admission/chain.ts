// The admission chain bound to one request: mutating plugins in order, then validating plugins in order.
import type { ApiObject } from '../api/meta.js';
import type { AdmissionAttributes, AdmissionPlugin, Operation, AdmissionHooks } from '../api/admission.js';

export type RequestAttributes = Omit<AdmissionAttributes, 'operation' | 'object' | 'oldObject'>;

export function admissionFor(plugins: AdmissionPlugin[], base: RequestAttributes): AdmissionHooks {
  const handles = (p: AdmissionPlugin, op: Operation) => !p.operations || p.operations.includes(op);
  // one set of attributes for both phases of the same write (plugins change the object, never the attributes)
  let last: AdmissionAttributes | undefined;
  const attrs = (operation: Operation, object?: ApiObject, oldObject?: ApiObject): AdmissionAttributes => {
    if (last && last.operation === operation && last.object === object && last.oldObject === oldObject
      && last.name === (base.name || object?.metadata.name || oldObject?.metadata.name || '')) return last;
    return (last = { ...base, operation, object, oldObject, name: base.name || object?.metadata.name || oldObject?.metadata.name || '' });
  };
  return {
    async mutate(op, obj, old) {
      // one set of attributes for the phase: plugins change the object itself, in place
      const a = attrs(op, obj, old);
      for (const p of plugins) if (p.admit && handles(p, op)) await p.admit(a);
    },
    async validate(op, obj, old) {
      const a = attrs(op, obj, old);
      for (const p of plugins) if (p.validate && handles(p, op)) await p.validate(a);
    },
  };
}
