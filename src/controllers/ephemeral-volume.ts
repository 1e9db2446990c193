// The ephemeral volume controller: each generic ephemeral volume of a pod gets its claim, `<pod>-<volume>`, made
// from the volume's claim template and owned by the pod (so the claim goes with it). A claim of that name the pod
// does not own is not taken over: the pod is told so by an event, and waits.
import { ephemeralClaimName, ephemeralClaimNotForPod } from '../api/volumes.js';
import { isAlreadyExists, serverMessage } from '../client/rest-client.js';
import { controllerRef, keyOf, startQueue } from './common.js';
import type { Controller } from './context.js';
import type { Pod, PersistentVolumeClaim } from './types.js';

export const ephemeralVolumeController: Controller = {
  name: 'ephemeral-volume',
  component: 'ephemeral_volume',
  serviceAccount: 'ephemeral-volume-controller',
  start(ctx) {
    const pods = ctx.informers.informer(ctx.refs.pods);
    const claims = ctx.informers.informer(ctx.refs.persistentVolumeClaims);
    pods.addIndex('ephemeral-claims', (p) => (p.spec.volumes ?? []).filter((v) => v.ephemeral).map((v) => `${p.metadata.namespace}/${ephemeralClaimName(p.metadata.name!, v)}`));

    async function ensureClaim(pod: Pod, volume: NonNullable<Pod['spec']['volumes']>[number]) {
      const name = ephemeralClaimName(pod.metadata.name!, volume);
      const existing = claims.get(`${pod.metadata.namespace}/${name}`);
      if (existing) {
        const notOwned = ephemeralClaimNotForPod(pod, existing);
        if (notOwned) throw new Error(notOwned);
        return;
      }
      const template = volume.ephemeral!.volumeClaimTemplate;
      const claim: PersistentVolumeClaim = {
        apiVersion: 'v1', kind: 'PersistentVolumeClaim',
        metadata: {
          name, namespace: pod.metadata.namespace, ownerReferences: [controllerRef(pod, 'Pod', 'v1')],
          ...(template?.metadata?.labels ? { labels: template.metadata.labels } : {}),
          ...(template?.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
        },
        spec: template?.spec ?? {},
      };
      try {
        await ctx.client.resource(ctx.refs.persistentVolumeClaims, pod.metadata.namespace).create(claim);
      } catch (e) {
        // made a moment ago (by this controller, or by someone else): its arrival in the cache syncs the pod again
        if (isAlreadyExists(e)) return;
        throw new Error(`PVC creation failed: ${serverMessage(e)}`);
      }
    }

    const queue = startQueue(ctx, async (key) => {
      const pod = pods.get(key);
      if (!pod || pod.metadata.deletionTimestamp) return;
      for (const v of pod.spec.volumes ?? []) {
        if (!v.ephemeral) continue;
        try {
          await ensureClaim(pod, v);
        } catch (e) {
          ctx.recorder.event(pod, 'Warning', 'FailedBinding', `ephemeral volume ${v.name}: ${serverMessage(e)}`);
          throw e;
        }
      }
    });
    const podChanged = (p: Pod) => { if ((p.spec.volumes ?? []).some((v) => v.ephemeral)) queue.add(keyOf(p)); };
    pods.addHandler({ added: podChanged, updated: (_, p) => podChanged(p) });
    // a claim deleted while its pod lives is made again; a foreign claim that goes lets the pod's own be made
    const claimChanged = (c: PersistentVolumeClaim) => { for (const p of pods.byIndex('ephemeral-claims', keyOf(c))) queue.add(keyOf(p)); };
    claims.addHandler({ added: claimChanged, updated: (_, c) => claimChanged(c), deleted: claimChanged });
  },
};
