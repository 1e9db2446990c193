// Where a webhook is reached and which review versions it takes, as the reference checks them for admission webhooks
// and CRD conversion webhooks alike: an https URL without user information, query or fragment, or a Service
// reference with a valid port and path; review versions listed once each, as DNS labels, one of them known.
import type { ServiceReference } from '../../api/types/admissionregistration-v1.js';
import { type Causes, invalid, isInt, required } from './fields.js';
import { nameProblems } from './object-meta.js';

export function validateWebhookUrl(at: string, raw: string): Causes {
  const form = '; desired format: https://host[/path]';
  let u: URL;
  try { u = new URL(raw); } catch (e) { return [required(at, `url must be a valid URL: ${(e as Error).message}${form}`)]; }
  const out: Causes = [];
  if (u.protocol !== 'https:') out.push(invalid(at, u.protocol.replace(/:$/, ''), `'https' is the only allowed URL scheme${form}`));
  if (!u.host) out.push(invalid(at, u.host, `host must be provided${form}`));
  if (u.username || u.password) out.push(invalid(at, u.password ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
  if (u.hash.length > 1) out.push(invalid(at, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1) out.push(invalid(at, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return out;
}

export function validateWebhookService(at: string, s: ServiceReference): Causes {
  const out: Causes = [];
  if (!s.name) out.push(required(`${at}.name`, 'service name is required'));
  if (!s.namespace) out.push(required(`${at}.namespace`, 'service namespace is required'));
  const port = s.port ?? 443;
  if (!isInt(port) || port < 1 || port > 65535) out.push(invalid(`${at}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const path: unknown = s.path;
  if (typeof path !== 'string' || path === '' || path === '/') return out;
  if (path === '//') return [...out, invalid(`${at}.path`, path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) out.push(invalid(`${at}.path`, path, "must start with a '/'"));
  let rest = path.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  rest.split('/').forEach((step, i) => {
    if (step === '') { out.push(invalid(`${at}.path`, path, `segment[${i}] may not be empty`)); return; }
    for (const p of nameProblems(step, 'dns-subdomain')) out.push(invalid(`${at}.path`, path, `segment[${i}]: ${p}`));
  });
  return out;
}


/** review versions: at least one (`requiredDetail` says which), each once and a DNS label; with `requireKnown`, one of `known` */
export function validateReviewVersions(at: string, versions: string[] | undefined, known: readonly string[], requireKnown: boolean, requiredDetail: string): Causes {
  const vs = Array.isArray(versions) ? versions : [];
  if (vs.length === 0) return [required(at, requiredDetail)];
  const out: Causes = [];
  const seen = new Set<string>();
  vs.forEach((v, i) => {
    if (seen.has(v)) { out.push(invalid(`${at}[${i}]`, v, 'duplicate version')); return; }
    seen.add(v);
    for (const p of nameProblems(String(v), 'dns-label')) out.push(invalid(`${at}[${i}]`, v, p));
  });
  if (requireKnown && !vs.some(v => known.includes(v)))
    out.push(invalid(at, vs, `must include at least one of ${known.join(', ')}`));
  return out;
}
