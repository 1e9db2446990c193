// The scale subresource: a resource's replica count as an autoscaling/v1 Scale. The workload kinds serve it, and so
// do custom resources that declare it (with their own paths of the counts and the selector).
import type { ApiObject } from '../../api/meta.js';
import type { AdmissionHooks } from '../../api/admission.js';
import type { Scale } from '../../api/types/autoscaling-v1.js';
import { scale as scaleSchema } from '../../api/schemas/autoscaling.js';
import type { LabelSelector } from '../../api/types/meta-v1.js';
import { badRequest, conflict, invalid } from '../../api/status.js';
import { labelSelectorFromObject, selectorToString } from '../../api/selectors.js';
import type { RestHandler, SubresourceDefinition, TableColumn } from '../types.js';
import { readWrite } from './define.js';
import { apply } from '../../apply/managed-fields.js';
import { fieldPathOf, parentManagedFields, scaleManagedFields } from '../../apply/scale-fields.js';
import { deepCopy } from '../../util/objects.js';
import { column } from './columns.js';

/** where a resource keeps what its scale subresource shows (JSON paths such as .spec.replicas) */
export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

const defaultPaths: ScalePaths = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' };

type Fields = Record<string, unknown>;
const steps = (path: string) => path.replace(/^\./, '').split('.').filter(Boolean);
const getPath = (obj: unknown, path: string): unknown =>
  steps(path).reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Fields)[k] : undefined), obj);
function setPath(obj: object, path: string, value: unknown) {
  const keys = steps(path);
  let o = obj as Fields;
  for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Fields;
  o[keys[keys.length - 1]] = value;
}

/** a label selector as the Scale's status carries it: the string form of a LabelSelector object or a plain map */
function selectorString(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  const o = v as Fields;
  const asObject = ('matchLabels' in o || 'matchExpressions' in o ? o : { matchLabels: o }) as LabelSelector;
  return selectorToString(labelSelectorFromObject(asObject));
}

const count = (v: unknown) => (typeof v === 'number' ? v : 0);

export function scaleOf(obj: ApiObject, paths: ScalePaths): Scale {
  const m = obj.metadata;
  const selector = paths.labelSelectorPath ? selectorString(getPath(obj, paths.labelSelectorPath)) : undefined;
  return {
    kind: 'Scale', apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: count(getPath(obj, paths.specReplicasPath)) },
    status: { replicas: count(getPath(obj, paths.statusReplicasPath)), ...(selector ? { selector } : {}) },
  };
}

/** a replica count a Scale may ask for, or the reference's 422 */
function checkReplicas(replicas: unknown, name: string): number {
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)
    throw invalid('autoscaling', 'Scale', name, [{ reason: 'FieldValueInvalid', field: 'spec.replicas',
      message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0` }]);
  return replicas;
}

/**
 * Admission of a write through the scale subresource, as the reference admits it: the plugins and webhooks see the
 * Scales (autoscaling/v1) before and after, not the parent; the replica count a mutating one leaves is the one written.
 */
function scaleAdmission(hooks: AdmissionHooks, paths: ScalePaths, name: string): AdmissionHooks {
  const view = (o: ApiObject | undefined) => o && scaleOf(o, paths) as ApiObject & Scale;
  return {
    async mutate(op, obj, old) {
      const scale = view(obj);
      await hooks.mutate(op, scale, view(old));
      if (obj && scale) setPath(obj, paths.specReplicasPath, checkReplicas(scale.spec?.replicas, name));
    },
    validate: (op, obj, old) => hooks.validate(op, view(obj), view(old)),
  };
}

/** GET, PUT, PATCH and server-side apply of a Scale: the parent's replica count changes, nothing else */
function scaleHandler(paths: ScalePaths): RestHandler {
  const replicasField = fieldPathOf(paths.specReplicasPath);
  return {
    async get(req) {
      return scaleOf(await req.store.get(req.namespace, req.name), paths);
    },
    async update(req, next) {
      const { obj } = await req.store.guaranteedUpdate(req.namespace, req.name, '', async current => {
        if (!current) return { metadata: { name: req.name } };   // the store answers 404
        const wanted = await next(scaleOf(current, paths));
        if (!wanted || typeof wanted !== 'object' || Array.isArray(wanted)) throw badRequest('the request body must be a Scale object');
        const scale = wanted as Partial<Scale>;
        if (scale.kind !== undefined && scale.kind !== 'Scale') throw badRequest(`the kind in the body (${scale.kind}) is not Scale`);
        const replicas = checkReplicas(scale.spec?.replicas, req.name);
        const rv = scale.metadata?.resourceVersion;
        if (rv && rv !== current.metadata.resourceVersion)
          throw conflict(req.info.group, req.info.resource, req.name, 'the object has been modified; please apply your changes to the latest version and try again');
        setPath(current, paths.specReplicasPath, replicas);
        return current;
      }, scaleAdmission(req.admission(), paths, req.name), { dryRun: req.dryRun, ...(req.manager ? { manager: { ...req.manager, subresource: 'scale' } } : {}) });
      return scaleOf(obj, paths);
    },
    // the Scale is applied with the parent's owners of the replica count as its owners; its outcome goes back to them
    async apply(req, applied, { manager, force }) {
      if (!applied || typeof applied !== 'object' || Array.isArray(applied)) throw badRequest('the apply patch must be an object');
      const { obj } = await req.store.guaranteedUpdate(req.namespace, req.name, '', current => {
        if (!current) return { metadata: { name: req.name } };   // the store answers 404
        const scale = scaleOf(current, paths);
        const live = { ...scale, metadata: { ...scale.metadata, managedFields: scaleManagedFields(current.metadata.managedFields, replicasField, scaleApiVersion) } };
        const result = apply(live as unknown as Record<string, unknown>, deepCopy(applied) as Record<string, unknown>,
          { manager, apiVersion: scaleApiVersion, kind: 'Scale', force, time: new Date(), subresource: 'scale' }, scaleSchema);
        setPath(current, paths.specReplicasPath, checkReplicas((result.object as Partial<Scale>).spec?.replicas, req.name));
        current.metadata.managedFields = parentManagedFields(current.metadata.managedFields, result.managedFields, replicasField, req.info.apiVersion);
        return current;
      }, scaleAdmission(req.admission(), paths, req.name), { dryRun: req.dryRun });
      return scaleOf(obj, paths);
    },
  };
}

const scaleApiVersion = 'autoscaling/v1';

/** the scale subresource, for a resource whose counts are not at .spec.replicas, .status.replicas and .spec.selector */
export const scaleSubresource = (paths: ScalePaths = defaultPaths): SubresourceDefinition =>
  ({ verbs: readWrite, kind: 'Scale', group: 'autoscaling', version: 'v1', schema: scaleSchema, rest: scaleHandler(paths), columns: scaleColumns as TableColumn[] });

/** the reference's columns of a Scale (no age: a Scale has no creation of its own) */
const scaleColumns: TableColumn<Scale>[] = [
  column('Desired', 'integer', s => s.spec?.replicas ?? 0, 'Number of desired replicas'),
  column('Available', 'integer', s => s.status?.replicas ?? 0, 'Number of actual replicas'),
];

export const scale = scaleSubresource();
