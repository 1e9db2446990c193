import type { ApiObject } from '../../api/meta.js';
import { defineStrategy, selectable } from '../strategy.js';
import { defaultPod } from '../defaults/pod.js';
import type { Causes } from '../validation/fields.js';
import { validatePodSpec, validatePodSpecUpdate } from '../validation/pod.js';

const validatePod = (obj: ApiObject): Causes => validatePodSpec('spec', (obj as any).spec);

/** pods start Pending; a pod bound to a node is deleted gracefully (its node agent confirms) */
export const pods = defineStrategy({
  generation: false,
  returnDeletedObject: true,
  selectableFields: selectable('spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName',
    'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'),
  prepareForCreate(obj: any) {
    defaultPod(obj);
    obj.status = { phase: 'Pending', qosClass: qosClass(obj.spec) };
  },
  prepareForUpdate(obj: any) {
    defaultPod(obj);
  },
  validate: validatePod,
  validateUpdate: (obj: any, old: any) => [...validatePod(obj), ...validatePodSpecUpdate(obj.spec ?? {}, old.spec ?? {})],
  defaultGracePeriod(obj: any) {
    if (!obj.spec?.nodeName) return 0;
    return obj.spec?.terminationGracePeriodSeconds ?? 30;
  },
});

function qosClass(spec: any): string {
  const containers = [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])];
  let guaranteed = containers.length > 0, any = false;
  for (const c of containers) {
    const req = c.resources?.requests ?? {}, lim = c.resources?.limits ?? {};
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const r of ['cpu', 'memory']) {
      const l = lim[r], q = req[r] ?? l;
      if (!l || q !== l) guaranteed = false;
    }
  }
  return guaranteed ? 'Guaranteed' : any ? 'Burstable' : 'BestEffort';
}
