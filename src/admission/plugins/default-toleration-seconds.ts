// DefaultTolerationSeconds: a new pod tolerates a not-ready or unreachable node for a while (300 s unless
// configured) before it is evicted, unless it already says how long.
import { definePlugin } from '../types.js';
import type { Toleration } from '../../api/types/core-v1.js';
import { isWriteOf, podSpec, tolerates } from '../util.js';

export interface DefaultTolerationConfig { notReadySeconds?: number; unreachableSeconds?: number }

export default definePlugin({
  name: 'DefaultTolerationSeconds',
  defaultOn: true,
  create: ({ names, config }) => {
    const c = (config ?? {}) as DefaultTolerationConfig;
    const defaults = [
      { key: `node.${names.labelDomain}/not-ready`, seconds: c.notReadySeconds ?? 300 },
      { key: `node.${names.labelDomain}/unreachable`, seconds: c.unreachableSeconds ?? 300 },
    ];
    return {
      name: 'DefaultTolerationSeconds',
      operations: ['CREATE'],
      resources: [['', 'pods']],
      admit(a) {
        if (!isWriteOf(a, '', 'pods')) return;
        const spec = podSpec(a.object);
        const tolerations: Toleration[] = Array.isArray(spec.tolerations) ? spec.tolerations : [];
        for (const { key, seconds } of defaults)
          if (!tolerations.some(t => tolerates(t, key, 'NoExecute')))
            tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds });
        spec.tolerations = tolerations;
      },
    };
  },
});
