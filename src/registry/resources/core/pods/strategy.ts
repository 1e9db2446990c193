// Pods: the reference's defaults, Pending with its QoS class on create, the spec's validation and the few fields that
// may change after create; a pod bound to a node is deleted gracefully (its node agent confirms).
import type { Stored } from '../../../../api/meta.js';
import type { Pod, PodSpec, PodStatus } from '../../../../api/types/core-v1.js';
import { defineStrategy, selectable } from '../../../strategy.js';
import { defaultPodSpec } from '../../../defaults/pod-spec.js';
import { fill } from '../../../defaults/fill.js';
import { validatePodSpec } from '../../../validation/pod-spec.js';
import { validatePodSpecUpdate } from './validation.js';

/** a pod (not a template) also gets service links, and requests equal to its limits where requests are unset */
export function defaultPod(pod: Pod) {
  withUnsetConditionTimes(pod);
  withPodIps(pod);
  const spec = pod.spec;
  if (!spec || typeof spec !== 'object') return;
  defaultPodSpec(spec);
  fill(spec, { enableServiceLinks: true });
  for (const list of [spec.containers, spec.initContainers])
    for (const c of Array.isArray(list) ? list : []) {
      const limits = c?.resources?.limits;
      if (!limits || typeof limits !== 'object') continue;
      const requests = c.resources!.requests ??= {};
      for (const [r, q] of Object.entries(limits)) if (requests[r] === undefined) requests[r] = q;
    }
}

/**
 * a condition's times are structs without omitempty in the reference, so its JSON carries them as null while unset
 * (`"lastProbeTime": null` on every pod condition the kubelet and the scheduler write); a merge patch cannot write a
 * null, so the server fills them as it decodes
 */
function withUnsetConditionTimes(pod: Pod) {
  const conditions = pod.status?.conditions;
  if (!Array.isArray(conditions)) return;
  for (const c of conditions) {
    if (!c || typeof c !== 'object') continue;
    const times = c as { lastProbeTime?: string | null; lastTransitionTime?: string | null };
    if (times.lastProbeTime === undefined) times.lastProbeTime = null;
    if (times.lastTransitionTime === undefined) times.lastTransitionTime = null;
  }
}

/**
 * status.podIP and status.podIPs say the same, as the reference's conversion keeps them: a writer that sets only the
 * single field (an older agent, a test patching a pod's status) fills the list, and where they differ the single field
 * wins; a writer that sets only the list fills the single field from its first address
 */
function withPodIps(pod: Pod) {
  const status = pod.status;
  if (!status || typeof status !== 'object') return;
  const { podIP, podIPs } = status;
  if (podIP) {
    if (!podIPs?.length || podIPs[0]?.ip !== podIP) status.podIPs = [{ ip: podIP }];
  } else if (podIPs?.[0]?.ip) {
    status.podIP = podIPs[0].ip;
  }
}

type QosClass = NonNullable<PodStatus['qosClass']>;

function qosClass(spec: PodSpec | undefined): QosClass {
  const containers = [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])];
  let guaranteed = containers.length > 0, bounded = false;
  for (const c of containers) {
    const req = c.resources?.requests ?? {}, lim = c.resources?.limits ?? {};
    if (Object.keys(req).length || Object.keys(lim).length) bounded = true;
    for (const r of ['cpu', 'memory']) {
      const l = lim[r], q = req[r] ?? l;
      if (!l || q !== l) guaranteed = false;
    }
  }
  return guaranteed ? 'Guaranteed' : bounded ? 'Burstable' : 'BestEffort';
}

export const strategy = defineStrategy<Stored<Pod>>({
  generation: false,
  returnDeletedObject: true,
  podSpecs: pod => [['spec', pod.spec]],
  selectableFields: selectable('spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName',
    'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'),
  defaults: defaultPod,
  prepareForCreate(pod) {
    pod.status = { phase: 'Pending', qosClass: qosClass(pod.spec) };
    // a gated pod says why it waits from the start (kubectl shows SchedulingGated), as the reference's server writes
    if (pod.spec?.schedulingGates?.length)
      pod.status.conditions = [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: null,
        reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }];
  },
  validate: pod => validatePodSpec('spec', pod.spec),
  validateUpdate: (pod, old) => [...validatePodSpec('spec', pod.spec), ...validatePodSpecUpdate(pod.spec, old.spec)],
  // as the reference: the asked period or the pod's own, none for a pod never scheduled or already finished
  gracePeriod: (pod, requested) => (!pod.spec?.nodeName || ['Succeeded', 'Failed'].includes(pod.status?.phase ?? '') ? 0
    : requested ?? pod.spec.terminationGracePeriodSeconds ?? 30),
});
