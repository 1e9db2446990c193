// rollout: status (watch until a Deployment, DaemonSet or StatefulSet has rolled out), history and undo (from
// the revisions the controllers keep: ReplicaSets of a Deployment, ControllerRevisions of the others), restart
// (a new pod-template annotation), pause and resume. The controllers do the rolling; this only asks and reads.

import { Command } from 'commander';
import type { ApiObject } from '../../api/meta.js';
import { parseDuration } from '../../config/flags.js';
import { CliError, errorText, type Cli } from '../cli.js';
import { booleanOption, fileOptions } from '../flags.js';
import { failIf, fetchTargets, resourceFor, type Found } from '../objects.js';
import { nameOf, toYaml } from '../printers/objects.js';
import { alignColumns } from '../printers/table.js';
import { lookup, resolveTargets } from '../resources.js';

type Kind = 'Deployment' | 'DaemonSet' | 'StatefulSet';
const rollable = new Set<string>(['Deployment', 'DaemonSet', 'StatefulSet']);

async function targetsOf(cli: Cli, args: string[], f: { filename?: string[]; recursive?: boolean; selector?: string }, verb: string, kinds = rollable): Promise<Found[]> {
  const { targets } = await resolveTargets(cli, args, { filenames: f.filename, recursive: f.recursive, verb });
  const { found, failed } = await fetchTargets(cli, targets, { selector: f.selector });
  failIf(failed);
  for (const x of found) if (!kinds.has(x.info.kind)) throw new CliError(`${verb} is not supported for ${x.info.resource}: use ${[...kinds].map((k) => k.toLowerCase()).join(', ')}`);
  return found;
}

/** the reference's progress lines; done when the rollout finished */
export function rolloutStatus(obj: any): { done: boolean; message: string } {
  const kind = obj.kind as Kind;
  const name = obj.metadata.name;
  const s = obj.status ?? {};
  const spec = obj.spec ?? {};
  if (kind === 'Deployment') {
    if ((obj.metadata.generation ?? 0) > (s.observedGeneration ?? 0)) return { done: false, message: 'Waiting for deployment spec update to be observed...' };
    const progressing = (s.conditions ?? []).find((c: any) => c.type === 'Progressing');
    if (progressing?.reason === 'ProgressDeadlineExceeded') throw new CliError(`deployment "${name}" exceeded its progress deadline`);
    const want = spec.replicas ?? 1;
    const updated = s.updatedReplicas ?? 0;
    if (updated < want) return { done: false, message: `Waiting for deployment "${name}" rollout to finish: ${updated} out of ${want} new replicas have been updated...` };
    if ((s.replicas ?? 0) > updated) return { done: false, message: `Waiting for deployment "${name}" rollout to finish: ${(s.replicas ?? 0) - updated} old replicas are pending termination...` };
    if ((s.availableReplicas ?? 0) < updated) return { done: false, message: `Waiting for deployment "${name}" rollout to finish: ${s.availableReplicas ?? 0} of ${updated} updated replicas are available...` };
    return { done: true, message: `deployment "${name}" successfully rolled out` };
  }
  if (kind === 'DaemonSet') {
    if (spec.updateStrategy?.type === 'OnDelete') throw new CliError('rollout status is only available for RollingUpdate strategy type');
    if ((obj.metadata.generation ?? 0) > (s.observedGeneration ?? 0)) return { done: false, message: 'Waiting for daemon set spec update to be observed...' };
    const desired = s.desiredNumberScheduled ?? 0;
    if ((s.updatedNumberScheduled ?? 0) < desired) return { done: false, message: `Waiting for daemon set "${name}" rollout to finish: ${s.updatedNumberScheduled ?? 0} out of ${desired} new pods have been updated...` };
    if ((s.numberAvailable ?? 0) < desired) return { done: false, message: `Waiting for daemon set "${name}" rollout to finish: ${s.numberAvailable ?? 0} of ${desired} updated pods are available...` };
    return { done: true, message: `daemon set "${name}" successfully rolled out` };
  }
  if (spec.updateStrategy?.type === 'OnDelete') throw new CliError('rollout status is only available for RollingUpdate strategy type');
  if ((obj.metadata.generation ?? 0) > (s.observedGeneration ?? 0)) return { done: false, message: 'Waiting for statefulset spec update to be observed...' };
  const want = spec.replicas ?? 1;
  if ((s.readyReplicas ?? 0) < want) return { done: false, message: `Waiting for ${want - (s.readyReplicas ?? 0)} pods to be ready...` };
  const partition = spec.updateStrategy?.rollingUpdate?.partition ?? 0;
  if (partition > 0) {
    if ((s.updatedReplicas ?? 0) < want - partition) return { done: false, message: `Waiting for partitioned roll out to finish: ${s.updatedReplicas ?? 0} out of ${want - partition} new pods have been updated...` };
    return { done: true, message: `partitioned roll out complete: ${s.updatedReplicas ?? 0} new pods have been updated...` };
  }
  if (s.updateRevision !== s.currentRevision) return { done: false, message: `waiting for statefulset rolling update to complete ${s.updatedReplicas ?? 0} pods at revision ${s.updateRevision}...` };
  return { done: true, message: `statefulset rolling update complete ${s.currentReplicas ?? 0} pods at revision ${s.currentRevision}...` };
}

const revisionKey = (cli: Cli) => cli.names().then((n) => `deployment.${n.labelDomain}/revision`);

interface Revision { revision: number; template: any; changeCause?: string; source: ApiObject }

/** the revisions of an object: its ReplicaSets (Deployment) or ControllerRevisions (DaemonSet, StatefulSet) */
async function revisions(cli: Cli, item: Found): Promise<Revision[]> {
  const obj = item.object as any;
  const d = await cli.discovery();
  const owned = (o: ApiObject) => o.metadata.ownerReferences?.some((r) => r.uid === obj.metadata.uid && r.controller);
  const selector = Object.entries(obj.spec?.selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`).join(',') || undefined;
  const names = await cli.names();
  const cause = names.label('change-cause');
  if (obj.kind === 'Deployment') {
    const key = await revisionKey(cli);
    const list = await (await resourceFor(cli, { info: lookup(d, 'replicasets.apps'), namespace: item.namespace })).listAll({ labelSelector: selector });
    return list.items.filter(owned).map((rs: any) => ({
      revision: Number(rs.metadata.annotations?.[key] ?? 0), template: rs.spec.template, changeCause: rs.metadata.annotations?.[cause], source: rs,
    })).sort((a, b) => a.revision - b.revision);
  }
  const list = await (await resourceFor(cli, { info: lookup(d, 'controllerrevisions.apps'), namespace: item.namespace })).listAll({ labelSelector: selector });
  return list.items.filter(owned).map((cr: any) => ({
    revision: Number(cr.revision ?? 0), template: cr.data?.spec?.template, changeCause: cr.metadata.annotations?.[cause], source: cr,
  })).sort((a, b) => a.revision - b.revision);
}

function statusCommand(cli: Cli): Command {
  return fileOptions(new Command('status'), 'the objects')
    .description('Show the status of a rollout, and wait until it finishes')
    .argument('[args...]', 'TYPE NAME or TYPE/NAME')
    .addOption(booleanOption('-w, --watch [bool]', 'wait until the rollout finishes', true))
    .option('--revision <n>', 'wait for this revision (Deployment)')
    .option('--timeout <duration>', 'give up after this long (0: never)', '0')
    .option('-l, --selector <selector>', 'the objects these labels select')
    .action(async (args: string[], f: { watch: boolean; timeout: string; filename?: string[]; recursive?: boolean; selector?: string }) => {
      const found = await targetsOf(cli, args, f, 'rollout status');
      const ms = parseDuration(f.timeout);
      const deadline = ms > 0 ? Date.now() + ms : Infinity;
      for (const item of found) {
        const r = await resourceFor(cli, item);
        const name = item.object.metadata.name!;
        let last = '';
        const show = (obj: ApiObject) => {
          const st = rolloutStatus({ ...obj, kind: item.info.kind });
          if (st.message !== last) cli.out(`${st.message}\n`);
          last = st.message;
          return st.done;
        };
        let current = await r.get(name);
        if (show(current) || !f.watch) continue;
        for (;;) {
          const remaining = deadline === Infinity ? undefined : Math.ceil((deadline - Date.now()) / 1000);
          if (remaining !== undefined && remaining <= 0) throw new CliError('timed out waiting for the condition');
          const stop = new AbortController();
          const timer = remaining ? setTimeout(() => stop.abort(), remaining * 1000) : undefined;
          let done = false;
          try {
            for await (const e of r.watch({ fieldSelector: `metadata.name=${name}`, resourceVersion: current.metadata.resourceVersion, signal: stop.signal, timeoutSeconds: remaining })) {
              if (e.type === 'DELETED') throw new CliError(`object has been deleted`);
              if (e.type === 'BOOKMARK') continue;
              current = e.object;
              if (show(current)) { done = true; break; }
            }
          } catch (e) {
            if ((e as { code?: number }).code !== 410) throw e;
            current = await r.get(name);
            done = show(current);
          } finally {
            if (timer) clearTimeout(timer);
            stop.abort();
          }
          if (done) break;
        }
      }
    });
}

function historyCommand(cli: Cli): Command {
  return fileOptions(new Command('history'), 'the objects')
    .description('Show the revisions of a rollout')
    .argument('[args...]', 'TYPE NAME or TYPE/NAME')
    .option('--revision <n>', 'show the pod template of this revision')
    .option('-l, --selector <selector>', 'the objects these labels select')
    .action(async (args: string[], f: { revision?: string; filename?: string[]; recursive?: boolean; selector?: string }) => {
      for (const item of await targetsOf(cli, args, f, 'rollout history')) {
        const list = await revisions(cli, item);
        if (f.revision) {
          const rev = list.find((r) => r.revision === Number(f.revision));
          if (!rev) throw new CliError(`unable to find the specified revision ${f.revision}`);
          cli.out(`${nameOf(item.object)} with revision #${rev.revision}\n${await toYaml({ template: rev.template })}`);
          continue;
        }
        cli.out(`${nameOf(item.object)} \n${alignColumns([['REVISION', 'CHANGE-CAUSE'], ...list.map((r) => [String(r.revision), r.changeCause ?? '<none>'])])}\n`);
      }
    });
}

function undoCommand(cli: Cli): Command {
  return fileOptions(new Command('undo'), 'the objects')
    .description('Roll back to a previous revision')
    .argument('[args...]', 'TYPE NAME or TYPE/NAME')
    .option('--to-revision <n>', 'the revision to go back to (default: the one before the current)', '0')
    .option('-l, --selector <selector>', 'the objects these labels select')
    .option('--dry-run [mode]', 'none, client or server')
    .action(async (args: string[], f: { toRevision: string; filename?: string[]; recursive?: boolean; selector?: string; dryRun?: string | boolean }) => {
      let failed = false;
      for (const item of await targetsOf(cli, args, f, 'rollout undo')) {
        try {
          const list = await revisions(cli, item);
          const obj = item.object as any;
          if (obj.spec?.paused) throw new CliError(`you cannot rollback a paused deployment; resume it first with 'clusterctl rollout resume' and try again`);
          const wanted = Number(f.toRevision);
          const target = wanted > 0 ? list.find((r) => r.revision === wanted) : list[list.length - 2];
          if (!target) throw new CliError(wanted > 0 ? `unable to find specified revision ${wanted} in history` : `no rollout history found for ${item.info.kind.toLowerCase()} "${obj.metadata.name}"`);
          const template = structuredClone(target.template);
          if (obj.kind === 'Deployment') delete template?.metadata?.labels?.['pod-template-hash'];
          if (JSON.stringify(template) === JSON.stringify(obj.spec.template)) {
            cli.out(`${nameOf(item.object)} skipped rollback (current template already matches revision ${target.revision})\n`);
            continue;
          }
          const r = await resourceFor(cli, item);
          if (f.dryRun === undefined || f.dryRun === 'none') {
            await r.patch(obj.metadata.name, [
              { op: 'test', path: '/metadata/resourceVersion', value: obj.metadata.resourceVersion },
              { op: 'replace', path: '/spec/template', value: template },
            ], 'json', { fieldManager: 'clusterctl-rollout' });
          }
          cli.out(`${nameOf(item.object)} rolled back\n`);
        } catch (e) {
          cli.err(`${errorText(e)}\n`);
          failed = true;
        }
      }
      failIf(failed);
    });
}

function templatePatchCommand(cli: Cli, name: string, description: string, past: string, kinds: Set<string>, patchOf: (obj: any, annotation: string) => unknown | undefined): Command {
  return fileOptions(new Command(name), 'the objects')
    .description(description)
    .argument('[args...]', 'TYPE NAME or TYPE/NAME')
    .option('-l, --selector <selector>', 'the objects these labels select')
    .option('--field-manager <name>', 'the field manager of the change', 'clusterctl-rollout')
    .action(async (args: string[], f: { filename?: string[]; recursive?: boolean; selector?: string; fieldManager: string }) => {
      const annotation = `kubectl.${(await cli.names()).labelDomain}/restartedAt`;
      let failed = false;
      for (const item of await targetsOf(cli, args, f, `rollout ${name}`, kinds)) {
        try {
          const patch = patchOf(item.object, annotation);
          if (patch === undefined) {
            cli.out(`${nameOf(item.object)} already ${past}\n`);
            continue;
          }
          await (await resourceFor(cli, item)).patch(item.object.metadata.name!, patch, 'merge', { fieldManager: f.fieldManager });
          cli.out(`${nameOf(item.object)} ${past}\n`);
        } catch (e) {
          cli.err(`${errorText(e)}\n`);
          failed = true;
        }
      }
      failIf(failed);
    });
}

export function rolloutCommand(cli: Cli): Command {
  const deployments = new Set(['Deployment']);
  return new Command('rollout')
    .description('Manage the rollout of a Deployment, DaemonSet or StatefulSet')
    .addCommand(statusCommand(cli))
    .addCommand(historyCommand(cli))
    .addCommand(undoCommand(cli))
    .addCommand(templatePatchCommand(cli, 'restart', 'Restart the pods of an object by a new pod-template annotation', 'restarted', rollable,
      (obj, annotation) => obj.spec?.paused ? (() => { throw new CliError(`can't restart paused deployment (run rollout resume first)`); })()
        : { spec: { template: { metadata: { annotations: { [annotation]: new Date().toISOString().replace(/\.\d+Z$/, 'Z') } } } } }))
    .addCommand(templatePatchCommand(cli, 'pause', 'Pause a Deployment: template changes do not roll out', 'paused', deployments,
      (obj) => (obj.spec?.paused ? undefined : { spec: { paused: true } })))
    .addCommand(templatePatchCommand(cli, 'resume', 'Resume a paused Deployment', 'resumed', deployments,
      (obj) => (obj.spec?.paused ? { spec: { paused: null } } : undefined)));
}
