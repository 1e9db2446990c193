// What several layers read off a pod's status the same way: its conditions, and whether it is ready.
import type { Pod, PodCondition } from './types/core-v1.js';

export const podCondition = (p: Pod, type: string): PodCondition | undefined => p.status?.conditions?.find(c => c.type === type);

/** the pod's Ready condition is True */
export const podReady = (p: Pod) => podCondition(p, 'Ready')?.status === 'True';
