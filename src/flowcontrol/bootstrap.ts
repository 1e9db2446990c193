// Keeps the configuration objects in place: the mandatory ones are created and restored whenever they change,
// the suggested ones created when missing and kept current while their autoupdate annotation says "true"; and
// each FlowSchema's Dangling condition says whether the priority level it names exists.
import type { Naming } from '../api/naming.js';
import type { FlowControlResource, FlowControlSource, FlowControlWriter, FlowSchema, PriorityLevelConfiguration } from '../api/flowcontrol.js';
import { autoupdateAnnotation, defaultObjects } from './defaults.js';

type ConfigObject = FlowSchema | PriorityLevelConfiguration;

/** every field of want is in have with the same value (have may hold more, such as fields the server defaulted) */
export function covers(have: unknown, want: unknown): boolean {
  if (Array.isArray(want)) return Array.isArray(have) && have.length === want.length && want.every((w, i) => covers(have[i], w));
  if (want && typeof want === 'object') {
    if (!have || typeof have !== 'object' || Array.isArray(have)) return false;
    return Object.entries(want).every(([k, w]) => covers((have as Record<string, unknown>)[k], w));
  }
  return have === want;
}

export interface EnsureResult { created: string[]; updated: string[] }

/** Go's strconv.ParseBool, which reads the annotation in the reference */
const parseBool = (v: string | undefined): boolean | undefined =>
  (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v ?? '') ? true : ['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v ?? '') ? false : undefined);

/**
 * whether an object's spec is kept current: always for a mandatory one; for a suggested one as its annotation says,
 * and without a readable annotation only while nobody changed its spec (generation 1)
 */
const autoUpdates = (o: ConfigObject, isMandatory: boolean, annotation: string) =>
  isMandatory || (parseBool(o.metadata?.annotations?.[annotation]) ?? o.metadata?.generation === 1);

/** the object with the annotation saying whether it is kept current and, when it is, the wanted spec; undefined when it has them */
function revised(cur: ConfigObject, want: ConfigObject, isMandatory: boolean, annotation: string): ConfigObject | undefined {
  const auto = autoUpdates(cur, isMandatory, annotation);
  const specChanged = auto && !covers(cur.spec, want.spec);
  if (!specChanged && cur.metadata?.annotations?.[annotation] === String(auto)) return undefined;
  return {
    ...cur, metadata: { ...cur.metadata, annotations: { ...cur.metadata?.annotations, [annotation]: String(auto) } },
    spec: specChanged ? structuredClone(want.spec) : cur.spec,
  } as ConfigObject;
}

/** one pass: the writes that bring the stored objects to the defaults */
export async function ensureDefaults(source: FlowControlSource, writer: FlowControlWriter, names: Naming): Promise<EnsureResult> {
  const d = defaultObjects(names);
  const annotation = autoupdateAnnotation(names);
  const result: EnsureResult = { created: [], updated: [] };
  const cfg = source.config();
  const sets: Array<[FlowControlResource, readonly ConfigObject[], ConfigObject[], ConfigObject[]]> = [
    ['prioritylevelconfigurations', cfg.priorityLevels, d.mandatoryLevels, d.suggestedLevels],
    ['flowschemas', cfg.flowSchemas, d.mandatorySchemas, d.suggestedSchemas],
  ];
  for (const [resource, stored, mandatory, suggested] of sets) {
    // the objects of a kind all at once, so their writes share commits; the priority levels before the schemas
    await Promise.all([...mandatory, ...suggested].map(async want => {
      const name = want.metadata!.name!;
      const have = stored.find(s => s.metadata?.name === name);
      const isMandatory = mandatory.includes(want);
      if (!have) {
        await writer.create(resource, structuredClone(want)).catch(e => { if ((e as { code?: number }).code !== 409) throw e; });
        result.created.push(`${resource}/${name}`);
        return;
      }
      if (!revised(have, want, isMandatory, annotation)) return;
      await writer.update<ConfigObject>(resource, name, '', cur => revised(cur, want, isMandatory, annotation));
      result.updated.push(`${resource}/${name}`);
    }));
  }
  await markDangling(source, writer);
  return result;
}

/** the Dangling condition of each FlowSchema: True when its priority level does not exist */
async function markDangling(source: FlowControlSource, writer: FlowControlWriter) {
  const cfg = source.config();
  const levels = new Set(cfg.priorityLevels.map(l => l.metadata?.name));
  await Promise.all(cfg.flowSchemas.map(async fs => {
    const target = fs.spec?.priorityLevelConfiguration?.name ?? '';
    const dangling = !levels.has(target);
    const want = dangling
      ? { status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named "${target}" but there is no such object` }
      : { status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named "${target}" and it exists` };
    const has = (fs.status?.conditions ?? []).find(c => c.type === 'Dangling');
    if (has && has.status === want.status && has.message === want.message) return;
    await writer.update<FlowSchema>('flowschemas', fs.metadata!.name!, 'status', cur => {
      const conditions = (cur.status?.conditions ?? []).filter(c => c.type !== 'Dangling');
      const old = (cur.status?.conditions ?? []).find(c => c.type === 'Dangling');
      if (old && old.status === want.status && old.message === want.message) return undefined;
      const lastTransitionTime = old?.status === want.status && old.lastTransitionTime ? old.lastTransitionTime : new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      return { ...cur, status: { ...cur.status, conditions: [...conditions, { type: 'Dangling', ...want, lastTransitionTime }] } };
    }).catch(e => { if ((e as { code?: number }).code !== 404) throw e; });
  }));
}

/**
 * Runs a pass at start (retried until it succeeds) and again after every change of the configuration, so a
 * mandatory object that is changed or deleted comes back; returns the function that stops it.
 */
export function keepDefaults(source: FlowControlSource, writer: FlowControlWriter, names: Naming,
  log: { warn(msg: string): void }): { ready: Promise<void>; stop(): void } {
  let stopped = false, running = false, again = false;
  let timer: NodeJS.Timeout | undefined;
  let resolveReady!: () => void;
  const ready = new Promise<void>(r => { resolveReady = r; });
  const pass = async () => {
    if (stopped) return;
    if (running) { again = true; return; }
    running = true;
    try {
      await source.ready;
      await ensureDefaults(source, writer, names);
      resolveReady();
    } catch (e) {
      log.warn(`keeping the flow-control configuration in place: ${(e as Error).message}`);
      again = true;
    } finally {
      running = false;
      if (again && !stopped) { again = false; timer = setTimeout(() => void pass(), 200); timer.unref(); }
    }
  };
  const unsubscribe = source.onChange(() => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void pass(), 50);
    timer.unref();
  });
  void pass();
  return { ready, stop() { stopped = true; clearTimeout(timer); unsubscribe(); } };
}
