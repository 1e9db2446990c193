// ControllerRevisions: the template history of StatefulSets and DaemonSets. A revision holds the patch that
// restores its template (what `kubectl rollout undo` applies), is named `<owner>-<hash>` with the hash also
// in the `controller-revision-hash` label of the pods made from it, and carries a growing revision number.
import { isAlreadyExists } from '../client/rest-client.js';
import { claimOwned, controllerRef, ignoreNotFound, liveOwner, semanticJson, templateHash } from './common.js';
import type { ControllerContext } from './context.js';
import type { ControllerRevision, LabelSelector, Obj, PodTemplateSpec, ResourceRef } from './types.js';

export const revisionHashLabel = 'controller-revision-hash';

interface Owner extends Obj { spec: { template: PodTemplateSpec; selector: LabelSelector; revisionHistoryLimit?: number }; status?: { collisionCount?: number } }

/** the patch a revision stores: the whole template, replacing the current one */
export const revisionData = (o: Owner) => ({ spec: { template: { ...structuredClone(o.spec.template), $patch: 'replace' } } });

/** the owner's revisions (adopting orphans that match), oldest first */
export async function ownedRevisions(ctx: ControllerContext, owner: Owner, kind: { kind: string; apiVersion: string },
  ownerRef: ResourceRef<Obj>, candidates: ControllerRevision[]): Promise<ControllerRevision[]> {
  const claimed = await claimOwned(ctx, ctx.refs.controllerRevisions, owner, kind, owner.spec.selector, candidates, liveOwner(ctx, ownerRef, owner));
  return claimed.sort((a, b) => a.revision - b.revision);
}

/**
 * The revision of the owner's current template: an existing one with the same data (renumbered to be the
 * newest if it is an older one coming back), or a new one. Returns it and the collision count to record.
 */
export async function currentRevision(ctx: ControllerContext, owner: Owner, kind: { kind: string; apiVersion: string }, revisions: ControllerRevision[])
  : Promise<{ revision: ControllerRevision; collisionCount: number }> {
  const data = revisionData(owner);
  const wanted = semanticJson(data);
  const next = Math.max(0, ...revisions.map((r) => r.revision)) + 1;
  const client = ctx.client.resource(ctx.refs.controllerRevisions, owner.metadata.namespace);
  const same = revisions.filter((r) => semanticJson(r.data) === wanted);
  let collisionCount = owner.status?.collisionCount ?? 0;
  if (same.length) {
    const found = same.at(-1)!;
    if (found === revisions.at(-1)) return { revision: found, collisionCount };
    return { revision: await client.update({ ...found, revision: next }), collisionCount };
  }
  for (let attempt = 0; attempt < 10; attempt++) {
    const hash = templateHash(data, collisionCount);
    const revision: ControllerRevision = {
      apiVersion: 'apps/v1', kind: 'ControllerRevision',
      metadata: {
        name: `${owner.metadata.name}-${hash}`, namespace: owner.metadata.namespace,
        labels: { ...(owner.spec.template.metadata?.labels ?? {}), [`controller.${ctx.names.labelDomain}/hash`]: hash },
        ownerReferences: [controllerRef(owner, kind.kind, kind.apiVersion)],
      },
      data, revision: next,
    };
    try {
      return { revision: await client.create(revision), collisionCount };
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const existing = await client.get(revision.metadata.name!);
      if (semanticJson(existing.data) === wanted && existing.metadata.ownerReferences?.some((r) => r.uid === owner.metadata.uid)) {
        return { revision: existing, collisionCount };
      }
      collisionCount++;
    }
  }
  throw new Error('too many ControllerRevision name collisions');
}

/** the template a revision restores */
export const templateOf = (r: ControllerRevision): PodTemplateSpec => {
  const { $patch: _p, ...template } = (r.data as { spec: { template: PodTemplateSpec & { $patch?: string } } }).spec.template;
  return template;
};

/** deletes the oldest revisions beyond the history limit that no live pod or status names */
export async function trimHistory(ctx: ControllerContext, owner: Owner, revisions: ControllerRevision[], inUse: Set<string>) {
  const limit = owner.spec.revisionHistoryLimit ?? 10;
  const unused = revisions.filter((r) => !inUse.has(r.metadata.name!));
  const client = ctx.client.resource(ctx.refs.controllerRevisions, owner.metadata.namespace);
  for (const r of unused.slice(0, Math.max(0, unused.length - limit))) {
    await client.delete(r.metadata.name!, { preconditions: { uid: r.metadata.uid } }).catch(ignoreNotFound);
  }
}
