// The admission chain bound to one request: mutating plugins in order, then validating plugins in order.
import type { ApiObject } from '../api/meta.js';
import type { AdmissionAttributes, AdmissionPlugin, Operation, AdmissionHooks } from '../api/admission.js';
import { extend } from '../util/objects.js';

export type RequestAttributes = Omit<AdmissionAttributes, 'operation' | 'object' | 'oldObject'>;
export type Phase = 'admit' | 'validate';

const handles = (p: AdmissionPlugin, a: AdmissionAttributes) => (!p.operations || p.operations.includes(a.operation))
  && (!p.resources || p.resources.some(([group, resource]) => a.group === group && a.resource === resource));

export function admissionFor(plugins: AdmissionPlugin[], base: RequestAttributes): AdmissionHooks {
  const attrs = (operation: Operation, object?: ApiObject, oldObject?: ApiObject): AdmissionAttributes =>
    extend(base, { operation, object, oldObject, name: base.name || object?.metadata?.name || oldObject?.metadata?.name || '' });
  return {
    async mutate(op, obj, old) {
      // one set of attributes for the phase: plugins change the object itself, in place
      const a = attrs(op, obj, old);
      for (const p of plugins) if (p.admit && handles(p, a)) await p.admit(a);
    },
    async validate(op, obj, old) {
      const a = attrs(op, obj, old);
      for (const p of plugins) if (p.validate && handles(p, a)) await p.validate(a);
    },
  };
}

/** what is told of each plugin's call and of each whole phase: how long it took, and the error when it refused */
export interface AdmissionObserver {
  plugin(p: AdmissionPlugin, phase: Phase, operation: Operation, seconds: number, error: unknown): void;
  phase(phase: Phase, operation: Operation, seconds: number, error: unknown): void;
}

const since = (startedAt: number) => (performance.now() - startedAt) / 1000;

/** the plugins as one plugin that tells the observer of each call and phase (the admission metrics); a plugin that
 *  answers at once is not made to wait a turn of the event loop */
export function observedChain(plugins: AdmissionPlugin[], observer: AdmissionObserver): AdmissionPlugin {
  const run = async (phase: Phase, a: AdmissionAttributes) => {
    const startedAt = performance.now();
    try {
      for (const p of plugins) {
        const f = phase === 'admit' ? p.admit : p.validate;
        if (!f || !handles(p, a)) continue;
        const calledAt = performance.now();
        try {
          const pending = f.call(p, a);
          if (pending) await pending;
        } catch (e) {
          observer.plugin(p, phase, a.operation, since(calledAt), e);
          throw e;
        }
        observer.plugin(p, phase, a.operation, since(calledAt), undefined);
      }
    } catch (e) {
      observer.phase(phase, a.operation, since(startedAt), e);
      throw e;
    }
    observer.phase(phase, a.operation, since(startedAt), undefined);
  };
  return { name: 'admission', admit: a => run('admit', a), validate: a => run('validate', a) };
}
