// emptyDir: a folder of the pod's own, on the node's disk or (medium Memory) on a tmpfs sized by the
// volume's sizeLimit, else the pod's memory limit, else the node's allocatable memory.

import { chmod, chown, mkdir } from 'node:fs/promises';
import type { AgentPod, Quantity } from '../objects.js';
import { amount, podLimit } from '../resources.js';
import type { VolumeKind } from './types.js';

export function memoryVolumeSize(pod: AgentPod, sizeLimit: Quantity | undefined, allocatable: Record<string, number>): number {
  const node = allocatable.memory ?? 0;
  const podMemory = podLimit(pod, 'memory') || node;
  const limit = amount('memory', sizeLimit);
  return Math.max(1, limit > 0 ? Math.min(limit, podMemory || limit) : podMemory);
}

export const emptyDirVolume: VolumeKind = {
  folder: 'empty-dir',
  async setUp(volume, pod, dir, ctx) {
    const medium = volume.emptyDir?.medium ?? '';
    if (medium !== '' && medium !== 'Memory') throw new Error(`emptyDir medium ${JSON.stringify(medium)} is not supported (only the default or Memory)`);
    await mkdir(dir, { recursive: true });
    if (medium === 'Memory' && !(await ctx.mounter.mountsUnder(dir)).includes(dir)) {
      await ctx.mounter.mount('tmpfs', dir, 'tmpfs', ctx.sizeMemoryVolumes ? [`size=${memoryVolumeSize(pod, volume.emptyDir?.sizeLimit, ctx.allocatable)}`] : []);
    }
    // open to every user of the pod; with fsGroup, owned by that group and inherited by what is created in it
    const gid = pod.spec.securityContext?.fsGroup;
    if (gid !== undefined) {
      await chown(dir, -1, gid);
      await chmod(dir, 0o2777);
    } else {
      await chmod(dir, 0o777);
    }
    return { path: dir, readOnly: false };
  },
};
