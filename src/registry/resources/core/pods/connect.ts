// The node streams of a pod: log, exec, attach and portforward lead to the agent of the pod's node (with the
// parameters the agent reads, as the reference passes them), proxy to the pod's own address.
import type { Pod } from '../../../../api/types/core-v1.js';
import { badRequest, fieldCause, invalid } from '../../../../api/status.js';
import { timeProblem, type StatusCause, type Stored } from '../../../../api/meta.js';
import { integerParam, queryFlag } from '../../../../api/request.js';
import type { ConnectTarget, RestRequest } from '../../../types.js';
import { hostPort, nodeTarget, proxyableAddress, splitSchemeNamePort } from '../nodes/connection.js';

const names = (list?: { name: string }[]) => (list ?? []).map(c => c.name);

/** the container a request names, or the pod's only one */
function containerOf(pod: Stored<Pod>, asked: string | null): string {
  const main = names(pod.spec?.containers);
  const init = names(pod.spec?.initContainers);
  const ephemeral = names(pod.spec?.ephemeralContainers);
  if (!asked) {
    if (main.length === 1) return main[0]!;
    let message = `a container name must be specified for pod ${pod.metadata.name}, choose one of: [${main.join(' ')}]`;
    if (init.length) message += ` or one of the init containers: [${init.join(' ')}]`;
    if (ephemeral.length) message += ` or one of the ephemeral containers: [${ephemeral.join(' ')}]`;
    throw badRequest(message);
  }
  if (![...main, ...init, ...ephemeral].includes(asked)) throw badRequest(`container ${asked} is not valid for pod ${pod.metadata.name}`);
  return asked;
}

const podOf = async (req: RestRequest) => await req.store.get(req.namespace, req.name) as Stored<Pod>;

function scheduled(pod: Stored<Pod>): Stored<Pod> & { spec: { nodeName: string } } {
  if (!pod.spec?.nodeName) throw badRequest(`pod ${pod.metadata.name} does not have a host assigned`);
  return pod as Stored<Pod> & { spec: { nodeName: string } };
}

/** an integer option, decoded as the reference decodes an int64 (anything else is a 400) */
const int64Option = (q: URLSearchParams, name: string) => {
  const v = q.get(name);
  if (v !== null && !/^-?\d+$/.test(v)) throw badRequest(`${name}: Invalid value: ${JSON.stringify(v)}: must be a 64-bit integer`);
  return integerParam(name, v);
};

/** the decoded options out of range, as the reference validates PodLogOptions (a 422 naming each) */
function logOptionCauses(q: URLSearchParams, tailLines?: number, limitBytes?: number, sinceSeconds?: number): StatusCause[] {
  const causes: StatusCause[] = [];
  const out = (field: string, value: number, must: string) => causes.push(fieldCause('FieldValueInvalid', field, `Invalid value: ${value}: ${must}`));
  if (tailLines !== undefined && tailLines < 0) out('tailLines', tailLines, 'must be greater than or equal to 0');
  if (limitBytes !== undefined && limitBytes < 1) out('limitBytes', limitBytes, 'must be greater than 0');
  if (sinceSeconds !== undefined && q.has('sinceTime')) causes.push(fieldCause('FieldValueForbidden', '', 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (sinceSeconds !== undefined && sinceSeconds < 1) out('sinceSeconds', sinceSeconds, 'must be greater than 0');
  return causes;
}

/** pods/log: the container's log from the agent, with the reference's options */
export async function connectLog(req: RestRequest): Promise<ConnectTarget | undefined> {
  const q = req.query;
  const [tailLines, limitBytes, sinceSeconds] = ['tailLines', 'limitBytes', 'sinceSeconds'].map((name) => int64Option(q, name));
  const sinceTime = q.get('sinceTime');
  // read as the reference decodes the option's time: RFC 3339 with a zone (Date.parse takes much else)
  const sinceTimeProblem = sinceTime === null ? undefined : timeProblem(sinceTime);
  if (sinceTimeProblem) throw badRequest(`sinceTime: Invalid value: ${JSON.stringify(sinceTime)}: ${sinceTimeProblem}`);
  const causes = logOptionCauses(q, tailLines, limitBytes, sinceSeconds);
  if (causes.length) throw invalid('', 'PodLogOptions', req.name, causes);
  // the container is checked first; a pod with no node yet has an empty log, as the reference answers
  const pod = await podOf(req);
  const container = containerOf(pod, q.get('container'));
  if (!pod.spec?.nodeName) return undefined;
  const pass = new URLSearchParams();
  for (const flag of ['follow', 'previous', 'timestamps']) if (queryFlag(q.get(flag))) pass.set(flag, 'true');
  for (const opt of ['tailLines', 'limitBytes', 'sinceSeconds', 'sinceTime']) { const v = q.get(opt); if (v !== null) pass.set(opt, v); }
  const target = await nodeTarget(req, pod.spec.nodeName, `/containerLogs/${enc(req.namespace)}/${enc(req.name)}/${enc(container)}`, pass);
  if (queryFlag(q.get('insecureSkipTLSVerifyBackend')) && target.tls) target.tls.rejectUnauthorized = false;
  return { ...target, errorsAsStatus: true };
}

const enc = encodeURIComponent;

/** pods/exec and pods/attach: the agent's streaming endpoint, given what the stream carries */
export function connectStream(kind: 'exec' | 'attach') {
  return async (req: RestRequest): Promise<ConnectTarget> => {
    const q = req.query;
    const command = q.getAll('command');
    if (kind === 'exec' && command.length === 0) throw badRequest('you must specify at least 1 command');
    const flags = { stdin: queryFlag(q.get('stdin')), stdout: queryFlag(q.get('stdout')), stderr: queryFlag(q.get('stderr')), tty: queryFlag(q.get('tty')) };
    if (!flags.stdin && !flags.stdout && !flags.stderr) throw badRequest('you must specify at least one of stdin, stdout, stderr');
    const found = await podOf(req);
    const container = containerOf(found, q.get('container'));
    const pod = scheduled(found);
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed')
      throw badRequest(`cannot ${kind === 'exec' ? 'exec into' : 'attach to'} a container in a completed pod; current phase is ${pod.status.phase}`);
    // the agent's parameter names, as the reference's agents read them
    const pass = new URLSearchParams();
    if (flags.stdin) pass.set('input', '1');
    if (flags.stdout) pass.set('output', '1');
    if (flags.stderr) pass.set('error', '1');
    if (flags.tty) pass.set('tty', '1');
    for (const c of command) pass.append('command', c);
    const target = await nodeTarget(req, pod.spec.nodeName, `/${kind}/${enc(req.namespace)}/${enc(req.name)}/${enc(container)}`, pass);
    return { ...target, upgradeRequired: true };
  };
}

/** pods/portforward: the agent's port-forward endpoint (the ports travel in the stream, or as `ports` for WebSocket clients) */
export async function connectPortForward(req: RestRequest): Promise<ConnectTarget> {
  const pod = scheduled(await podOf(req));
  const pass = new URLSearchParams();
  for (const p of req.query.getAll('ports')) {
    for (const port of p.split(',')) if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw badRequest(`invalid port ${JSON.stringify(port)}`);
    pass.append('ports', p);
  }
  const target = await nodeTarget(req, pod.spec.nodeName, `/portForward/${enc(req.namespace)}/${enc(req.name)}`, pass);
  return { ...target, upgradeRequired: true };
}

/** pods/[scheme:]name[:port]/proxy/<path>: the pod's address, the path and query passed on */
export async function connectProxy(req: RestRequest, path: string): Promise<ConnectTarget> {
  const { scheme, name, port } = splitSchemeNamePort(req.name);
  const pod = await req.store.get(req.namespace, name) as Stored<Pod>;
  const ip = pod.status?.podIP;
  if (!ip) throw badRequest(`address not allowed: pod ${name} has no IP address yet`);
  if (!proxyableAddress(ip)) throw badRequest(`address not allowed: ${ip}`);
  const search = [...req.query.keys()].length ? `?${req.query}` : '';
  const s = scheme || 'http';
  return { url: new URL(`${s}://${hostPort(ip, port)}${path || '/'}${search}`), tls: { rejectUnauthorized: false } };
}
