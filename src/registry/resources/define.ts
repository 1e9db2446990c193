// Helpers that keep each resource's definition to the facts that differ between resources.
import type { ApiObject, Stored } from '../../api/meta.js';
import type { Schema } from '../../api/schema.js';
import type { Strategy } from '../strategy.js';
import { strictFlag } from '../../api/request.js';
import { allVerbs, type ResourceDefinition, type SubresourceDefinition, type TableColumn, type TableRowCondition, type Verb, type VersionDefinition } from '../types.js';

type Definition<T extends { metadata?: object }> = Omit<ResourceDefinition, 'singular' | 'verbs' | 'listKind' | 'strategy' | 'columns' | 'rowConditions'>
  & Partial<Pick<ResourceDefinition, 'singular' | 'verbs' | 'listKind'>>
  & { strategy?: Strategy<Stored<T>>; columns?: TableColumn<T>[]; rowConditions?(obj: T): TableRowCondition[] };

/**
 * A resource's definition, with the reference defaults filled in: singular is the lower-case kind, verbs are the full
 * set, listKind is <Kind>List. `T` is the kind's type (src/api/types): the strategy and columns are written against it,
 * and the generic store hands them only objects of this resource.
 */
export function define<T extends { metadata?: object } = ApiObject>(d: Definition<T>): ResourceDefinition {
  return {
    ...d, singular: d.singular ?? d.kind.toLowerCase(), listKind: d.listKind ?? `${d.kind}List`, verbs: d.verbs ?? [...allVerbs],
    strategy: d.strategy as Strategy | undefined, columns: d.columns as TableColumn[] | undefined,
    rowConditions: d.rowConditions as ResourceDefinition['rowConditions'],
  };
}

/** one served and stored version */
export const only = (name: string, schema: Schema): VersionDefinition[] => [{ name, served: true, storage: true, schema }];

export const readWrite: Verb[] = ['get', 'patch', 'update'];
export const createOnly: Verb[] = ['create'];
/** connect subresources (exec, attach, portforward) accept GET and POST */
export const connect: Verb[] = ['create', 'get'];
/** proxy subresources accept every HTTP method */
export const proxy: Verb[] = ['create', 'delete', 'get', 'patch', 'update'];

/** the options of exec (with `command`) and attach as their query carries them: only what is set, as the reference encodes them */
export const streamOptions = (command: boolean) => (q: URLSearchParams): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const flag of ['stdin', 'stdout', 'stderr', 'tty']) if (strictFlag(q.get(flag) ?? '')) out[flag] = true;
  const container = q.get('container');
  if (container) out.container = container;
  if (command && q.getAll('command').length) out.command = q.getAll('command');
  return out;
};
/** the options of portforward: the ports asked for */
export const portForwardOptions = (q: URLSearchParams): Record<string, unknown> => {
  const ports = q.getAll('ports').flatMap(p => p.split(',')).map(Number).filter(Number.isInteger);
  return ports.length ? { ports } : {};
};
/** the options of a proxy: the path after the subresource */
export const proxyOptions = (_q: URLSearchParams, path: string): Record<string, unknown> => (path ? { path } : {});

/** the status subresource: a write through it changes status only */
export const statusSubresource: SubresourceDefinition = { verbs: readWrite, changes: [['status']] };
export const status: Record<string, SubresourceDefinition> = { status: statusSubresource };
