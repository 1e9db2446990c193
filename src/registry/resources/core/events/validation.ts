// The checks every Event passes, whichever API wrote it (core/v1 or events/v1): the reference runs them on its internal
// (core) form, so the fields are named as core/v1 names them, except the reporting controller, named as the request's API does.
import { apiDomains, naming } from '../../../../api/naming.js';
import { type Causes, invalid, qualifiedName, required, dnsSubdomain } from '../../../validation/fields.js';

/** what the shared checks read, from either form of an Event */
export interface LegacyEventView {
  namespace: string;
  regardingNamespace: string;
  eventTime: unknown;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  message: string;
  /** the reporting controller's field under the request's API: `reportingComponent` in core/v1 */
  reportingField: 'reportingController' | 'reportingComponent';
}

const limits = { reportingInstance: 128, action: 128, reason: 128 } as const;
const noteLimit = 1024;
/** events about cluster-scoped objects live in `default` or the system namespace (every API domain's spelling: validation has no server names) */
const eventHomes = ['default', ...apiDomains.map(d => naming(d).systemNamespace)];

/** the namespace of an event with no eventTime (an older recorder's) must be its object's, or `default` for a cluster-scoped object */
function olderEventNamespace(e: LegacyEventView): Causes {
  const matches = e.regardingNamespace ? e.namespace === e.regardingNamespace : e.namespace === '' || e.namespace === 'default';
  return matches ? [] : [invalid('involvedObject.namespace', e.regardingNamespace, 'does not match event.namespace')];
}

/** an event with an eventTime (a newer recorder's) names who reported it and what was done */
function newerEventFields(e: LegacyEventView): Causes {
  const out: Causes = [];
  if (!e.regardingNamespace && !eventHomes.includes(e.namespace)) out.push(invalid('involvedObject.namespace', e.regardingNamespace, 'does not match event.namespace'));
  if (!e.reportingController) out.push(required(e.reportingField));
  out.push(...qualifiedName(e.reportingField, e.reportingController));
  for (const [f, max] of Object.entries(limits)) {
    const v = e[f as keyof typeof limits];
    if (!v) out.push(required(f));
    if (v.length > max) out.push(invalid(f, '', `can have at most ${max} characters`));
  }
  if (e.message.length > noteLimit) out.push(invalid('message', '', `can have at most ${noteLimit} characters`));
  return out;
}

export function legacyEventCauses(e: LegacyEventView): Causes {
  const out = e.eventTime ? newerEventFields(e) : olderEventNamespace(e);
  out.push(...dnsSubdomain('namespace', e.namespace));
  return out;
}
