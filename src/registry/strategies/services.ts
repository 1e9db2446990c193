// Services: defaults, cluster IP and node port allocation, and validation.
import type { ApiObject } from '../../api/meta.js';
import { invalid as invalidError } from '../../api/status.js';
import { defineStrategy, type StrategyContext } from '../strategy.js';
import { fill } from '../defaults/pod.js';
import {
  type Causes, dnsLabel, dnsSubdomain, duplicate, forbidden, invalid, isSet, labels, notSupported, oneOf, portNumber, portNumberOrName, required,
} from '../validation/fields.js';
import { familyOf, freeIp, freePort, inRange, parseCidr, withAllocations, type IpRange } from './service-allocator.js';

const types = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const protocols = ['SCTP', 'TCP', 'UDP'];
const families = ['IPv4', 'IPv6'];
const familyPolicies = ['SingleStack', 'PreferDualStack', 'RequireDualStack'];

const needsClusterIp = (s: any) => s.type !== 'ExternalName';
const needsNodePorts = (s: any) => s.type === 'NodePort' || (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts !== false);
const isHeadless = (s: any) => s.clusterIP === 'None' || s.clusterIPs?.[0] === 'None';

function defaultService(svc: any) {
  const s = svc.spec && typeof svc.spec === 'object' ? svc.spec : (svc.spec = {});
  fill(s, { type: 'ClusterIP', sessionAffinity: 'None' });
  if (s.sessionAffinity === 'ClientIP') fill((s.sessionAffinityConfig ??= {}).clientIP ??= {}, { timeoutSeconds: 10800 });
  for (const p of Array.isArray(s.ports) ? s.ports : []) {
    if (!p || typeof p !== 'object') continue;
    fill(p, { protocol: 'TCP' });
    if (!isSet(p.targetPort) || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (s.type === 'NodePort' || s.type === 'LoadBalancer') fill(s, { externalTrafficPolicy: 'Cluster' });
  if (s.type === 'LoadBalancer') fill(s, { allocateLoadBalancerNodePorts: true });
  if (s.type !== 'ExternalName') fill(s, { internalTrafficPolicy: 'Cluster' });
  // clusterIP and clusterIPs say the same thing: either may be given
  if (s.clusterIP && !(s.clusterIPs ?? []).length) s.clusterIPs = [s.clusterIP];
  else if (!s.clusterIP && (s.clusterIPs ?? []).length) s.clusterIP = s.clusterIPs[0];
}

const rangesOf = (ctx: StrategyContext): IpRange[] => (ctx.serviceClusterIpRanges ?? ['10.0.0.0/24']).map(parseCidr);
const nodePortRange = (ctx: StrategyContext) => ctx.serviceNodePortRange ?? { base: 30000, size: 2768 };
const rangeText = (r: { base: number; size: number }) => `${r.base}-${r.base + r.size - 1}`;

/** the families a service gets: what it asks for, else the cluster's primary (and secondary when it prefers both) */
function chooseFamilies(s: any, ranges: IpRange[]): void {
  const available = ranges.map(r => r.family);
  if (!s.ipFamilyPolicy) {
    // a headless service without selector serves every family the cluster has
    s.ipFamilyPolicy = isHeadless(s) && !s.selector && available.length > 1 ? 'RequireDualStack'
      : (s.ipFamilies ?? []).length > 1 || (s.clusterIPs ?? []).length > 1 ? 'RequireDualStack' : 'SingleStack';
  }
  const asked: string[] = (s.ipFamilies ?? []).length ? [...s.ipFamilies]
    : (s.clusterIPs ?? []).filter((ip: string) => ip && ip !== 'None').map((ip: string) => familyOf(ip) ?? available[0]);
  if (!asked.length) asked.push(available[0]);
  if (s.ipFamilyPolicy !== 'SingleStack' && asked.length === 1) {
    const other = available.find(f => f !== asked[0]);
    if (other) asked.push(other);
  }
  s.ipFamilies = s.ipFamilyPolicy === 'SingleStack' ? asked.slice(0, 1) : asked;
}

/** cluster IPs and node ports for a service that needs them: the ones asked for if free, new ones otherwise */
async function allocate(svc: any, ctx: StrategyContext, old?: any) {
  const s = svc.spec;
  if (!ctx.kv || !ctx.keyPrefix || !s || typeof s !== 'object') return;
  const owner = `${svc.metadata.namespace}/${svc.metadata.name}`;
  const ranges = rangesOf(ctx);
  const ports = nodePortRange(ctx);
  const causes = await withAllocations(ctx.kv, ctx.keyPrefix, owner, (inUse, reserve) => {
    const out: Causes = [];
    const takenByOther = (m: Map<string, string>, v: string) => { const who = m.get(v); return who !== undefined && who !== owner; };
    if (needsClusterIp(s)) {
      chooseFamilies(s, ranges);
      if (!isHeadless(s)) {
        const ips: string[] = (s.clusterIPs ?? []).filter(Boolean);
        for (const [i, family] of (s.ipFamilies as string[]).entries()) {
          const range = ranges.find(r => r.family === family);
          if (!range) {
            if (s.ipFamilyPolicy === 'SingleStack' || s.ipFamilyPolicy === 'RequireDualStack' || i === 0)
              out.push(invalid(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster'));
            continue;
          }
          const wanted = ips[i];
          if (wanted) {
            // an address the service already had stays its own; a changed one is refused by validation, not taken
            if (old?.spec?.clusterIPs?.[i] && needsClusterIp(old.spec)) continue;
            if (familyOf(wanted) !== family) {
              out.push(invalid(`spec.clusterIPs[${i}]`, wanted, `expected an ${family} value as indicated by \`ipFamilies[${i}]\``));
              continue;
            }
            if (!inRange(range, wanted))
              out.push(invalid('spec.clusterIPs', ips, `failed to allocate IP ${wanted}: provided IP is not in the valid range. The range of valid IPs is ${range.cidr}`));
            else if (takenByOther(inUse.ips, wanted)) out.push(invalid('spec.clusterIPs', ips, `failed to allocate IP ${wanted}: provided IP is already allocated`));
            else reserve('ips', wanted);
            continue;
          }
          const ip = freeIp(range, v => inUse.ips.has(v) && inUse.ips.get(v) !== owner);
          if (!ip) { out.push(invalid('spec.clusterIPs', ips, `failed to allocate IP: range is full`)); continue; }
          reserve('ips', ip);
          inUse.ips.set(ip, owner);
          ips[i] = ip;
        }
        if (!out.length) { s.clusterIPs = ips.slice(0, s.ipFamilies.length); s.clusterIP = s.clusterIPs[0]; }
      } else {
        s.clusterIP = 'None';
        s.clusterIPs = ['None'];
      }
    }
    if (needsNodePorts(s)) {
      // within one service a node port may repeat only across protocols of the same port; ports the service
      // names itself are claimed before any is drawn, so a drawn port never takes one named further down
      const listed: any[] = Array.isArray(s.ports) ? s.ports : [];
      const mine = new Set<number>(listed.filter(p => p && typeof p === 'object' && p.nodePort).map(p => p.nodePort));
      const oldPorts: any[] = old?.spec?.ports ?? [];
      for (const [i, p] of (Array.isArray(s.ports) ? s.ports : []).entries()) {
        if (!p || typeof p !== 'object') continue;
        if (p.nodePort) {
          const kept = oldPorts.some(o => o?.nodePort === p.nodePort);
          if (!kept) {
            if (p.nodePort < ports.base || p.nodePort >= ports.base + ports.size)
              out.push(invalid(`spec.ports[${i}].nodePort`, p.nodePort, `provided port is not in the valid range. The range of valid ports is ${rangeText(ports)}`));
            else if (takenByOther(inUse.ports, String(p.nodePort))) out.push(invalid(`spec.ports[${i}].nodePort`, p.nodePort, 'provided port is already allocated'));
            else reserve('ports', String(p.nodePort));
          }
          mine.add(p.nodePort);
          continue;
        }
        const sibling = s.ports.find((q: any) => q !== p && q?.port === p.port && q?.nodePort);
        const port = sibling?.nodePort ?? freePort(ports.base, ports.size, n => mine.has(n) || inUse.ports.has(String(n)));
        if (port === undefined) { out.push(invalid(`spec.ports[${i}].nodePort`, 0, 'range is full')); continue; }
        reserve('ports', String(port));
        inUse.ports.set(String(port), owner);
        mine.add(port);
        p.nodePort = port;
      }
    }
    return out;
  });
  if (causes.length) throw invalidError('', 'Service', svc.metadata.name ?? '', causes);
}

/** an update that leaves out what was allocated keeps it (clients often send the spec they wrote, not the one they read) */
function keepAllocated(s: any, o: any) {
  if (needsClusterIp(s) && needsClusterIp(o)) {
    if (!s.clusterIP && !(s.clusterIPs ?? []).length) { s.clusterIP = o.clusterIP; s.clusterIPs = o.clusterIPs; }
    if (!(s.ipFamilies ?? []).length && o.ipFamilies) s.ipFamilies = o.ipFamilies;
    if (!s.ipFamilyPolicy && o.ipFamilyPolicy) s.ipFamilyPolicy = o.ipFamilyPolicy;
  }
  if (needsNodePorts(s) && needsNodePorts(o))
    for (const p of Array.isArray(s.ports) ? s.ports : []) {
      if (!p || p.nodePort) continue;
      const was = (o.ports ?? []).find((q: any) => q?.port === p.port && (q?.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (was?.nodePort) p.nodePort = was.nodePort;
    }
  if (s.type === 'ExternalName') { delete s.clusterIP; delete s.clusterIPs; delete s.ipFamilies; delete s.ipFamilyPolicy; }
  if (!needsNodePorts(s)) for (const p of Array.isArray(s.ports) ? s.ports : []) if (p) delete p.nodePort;
}

function validateService(svc: any): Causes {
  const s = svc.spec ?? {};
  const out: Causes = [];
  out.push(...oneOf('spec.type', s.type, types));
  const ports: any[] = Array.isArray(s.ports) ? s.ports : [];
  if (!ports.length && s.type !== 'ExternalName' && !isHeadless(s)) out.push(required('spec.ports'));
  const names = new Set<string>(), keys = new Set<string>();
  for (const [i, p] of ports.entries()) {
    const at = `spec.ports[${i}]`;
    if (ports.length > 1 && !p?.name) out.push(required(`${at}.name`));
    else if (p?.name) {
      out.push(...dnsLabel(`${at}.name`, p.name));
      if (names.has(p.name)) out.push(duplicate(`${at}.name`, p.name));
      names.add(p.name);
    }
    out.push(...portNumber(`${at}.port`, p?.port));
    out.push(...oneOf(`${at}.protocol`, p?.protocol, protocols));
    if (isSet(p?.targetPort)) out.push(...portNumberOrName(`${at}.targetPort`, p.targetPort));
    const key = `${p?.port}/${p?.protocol}`;
    if (keys.has(key)) out.push(duplicate(at, { port: p.port, protocol: p.protocol }));
    keys.add(key);
    if (p?.nodePort && (s.type === 'ClusterIP' || s.type === 'ExternalName'))
      out.push(forbidden(`${at}.nodePort`, `may not be used when \`type\` is '${s.type}'`));
  }
  out.push(...oneOf('spec.sessionAffinity', s.sessionAffinity, ['ClientIP', 'None']));
  const timeout: number = s.sessionAffinityConfig?.clientIP?.timeoutSeconds;
  if (s.sessionAffinity === 'ClientIP' && isSet(timeout) && !(timeout > 0 && timeout <= 86400))
    out.push(invalid('spec.sessionAffinityConfig.clientIP.timeoutSeconds', timeout, 'must be greater than 0 and less than 86400'));
  out.push(...labels('spec.selector', s.selector));
  if (s.type === 'ExternalName') {
    if (!s.externalName) out.push(required('spec.externalName'));
    else out.push(...dnsSubdomain('spec.externalName', String(s.externalName).replace(/\.$/, '')));
  }
  if (isSet(s.externalTrafficPolicy) && s.externalTrafficPolicy !== '') {
    if (s.type !== 'NodePort' && s.type !== 'LoadBalancer')
      out.push(invalid('spec.externalTrafficPolicy', s.externalTrafficPolicy, "may only be set when `type` is 'NodePort' or 'LoadBalancer'"));
    else out.push(...oneOf('spec.externalTrafficPolicy', s.externalTrafficPolicy, ['Cluster', 'Local']));
  }
  if (isSet(s.internalTrafficPolicy) && s.type !== 'ExternalName') out.push(...oneOf('spec.internalTrafficPolicy', s.internalTrafficPolicy, ['Cluster', 'Local']));
  if (isSet(s.ipFamilyPolicy)) out.push(...oneOf('spec.ipFamilyPolicy', s.ipFamilyPolicy, familyPolicies));
  for (const [i, f] of (s.ipFamilies ?? []).entries()) if (!families.includes(f)) out.push(notSupported(`spec.ipFamilies[${i}]`, f, families));
  for (const [i, ip] of (s.clusterIPs ?? []).entries())
    if (ip && ip !== 'None' && !familyOf(ip)) out.push(invalid(`spec.clusterIPs[${i}]`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  if (s.clusterIP && (s.clusterIPs ?? []).length && s.clusterIP !== s.clusterIPs[0])
    out.push(invalid('spec.clusterIPs', s.clusterIPs, 'first value must match `clusterIP`'));
  for (const [i, ip] of (s.externalIPs ?? []).entries())
    if (!familyOf(ip)) out.push(invalid(`spec.externalIPs[${i}]`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  return out;
}

function validateServiceUpdate(svc: any, old: any): Causes {
  const out = validateService(svc);
  const s = svc.spec ?? {}, o = old.spec ?? {};
  // the primary IP stays unless the service turns into, or from, an ExternalName
  if (needsClusterIp(s) && needsClusterIp(o) && o.clusterIPs?.[0] && s.clusterIPs?.[0] !== o.clusterIPs[0])
    out.push(invalid('spec.clusterIPs[0]', s.clusterIPs ?? [], 'may not change once set'));
  if (needsClusterIp(s) && needsClusterIp(o) && o.ipFamilies?.[0] && s.ipFamilies?.[0] !== o.ipFamilies[0])
    out.push(invalid('spec.ipFamilies[0]', s.ipFamilies?.[0] ?? '', 'may not change once set'));
  return out;
}

export const services = defineStrategy({
  nameRule: 'dns-label',
  generation: false,
  async prepareForCreate(obj: ApiObject, ctx) {
    const svc = obj as any;
    svc.status = { loadBalancer: {} };
    defaultService(svc);
    await allocate(svc, ctx);
  },
  async prepareForUpdate(obj: ApiObject, old: ApiObject, ctx) {
    const svc = obj as any;
    defaultService(svc);
    keepAllocated(svc.spec, (old as any).spec ?? {});
    await allocate(svc, ctx, old);
  },
  validate: validateService,
  validateUpdate: validateServiceUpdate,
});
