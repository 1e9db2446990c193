// Helpers that keep the per-group catalog files to the facts that differ between resources.
import { allVerbs, type ResourceDefinition, type SubresourceDefinition, type Verb, type VersionDefinition } from '../types.js';
import type { Schema } from '../../api/schema.js';

type Definition = Omit<ResourceDefinition, 'singular' | 'verbs' | 'listKind'> & Partial<Pick<ResourceDefinition, 'singular' | 'verbs' | 'listKind'>>;

/** fills the reference defaults: singular is the lower-case kind, verbs are the full set, listKind is <Kind>List */
export function define(d: Definition): ResourceDefinition {
  return { ...d, singular: d.singular ?? d.kind.toLowerCase(), listKind: d.listKind ?? `${d.kind}List`, verbs: d.verbs ?? [...allVerbs] };
}

/** one served and stored version */
export const only = (name: string, schema: Schema): VersionDefinition[] => [{ name, served: true, storage: true, schema }];

export const readWrite: Verb[] = ['get', 'patch', 'update'];
export const createOnly: Verb[] = ['create'];
/** connect subresources (exec, attach, portforward) accept GET and POST */
export const connect: Verb[] = ['create', 'get'];
/** proxy subresources accept every HTTP method */
export const proxy: Verb[] = ['create', 'delete', 'get', 'patch', 'update'];

export const status: Record<string, SubresourceDefinition> = { status: { verbs: readWrite } };
export const scale: SubresourceDefinition = { verbs: readWrite, kind: 'Scale', group: 'autoscaling', version: 'v1' };
