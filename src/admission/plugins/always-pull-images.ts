// AlwaysPullImages: every container of a new pod, and every container given a new image, pulls its image
// each time it starts, so a node's cached image cannot be used by a pod without the pull credentials.
import { definePlugin } from '../types.js';
import { isWriteOf, podSpec, refuse, type AdmittedPodSpec } from '../util.js';
import type { AdmissionAttributes } from '../../api/admission.js';
import type { Container, EphemeralContainer } from '../../api/types/core-v1.js';

const allContainers = (spec: AdmittedPodSpec) => (['initContainers', 'containers', 'ephemeralContainers'] as const)
  .flatMap(list => (Array.isArray(spec[list]) ? spec[list] as Array<Container | EphemeralContainer> : []).map((c, i) => ({ c, path: `spec.${list}[${i}].imagePullPolicy` })));

/** on update only images that were not there before need the policy */
function concerned(a: Readonly<AdmissionAttributes>) {
  const before = new Set(allContainers(podSpec(a.oldObject)).map(({ c }) => c?.image));
  return allContainers(podSpec(a.object)).filter(({ c }) => c && (a.operation === 'CREATE' || !before.has(c.image)));
}

const applies = (a: Readonly<AdmissionAttributes>) =>
  a.group === '' && a.resource === 'pods' && !!a.object && (a.subresource === '' || a.subresource === 'ephemeralcontainers');

export default definePlugin({
  name: 'AlwaysPullImages',
  defaultOn: false,
  create: () => ({
    name: 'AlwaysPullImages',
    operations: ['CREATE', 'UPDATE'],
    admit(a) {
      if (applies(a)) for (const { c } of concerned(a)) c.imagePullPolicy = 'Always';
    },
    validate(a) {
      if (!applies(a)) return;
      for (const { c, path } of concerned(a))
        if (c.imagePullPolicy !== 'Always') throw refuse(a, `${path}: Unsupported value: "${c.imagePullPolicy}": supported values: "Always"`);
    },
  }),
});
