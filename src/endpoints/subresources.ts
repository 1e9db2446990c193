// Subresources that act on a part of their parent: scale (the replica count as an autoscaling Scale), binding
// (assigns a pod to a node) and eviction (a delete that respects disruption budgets).
import type { ApiObject } from '../api/meta.js';
import { nowTimestamp } from '../api/meta.js';
import type { RequestContext } from '../api/request.js';
import { readBody, readObject, mediaType, parseJson } from './body.js';
import { sendObject, sendStatus } from './respond.js';
import { badRequest, conflict, invalid, statusBody, successStatus, tooManyRequests, unsupportedMediaType, ApiError } from '../api/status.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { applyStrategicMergePatch } from '../patch/strategic-merge.js';
import { labelSelectorFromObject, matchLabels, selectorToString } from '../api/selectors.js';
import type { ScalePaths } from '../registry/types.js';
import { admission, parseDryRun, type Scope } from './scope.js';

const defaultScalePaths: ScalePaths = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' };

const steps = (path: string) => path.replace(/^\./, '').split('.').filter(Boolean);
const getPath = (obj: unknown, path: string): any => steps(path).reduce((o: any, k) => o?.[k], obj);
function setPath(obj: any, path: string, value: unknown) {
  const keys = steps(path);
  let o = obj;
  for (const k of keys.slice(0, -1)) o = (o[k] ??= {});
  o[keys[keys.length - 1]] = value;
}

/** a label selector as the Scale's status carries it: the string form of a LabelSelector object or a plain map */
function selectorString(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  const o = v as Record<string, unknown>;
  const asObject = 'matchLabels' in o || 'matchExpressions' in o ? o : { matchLabels: o };
  return selectorToString(labelSelectorFromObject(asObject as never));
}

export function scaleOf(scope: Scope, obj: ApiObject) {
  const paths = scope.info.subresources.scale?.scale ?? defaultScalePaths;
  const m = obj.metadata;
  const selector = paths.labelSelectorPath ? selectorString(getPath(obj, paths.labelSelectorPath)) : undefined;
  return {
    kind: 'Scale', apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: getPath(obj, paths.specReplicasPath) ?? 0 },
    status: { replicas: getPath(obj, paths.statusReplicasPath) ?? 0, ...(selector ? { selector } : {}) },
  };
}

export async function getScale(ctx: RequestContext, scope: Scope, namespace: string, name: string) {
  sendObject(ctx, 200, scaleOf(scope, await scope.store.get(namespace, name)));
}

const patchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];

/** PUT or PATCH of a Scale: the parent's replica count changes, nothing else */
export async function writeScale(ctx: RequestContext, scope: Scope, namespace: string, name: string) {
  const paths = scope.info.subresources.scale?.scale ?? defaultScalePaths;
  let change: (scale: ReturnType<typeof scaleOf>) => any;
  if (ctx.method === 'PATCH') {
    const type = mediaType(ctx);
    if (!patchTypes.includes(type)) throw unsupportedMediaType(type, patchTypes);
    const doc = parseJson((await readBody(ctx)).toString('utf8'));
    change = scale => type === 'application/json-patch+json' ? applyJsonPatch(scale, doc)
      : type === 'application/merge-patch+json' ? applyMergePatch(scale, doc) : applyStrategicMergePatch(scale, doc, undefined);
  } else {
    const { value } = await readObject(ctx, scope.names);
    const body = value as any;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a Scale object');
    if (body.kind !== undefined && body.kind !== 'Scale') throw badRequest(`the kind in the body (${body.kind}) is not Scale`);
    change = () => body;
  }
  const dryRun = parseDryRun(ctx.query.getAll('dryRun'));
  const { obj } = await scope.store.guaranteedUpdate(namespace, name, '', current => {
    if (!current) return { metadata: { name } } as ApiObject;   // the store answers 404
    const wanted = change(scaleOf(scope, current));
    const replicas = wanted?.spec?.replicas;
    if (!Number.isInteger(replicas) || replicas < 0)
      throw invalid('autoscaling', 'Scale', name, [{ reason: 'FieldValueInvalid', field: 'spec.replicas',
        message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0` }]);
    const rv = wanted?.metadata?.resourceVersion;
    if (rv && rv !== current.metadata.resourceVersion)
      throw conflict(scope.info.group, scope.info.resource, name, 'the object has been modified; please apply your changes to the latest version and try again');
    setPath(current, paths.specReplicasPath, replicas);
    return current;
  }, admission(ctx, scope, namespace, name, dryRun), { dryRun });
  sendObject(ctx, 200, scaleOf(scope, obj));
}

/** binding: the pod is assigned to the target node, once */
export async function bind(ctx: RequestContext, scope: Scope, namespace: string, name: string) {
  const { value } = await readObject(ctx, scope.names);
  const body = value as any;
  const podName = name || body?.metadata?.name;
  if (!podName) throw badRequest('the binding names no pod: set metadata.name');
  const node = body?.target?.name;
  if (!node) throw invalid('', 'Binding', podName, [{ reason: 'FieldValueRequired', field: 'target.name', message: 'Required value' }]);
  if (body?.target?.kind && body.target.kind !== 'Node')
    throw invalid('', 'Binding', podName, [{ reason: 'FieldValueNotSupported', field: 'target.kind', message: `Unsupported value: "${body.target.kind}": supported values: "Node"` }]);
  const dryRun = parseDryRun(ctx.query.getAll('dryRun'));
  await scope.store.guaranteedUpdate(namespace, podName, 'binding', current => {
    if (!current) return { metadata: { name: podName } } as ApiObject;
    const spec = ((current as any).spec ??= {});
    if (current.metadata.deletionTimestamp) throw conflict('', 'pods', podName, 'pod is being deleted, cannot be assigned to a host');
    if (spec.nodeName) throw conflict('', 'pods', podName, `pod ${podName} is already assigned to node "${spec.nodeName}"`);
    spec.nodeName = node;
    const status = ((current as any).status ??= {});
    const conditions = (status.conditions ?? []).filter((c: any) => c.type !== 'PodScheduled');
    status.conditions = [...conditions, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: nowTimestamp() }];
    return current;
  }, admission(ctx, scope, namespace, podName, dryRun), { dryRun });
  sendStatus(ctx, { ...successStatus(), code: 201 });
}

/** eviction: a delete of the pod unless a disruption budget that selects it allows no disruption */
export async function evict(ctx: RequestContext, scope: Scope, namespace: string, name: string,
  budgets: () => Promise<ApiObject[]>) {
  const { value } = await readObject(ctx, scope.names);
  const body = (value ?? {}) as any;
  if (body.metadata?.name && body.metadata.name !== name) throw badRequest(`name in URL does not match name in Eviction object`);
  const pod = await scope.store.get(namespace, name);
  const options = body.deleteOptions ?? {};
  const dryRun = parseDryRun([...ctx.query.getAll('dryRun'), ...(Array.isArray(options.dryRun) ? options.dryRun : [])]);
  // a pod that has finished or is already going needs no budget
  const phase = (pod as any).status?.phase;
  if (!pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') {
    const matching = (await budgets()).filter(pdb => {
      const sel = (pdb as any).spec?.selector;
      return sel && matchLabels(labelSelectorFromObject(sel), pod.metadata.labels);
    });
    if (matching.length > 1) throw new ApiError(statusBody(500, 'InternalError', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.'));
    const pdb = matching[0] as any;
    if (pdb && !((pdb.status?.disruptionsAllowed ?? 0) > 0)) {
      const e = tooManyRequests('Cannot evict pod as it would violate the pod\'s disruption budget.', 0);
      e.status.details = { causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${pdb.metadata.name} needs ${pdb.status?.desiredHealthy ?? 0} healthy pods and has ${pdb.status?.currentHealthy ?? 0} currently` }] };
      throw e;
    }
  }
  await scope.store.delete(namespace, name, {
    gracePeriodSeconds: options.gracePeriodSeconds, preconditions: options.preconditions, dryRun,
  }, admission(ctx, scope, namespace, name, dryRun));
  sendStatus(ctx, { ...successStatus(), code: 201 });
}
