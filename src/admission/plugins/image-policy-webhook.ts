// ImagePolicyWebhook: every pod's images (and ephemeral containers' images) are put to an image-policy backend
// as an ImageReview over HTTPS, described by a client-configuration file. Answers are cached (allowTTL, denyTTL);
// a backend that cannot be reached after retries (from retryBackoff, doubling) admits the pod when defaultAllow
// is set, recording that it failed open, and refuses it otherwise.
import { resolve, dirname } from 'node:path';
import { definePlugin } from '../types.js';
import { configError, keyedConfig } from '../config.js';
import { podSpec, refuse } from '../util.js';
import type { Pod } from '../../api/types/core-v1.js';
import { openWebhookClient, ttlCache, type WebhookClient } from '../../util/webhook-client.js';
import type { AdmissionAttributes } from '../../api/admission.js';

interface ImagePolicyConfig {
  kubeConfigFile?: string;
  /** seconds an allowing answer is cached */
  allowTTL?: number;
  /** seconds a denying answer is cached */
  denyTTL?: number;
  /** milliseconds before the first retry */
  retryBackoff?: number;
  defaultAllow?: boolean;
}

interface ReviewStatus { allowed?: boolean; reason?: string; auditAnnotations?: Record<string, string> }

const limits = { allowTTL: [300, 1, 1800], denyTTL: [30, 1, 1800], retryBackoff: [500, 1, 300_000] } as const;
const attempts = 5;

/** the setting, its default when 0 or absent, refused outside its bounds */
function bounded(plugin: string, c: ImagePolicyConfig, key: keyof typeof limits): number {
  const [fallback, min, max] = limits[key];
  const v = c[key];
  if (v === undefined || v === 0) return fallback;
  if (typeof v !== 'number' || v < min || v > max) throw configError(plugin, `imagePolicy.${key}: Invalid value: ${v}: must be between ${min} and ${max}`);
  return v;
}

export default definePlugin({
  name: 'ImagePolicyWebhook',
  defaultOn: false,
  create: ({ config, configPath, names }) => {
    const plugin = 'ImagePolicyWebhook';
    const c = keyedConfig<ImagePolicyConfig>(plugin, config, 'imagePolicy');
    if (!c?.kubeConfigFile) throw configError(plugin, 'imagePolicy.kubeConfigFile is required: the client configuration of the image-policy backend');
    const allowTtlMs = bounded(plugin, c, 'allowTTL') * 1000;
    const denyTtlMs = bounded(plugin, c, 'denyTTL') * 1000;
    const backoffMs = bounded(plugin, c, 'retryBackoff');
    const defaultAllow = c.defaultAllow === true;
    let client: WebhookClient;
    try {
      client = openWebhookClient(configPath ? resolve(dirname(configPath), c.kubeConfigFile) : c.kubeConfigFile);
    } catch (e) {
      throw configError(plugin, `imagePolicy.kubeConfigFile: ${(e as Error).message}`);
    }
    const policyDomain = `.image-policy.${names.labelDomain}`;
    const auditPrefix = `imagepolicywebhook.image-policy.${names.labelDomain}/`;
    const failedOpen = `alpha.image-policy.${names.labelDomain}/failed-open`;
    const apiVersion = `${names.group('imagepolicy')}/v1alpha1`;
    const cache = ttlCache<ReviewStatus>();

    async function ask(spec: object): Promise<ReviewStatus> {
      let wait = backoffMs;
      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await client.post({ apiVersion, kind: 'ImageReview', spec });
          return (answer?.status ?? {}) as ReviewStatus;
        } catch (e) {
          if (attempt >= attempts) throw e;
          await new Promise(r => setTimeout(r, wait));
          wait *= 2;
        }
      }
    }

    return {
      name: plugin,
      operations: ['CREATE', 'UPDATE'],
      async validate(a: AdmissionAttributes) {
        if (a.group !== '' || a.resource !== 'pods' || !a.object || (a.subresource !== '' && a.subresource !== 'ephemeralcontainers')) return;
        const spec = podSpec(a.object);
        const containers = a.subresource ? spec.ephemeralContainers ?? [] : [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
        const pod = a.object as Pod;
        // only the annotations meant for the backend (<anything>.image-policy.<domain>/<key>) go with the review
        const annotations = Object.fromEntries(Object.entries(pod.metadata?.annotations ?? {})
          .filter(([k]) => k.includes('/') && k.split('/')[0]!.endsWith(policyDomain)));
        const review = { containers: containers.map(c => ({ image: c?.image })), annotations, namespace: a.namespace };
        const key = JSON.stringify(review);
        let status = cache.get(key);
        if (!status) {
          try {
            status = await ask(review);
          } catch (e) {
            if (!defaultAllow) throw refuse(a, `image policy webhook backend could not be reached: ${(e as Error).message}`);
            a.annotate?.(`${auditPrefix}failed-open`, 'true');
            (a.object.metadata.annotations ??= {})[failedOpen] = 'true';
            return;
          }
          cache.set(key, status, status.allowed === true ? allowTtlMs : denyTtlMs);
        }
        for (const [k, v] of Object.entries(status.auditAnnotations ?? {})) a.annotate?.(auditPrefix + k, String(v));
        if (status.allowed !== true)
          throw refuse(a, status.reason ? `image policy webhook backend denied one or more images: ${status.reason}` : 'one or more images rejected by webhook backend');
      },
    };
  },
});
