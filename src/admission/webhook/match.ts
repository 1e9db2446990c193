// Which webhooks a request goes to: their rules and selectors (../match.ts), and their place in the list of all
// webhooks, which names them in audit annotations.
import type { Stored } from '../../api/meta.js';
import type { MutatingWebhook, MutatingWebhookConfiguration, ValidatingWebhook, ValidatingWebhookConfiguration } from '../../api/types/admissionregistration-v1.js';
import type { AdmissionAttributes, Listers, WebhookSource } from '../../api/admission.js';
import { matchingVersion, selectorsMatch } from '../match.js';

export type Webhook = MutatingWebhook | ValidatingWebhook;
export type WebhookConfiguration = Stored<MutatingWebhookConfiguration | ValidatingWebhookConfiguration>;

export interface Invocation {
  hook: Webhook;
  configuration: string;
  /** the version the webhook is sent the object at: the request's, or an equivalent one */
  version: string;
}

/** every webhook of the configurations with its position in the whole list, which names it in audit annotations */
export function allHooks(configurations: WebhookConfiguration[]): { hook: Webhook; configuration: string; index: number }[] {
  const out: { hook: Webhook; configuration: string; index: number }[] = [];
  for (const c of configurations)
    for (const hook of Array.isArray(c.webhooks) ? c.webhooks : []) out.push({ hook, configuration: c.metadata.name ?? '', index: out.length });
  return out;
}

/** the invocation for a hook, or undefined when the request does not concern it */
export async function invocationFor(entry: { hook: Webhook; configuration: string }, a: AdmissionAttributes,
  source: WebhookSource, listers: Listers): Promise<Invocation | undefined> {
  const version = matchingVersion(entry.hook.rules, entry.hook.matchPolicy, a, source);
  if (!version || !(await selectorsMatch(entry.hook, a, listers))) return undefined;
  return { hook: entry.hook, configuration: entry.configuration, version };
}
