// SecurityContextDeny (deprecated): pods may not choose their user, groups or SELinux context.
import { definePlugin } from '../types.js';
import type { PodSecurityContext } from '../../api/types/core-v1.js';
import { isWriteOf, podSpec, refuse } from '../util.js';

export default definePlugin({
  name: 'SecurityContextDeny',
  defaultOn: false,
  create: () => ({
    name: 'SecurityContextDeny',
    operations: ['CREATE', 'UPDATE'],
    validate(a) {
      if (!isWriteOf(a, '', 'pods')) return;
      const spec = podSpec(a.object);
      const psc: PodSecurityContext = spec.securityContext ?? {};
      if (psc.supplementalGroups !== undefined) throw refuse(a, 'pod.Spec.SecurityContext.SupplementalGroups is forbidden');
      if (psc.seLinuxOptions !== undefined) throw refuse(a, 'pod.Spec.SecurityContext.SELinuxOptions is forbidden');
      if (psc.runAsUser !== undefined) throw refuse(a, 'pod.Spec.SecurityContext.RunAsUser is forbidden');
      if (psc.fsGroup !== undefined) throw refuse(a, 'pod.Spec.SecurityContext.FSGroup is forbidden');
      for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
        if (c?.securityContext?.seLinuxOptions !== undefined) throw refuse(a, 'SecurityContext.SELinuxOptions is forbidden');
        if (c?.securityContext?.runAsUser !== undefined) throw refuse(a, 'SecurityContext.RunAsUser is forbidden');
      }
    },
  }),
});
