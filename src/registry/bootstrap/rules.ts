// The words the default policy is written in: policy rules and the verb sets they repeat.
import type { Naming } from '../../api/naming.js';
import type { PolicyRule } from '../../api/auth.js';

export const read = ['get', 'list', 'watch'];
export const write = ['create', 'delete', 'deletecollection', 'patch', 'update'];

export const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  ({ verbs, apiGroups, resources, ...(resourceNames ? { resourceNames } : {}) });
export const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

/** recording events, in the core group and the events group */
export const eventsRule = (names: Naming) => rule(['create', 'patch', 'update'], ['', names.group('events')], ['events']);
