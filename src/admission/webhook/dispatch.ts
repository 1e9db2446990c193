// Calling the matching webhooks of a request. Mutating webhooks run one after another, each seeing the
// previous one's patch, and those with reinvocationPolicy IfNeeded run once more when a later webhook changed
// the object; validating webhooks run at the same time. failurePolicy decides on calls that fail.
import type { ApiObject, Status } from '../../api/meta.js';
import type { Naming } from '../../api/naming.js';
import type { MutatingWebhook } from '../../api/types/admissionregistration-v1.js';
import { allHooks, invocationFor, type Invocation, type WebhookConfiguration } from './match.js';
import { CallError, callWebhook, reviewRequest, type AdmissionResponse, type EncodedObjects } from './call.js';
import { ApiError, badRequest, internalError } from '../../api/status.js';
import { applyJsonPatchInSlices } from '../../patch/json-patch.js';
import { deepEqual } from '../../patch/common.js';
import type { AdmissionAttributes, GroupVersionKind, Listers, WebhookKind, WebhookSource } from '../../api/admission.js';
import type { Authorizer } from '../../api/auth.js';
import { activationFor, matchConditions } from '../conditions.js';
import { deepCopy } from '../../util/objects.js';
import { qualifiedNameErrors } from '../../api/selectors.js';
import { maxNestingDepth, valueBeyond } from '../../util/value-bounds.js';
import { serviceResolver, type ServiceResolver } from '../../api/apiservices.js';
import type { CredentialsFor } from './credentials.js';

export interface DispatchDeps {
  source: WebhookSource;
  listers: Listers;
  names: Naming;
  /** webhooks' matchConditions are honoured (feature gate AdmissionWebhookMatchConditions) */
  matchConditions?: boolean;
  /** for the `authorizer` of match conditions */
  authorizer?: Authorizer;
  /** what this server presents to each webhook (the plugin's kubeConfigFile) */
  credentials?: CredentialsFor;
  log?: (message: string) => void;
}

/** the webhook configurations and policies are never sent to webhooks, so a broken webhook can always be removed */
function exempt(a: AdmissionAttributes, names: Naming): boolean {
  return a.group === names.group('admissionregistration') && ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations',
    'validatingadmissionpolicies', 'validatingadmissionpolicybindings'].includes(a.resource);
}

/** the webhook's own denial: its code (one under 400, or none, is a 400 as in the reference) and message after the reference's prefix */
function rejection(webhook: string, result: AdmissionResponse['status']): ApiError {
  const r = result ?? {};
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const message = r.message ? `${deniedBy}: ${r.message}` : r.reason ? `${deniedBy}: ${r.reason}` : `${deniedBy} without explanation`;
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code };
  if (r.reason) status.reason = r.reason;
  if (r.details && typeof r.details === 'object') status.details = r.details as Status['details'];
  return new ApiError(status);
}

/** the audit annotation that records a webhook passed over under failurePolicy Ignore, named as the reference names it:
 *  a mutating webhook by its round and place among all webhooks, a validating one by its place among those whose rules matched */
const failedOpenKey = (d: DispatchDeps, type: 'mutation' | 'validating', round: number, index: number) =>
  `failed-open.${type}.webhook.admission.${d.names.domain}/round_${round}_index_${index}`;

/** failurePolicy on a webhook that could not be asked: Ignore goes on without it (and says so in the audit event under
 *  `openKey`), Fail refuses the request */
function failed(hook: Invocation['hook'], e: CallError, a: AdmissionAttributes, d: DispatchDeps, openKey: string): undefined {
  if (hook.failurePolicy === 'Ignore') {
    d.log?.(`Failed calling webhook, failing open ${hook.name}: ${e.message}`);
    a.annotate?.(openKey, hook.name);
    return undefined;
  }
  d.log?.(`Failed calling webhook, failing closed ${hook.name}: ${e.message}`);
  throw internalError(e.message);
}

/** whether the webhook's match conditions let the request through to it (errors follow failurePolicy) */
async function conditionsAllow(inv: Invocation, a: AdmissionAttributes, d: DispatchDeps, openKey: string): Promise<boolean> {
  if (!d.matchConditions || !inv.hook.matchConditions?.length) return true;
  const r = await matchConditions(inv.hook.matchConditions, () => activationFor(a, d.names, d.authorizer));
  if ('matches' in r) return r.matches;
  return failed(inv.hook, new CallError(inv.hook.name, `failed to evaluate match conditions: ${r.error}`), a, d, openKey) ?? false;
}

/** webhooks behind a Service are called at an endpoint of it, read with the plugin's listers */
const resolvers = new WeakMap<DispatchDeps, ServiceResolver>();
function resolverOf(d: DispatchDeps): ServiceResolver {
  let r = resolvers.get(d);
  if (!r) resolvers.set(d, r = serviceResolver((resource, namespace, name) => d.listers.get('', resource, namespace, name)));
  return r;
}

/** the request's objects at one version of the resource, with their JSON when the calls share it */
interface Seen { kind: GroupVersionKind; object?: ApiObject; oldObject?: ApiObject; encoded?: EncodedObjects }

/** the kind the objects have at another version of the resource, as the reference finds it: the resource's kind at
 *  that version, or a subresource's own kind, which is the same at every version (a Scale is autoscaling/v1) */
const kindSeenAt = (version: string, a: AdmissionAttributes, d: DispatchDeps): GroupVersionKind =>
  (version === a.version ? a.kind : d.source.kindFor(a.group, version, a.resource, a.subresource) ?? { ...a.kind, version });

const sameKind = (x: GroupVersionKind, y: GroupVersionKind) => x.group === y.group && x.version === y.version && x.kind === y.kind;

/** an object of the request's kind as the kind seen at another version has it (converted only when the kinds differ) */
const objectAt = (kind: GroupVersionKind, a: AdmissionAttributes, d: DispatchDeps, o: ApiObject) =>
  (sameKind(kind, a.kind) ? o : d.source.convert(a.group, a.resource, o, kind.version));

async function seenAt(version: string, a: AdmissionAttributes, d: DispatchDeps, encode: boolean): Promise<Seen> {
  const kind = kindSeenAt(version, a, d);
  const at = async (o?: ApiObject) => (o && objectAt(kind, a, d, o));
  const object = await at(a.object), oldObject = await at(a.oldObject);
  const json = (o?: ApiObject) => (o ? JSON.stringify(o) : 'null');
  return { kind, object, oldObject, ...(encode ? { encoded: { object: json(object), oldObject: json(oldObject) } } : {}) };
}

/** what every call shares: the dry-run check, the review at the webhook's version, failurePolicy, warnings and audit
 *  annotations; validating calls, which all see the same objects, share them converted and encoded once per version */
async function call(inv: Invocation, a: AdmissionAttributes, d: DispatchDeps, openKey: string, mutating: boolean,
  shared?: Map<string, Promise<Seen>>): Promise<AdmissionResponse | undefined> {
  const { hook } = inv;
  if (a.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun')
    throw badRequest(`admission webhook "${hook.name}" does not support dry run`);
  let seen = shared?.get(inv.version);
  if (!seen) { seen = seenAt(inv.version, a, d, shared !== undefined); shared?.set(inv.version, seen); }
  const { kind, object, oldObject, encoded } = await seen;
  const request = reviewRequest(a, { version: inv.version, kind, object, oldObject }, d.names);
  let response: AdmissionResponse;
  try {
    response = await callWebhook(hook, request, d.names, { encoded, resolveService: resolverOf(d), credentials: d.credentials, mutating });
  } catch (e) {
    if (!(e instanceof CallError)) throw e;
    return failed(hook, e, a, d, openKey);
  }
  for (const w of response.warnings ?? []) a.warn?.(w);
  for (const [k, v] of Object.entries(response.auditAnnotations ?? {})) {
    // a key that is no qualified name (a space, a second '/') is left out of the audit event, as the reference leaves it
    const key = `${hook.name}/${k}`, problems = qualifiedNameErrors(key);
    if (problems.length) d.log?.(`Failed to set admission audit annotation ${key} to ${String(v)} for webhook ${hook.name}: ${problems.join(',')}`);
    else a.annotate?.(key, String(v));
  }
  if (!response.allowed) throw rejection(hook.name, response.status);
  return response;
}

/** applies a mutating webhook's patch to the request's object; the operations when the object changed */
async function applyPatch(inv: Invocation, a: AdmissionAttributes, response: AdmissionResponse, d: DispatchDeps): Promise<unknown[] | undefined> {
  let ops: unknown;
  try { ops = JSON.parse(Buffer.from(response.patch!, 'base64').toString('utf8')); } catch (e) {
    throw internalError(`admission webhook "${inv.hook.name}" returned an invalid patch: ${(e as Error).message}`);
  }
  if (Array.isArray(ops) && ops.length === 0) return undefined;
  // what a webhook returns is held to the bound of a request body: the server's walks over an object recurse, and an
  // object nested past it would be stored and then fail every read and list of its resource
  const tooDeep = () => internalError(`admission webhook "${inv.hook.name}" returned an object nested more than ${maxNestingDepth} levels deep`);
  if (valueBeyond(ops, Infinity, maxNestingDepth + 2)) throw tooDeep();
  // a CONNECT's options are read from its query when the stream opens: a change to them could not take effect
  if (!a.object || a.operation === 'CONNECT')
    throw internalError(`admission webhook "${inv.hook.name}" attempted to modify the object, which is not supported for this operation`);
  const kind = kindSeenAt(inv.version, a, d);
  const sent = await objectAt(kind, a, d, a.object);
  let patched: ApiObject;
  try { patched = await applyJsonPatchInSlices(deepCopy(sent), ops) as ApiObject; } catch (e) {
    throw internalError(`admission webhook "${inv.hook.name}" returned a patch that cannot be applied: ${(e as Error).message}`);
  }
  if (!patched || typeof patched !== 'object' || !patched.metadata || typeof patched.metadata !== 'object')
    throw internalError(`admission webhook "${inv.hook.name}" returned a patch that removes the object's metadata`);
  if (valueBeyond(patched, Infinity, maxNestingDepth)) throw tooDeep();
  const back = sameKind(kind, a.kind) ? patched : await d.source.convert(a.group, a.resource, patched, a.version);
  back.apiVersion = a.object.apiVersion;
  back.kind = a.object.kind;
  if (deepEqual(back, a.object)) return undefined;
  // the store holds this very object: it is changed in place, and read and defaulted as a decoded object is
  for (const k of Object.keys(a.object)) delete (a.object as Record<string, unknown>)[k];
  Object.assign(a.object, back);
  try { a.decode?.(a.object); } catch (e) {
    throw internalError(`admission webhook "${inv.hook.name}" returned an object that cannot be read: ${(e as Error).message}`);
  }
  return ops as unknown[];
}

/** the webhooks of each list of configurations the source gave, numbered once */
const hooksByList = new WeakMap<object, ReturnType<typeof allHooks>>();

async function hooksOf(kind: WebhookKind, d: DispatchDeps) {
  const configurations = await d.source.configurations(kind) as WebhookConfiguration[];
  let hooks = hooksByList.get(configurations);
  if (!hooks) hooksByList.set(configurations, hooks = allHooks(configurations));
  return hooks;
}

export async function dispatchMutating(a: AdmissionAttributes, d: DispatchDeps): Promise<void> {
  if (exempt(a, d.names)) return;
  const hooks = await hooksOf('mutatingwebhookconfigurations', d);
  if (!hooks.length) return;
  // IfNeeded webhooks called since the last change, and those a later change obliges to run again
  let sinceChange = new Set<number>();
  const again = new Set<number>();
  for (const round of [0, 1]) {
    for (const entry of hooks) {
      if (round === 1 && !again.has(entry.index)) continue;
      const inv = await invocationFor(entry, a, d.source, d.listers);
      const openKey = failedOpenKey(d, 'mutation', round, entry.index);
      if (!inv || !(await conditionsAllow(inv, a, d, openKey))) continue;
      let changed = false;
      const at = `round_${round}_index_${entry.index}`;
      try {
        const response = await call(inv, a, d, openKey, true);
        const applied = response?.patch ? await applyPatch(inv, a, response, d) : undefined;
        changed = applied !== undefined;
        // the patch itself is recorded only when the audit record keeps request bodies
        if (applied) a.annotate?.(`patch.webhook.admission.${d.names.domain}/${at}`,
          JSON.stringify({ configuration: inv.configuration, webhook: inv.hook.name, patch: applied, patchType: 'JSONPatch' }), 'Request');
      } finally {
        a.annotate?.(`mutation.webhook.admission.${d.names.domain}/${at}`,
          JSON.stringify({ configuration: inv.configuration, webhook: inv.hook.name, mutated: changed }));
      }
      if (changed) { for (const i of sinceChange) again.add(i); sinceChange = new Set(); }
      if ((inv.hook as MutatingWebhook).reinvocationPolicy === 'IfNeeded') sinceChange.add(entry.index);
    }
    if (!again.size) return;
  }
}

export async function dispatchValidating(a: AdmissionAttributes, d: DispatchDeps): Promise<void> {
  if (exempt(a, d.names)) return;
  const hooks = await hooksOf('validatingwebhookconfigurations', d);
  if (!hooks.length) return;
  // each webhook whose rules match, with its failed-open annotation, numbered among those
  const invocations: { inv: Invocation; openKey: string }[] = [];
  let matched = 0;
  for (const entry of hooks) {
    const inv = await invocationFor(entry, a, d.source, d.listers);
    if (!inv) continue;
    const openKey = failedOpenKey(d, 'validating', 0, matched++);
    if (await conditionsAllow(inv, a, d, openKey)) invocations.push({ inv, openKey });
  }
  const shared = new Map<string, Promise<Seen>>();
  const results = await Promise.allSettled(invocations.map(({ inv, openKey }) => call(inv, a, d, openKey, false, shared)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
