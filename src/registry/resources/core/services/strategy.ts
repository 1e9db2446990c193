// Services: defaults, cluster IP and node port allocation, and validation.
import type { Stored } from '../../../../api/meta.js';
import type { Service, ServicePort, ServiceSpec } from '../../../../api/types/core-v1.js';
import { invalid as invalidError } from '../../../../api/status.js';
import { formatIp, parseCidrText, parseIp } from '../../../../api/ip.js';
import type { Naming } from '../../../../api/naming.js';
import { defineStrategy, type StrategyContext } from '../../../strategy.js';
import { fill } from '../../../defaults/fill.js';
import {
  type Causes, dnsLabel, dnsSubdomain, duplicate, forbidden, invalid, isSet, labels, notSupported, oneOf, portNumber, portNumberOrName, qualifiedName,
  required,
} from '../../../validation/fields.js';
import {
  AllocationError, familyOf, hasNodePorts, inRange, ipAt, ipOffset, isHeadless, needsClusterIp, needsHealthCheckPort, needsNodePorts, releaseHeld,
  serviceAllocators,
  type IpRange, type RangeAllocator, type ServiceRanges,
} from './allocator.js';

const types = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const protocols = ['SCTP', 'TCP', 'UDP'];
const families = ['IPv4', 'IPv6'];
const familyPolicies = ['SingleStack', 'PreferDualStack', 'RequireDualStack'];
/** the node agent's port */
const kubeletPort = 10250;

type Svc = Stored<Service>;

const portsOf = (s: ServiceSpec): ServicePort[] => (Array.isArray(s.ports) ? s.ports : []);

function defaultService(svc: Service) {
  const s = svc.spec && typeof svc.spec === 'object' ? svc.spec : (svc.spec = {});
  fill(s, { type: 'ClusterIP', sessionAffinity: 'None' });
  if (s.sessionAffinity === 'ClientIP') fill((s.sessionAffinityConfig ??= {}).clientIP ??= {}, { timeoutSeconds: 10800 });
  // as the reference defaults: no affinity, no affinity settings (a service turned back from ClientIP sheds them)
  if (s.sessionAffinity === 'None') delete s.sessionAffinityConfig;
  for (const p of portsOf(s)) {
    if (!p || typeof p !== 'object') continue;
    fill(p, { protocol: 'TCP' });
    if (!isSet(p.targetPort) || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (s.type === 'NodePort' || s.type === 'LoadBalancer') fill(s, { externalTrafficPolicy: 'Cluster' });
  if (s.type === 'LoadBalancer') fill(s, { allocateLoadBalancerNodePorts: true });
  if (s.type !== 'ExternalName') fill(s, { internalTrafficPolicy: 'Cluster' });
  // an old client gives clusterIP alone, which then speaks for clusterIPs; clusterIPs alone is refused (see allocate)
  if (s.clusterIP && !s.clusterIPs?.length) s.clusterIPs = [s.clusterIP];
}

const rangesOf = (ctx: StrategyContext): ServiceRanges => ({
  clusterIps: ctx.serviceClusterIpRanges ?? ['10.0.0.0/24'], nodePorts: ctx.serviceNodePortRange ?? { base: 30000, size: 2768 },
});

type Family = IpRange['family'];
const otherFamily = (f: Family): Family => (f === 'IPv4' ? 'IPv6' : 'IPv4');

/** addresses or families validation refuses: the families are not chosen from them, nor anything allocated */
const malformedIps = (s: ServiceSpec) => clusterIpsCauses(s.clusterIPs ?? []).length > 0
  || (s.ipFamilies ?? []).some((f, i, all) => !families.includes(f) || all.indexOf(f) < i);

/**
 * A PreferDualStack service updated without a change to its addresses and families keeps them as they are, whatever
 * the cluster now offers (the reference neither adds nor drops a family on its own after the cluster changed)
 */
function unchangedPreferDualStack(s: ServiceSpec, o: ServiceSpec | undefined): boolean {
  return !!o && s.ipFamilyPolicy === 'PreferDualStack' && o.ipFamilyPolicy === 'PreferDualStack' && s.type === o.type
    && isHeadless(s) === isHeadless(o) && sameJson(s.clusterIPs ?? [], o.clusterIPs ?? []) && sameJson(s.ipFamilies ?? [], o.ipFamilies ?? []);
}

/**
 * The families a service gets, as the reference chooses them: what it asks for (ipFamilies, then the families of the
 * clusterIPs it names), else the cluster's primary, and the cluster's secondary too unless it asks for one stack.
 * What the cluster cannot give is refused. `old` is the stored service on an update (one that has cluster IPs).
 */
function chooseFamilies(s: ServiceSpec, available: Family[], old?: ServiceSpec): Causes {
  // a headless service without selector allocates nothing, so it may name families the cluster lacks: as the reference,
  // it requires both unless it asks for one stack, even on a single-stack cluster
  const selectorless = isHeadless(s) && Object.keys(s.selector ?? {}).length === 0;
  s.ipFamilyPolicy ||= selectorless ? 'RequireDualStack' : 'SingleStack';
  if (unchangedPreferDualStack(s, old)) return [];
  const out: Causes = [];
  if (s.ipFamilyPolicy === 'SingleStack') {
    // an update to one stack that leaves the addresses and families as they were releases the secondary ones
    if (old && sameJson(s.clusterIPs ?? [], old.clusterIPs ?? []) && (s.clusterIPs ?? []).length > 1) s.clusterIPs = s.clusterIPs!.slice(0, 1);
    if (old && sameJson(s.ipFamilies ?? [], old.ipFamilies ?? []) && (s.ipFamilies ?? []).length > 1) s.ipFamilies = s.ipFamilies!.slice(0, 1);
    if ((s.clusterIPs ?? []).length === 2)
      out.push(invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    if ((s.ipFamilies ?? []).length === 2)
      out.push(invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
  }
  const chosen: Family[] = [...(s.ipFamilies ?? [])];
  // the families of the addresses asked for beyond ipFamilies
  for (const [i, ip] of (s.clusterIPs ?? []).entries()) {
    if (ip === 'None') break;
    const family = familyOf(ip);
    if (!family || i < chosen.length) continue;
    if (available.includes(family)) chosen.push(family);
    else out.push(invalid(`spec.clusterIPs[${i}]`, s.clusterIPs, `${family} is not configured on this cluster`));
  }
  if (out.length) return out;
  if (selectorless) {
    if (!chosen.length) chosen.push(available[0]);
    if (chosen.length < 2 && s.ipFamilyPolicy !== 'SingleStack') chosen.push(otherFamily(chosen[0]));
    s.ipFamilies = chosen;
    return [];
  }
  if (s.ipFamilyPolicy === 'RequireDualStack' && available.length < 2)
    out.push(invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
  for (const [i, family] of chosen.entries()) if (!available.includes(family)) out.push(invalid(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster'));
  if (out.length) return out;
  if (!chosen.length) chosen.push(available[0]);
  if (s.ipFamilyPolicy !== 'SingleStack' && chosen.length === 1 && available.length === 2) chosen.push(otherFamily(chosen[0]));
  s.ipFamilies = chosen;
  return [];
}

/** cluster IPs and node ports for a service that needs them: the ones asked for if free, new ones otherwise */
async function allocate(svc: Svc, ctx: StrategyContext, old?: Svc) {
  const s = svc.spec;
  if (!ctx.objects || !s || typeof s !== 'object') return;
  const a = serviceAllocators(ctx.objects, rangesOf(ctx));
  const ports = a.nodePorts;
  const dryRun = !!ctx.dryRun;
  const out: Causes = [];
  /** what this write took, given back when it is not stored */
  const taken: Taken = [];
  const take = async (allocator: RangeAllocator, asks: Array<number | undefined>) => {
    const got = await allocator.allocate(asks, dryRun);
    if (!dryRun) taken.push({ allocator, offsets: got });
    return got;
  };
  const refused = (e: unknown) => { if (!(e instanceof AllocationError)) throw e; return e; };
  try {
    if (needsClusterIp(s)) {
      // as the reference checks before it allocates: a client that gives clusterIPs gives clusterIP too
      if (!s.clusterIP && (s.clusterIPs ?? []).length) out.push(clusterIpsWithoutClusterIp(s.clusterIPs!));
      // addresses or families that validation refuses are left to it
      const malformed = malformedIps(s);
      if (!out.length && !malformed)
        out.push(...chooseFamilies(s, a.ips.map(r => r.cidr.family), old?.spec && needsClusterIp(old.spec) ? old.spec : undefined));
      if (!isHeadless(s) && !out.length && !malformed) {
        const ips: string[] = (s.clusterIPs ?? []).filter(Boolean);
        for (const [i, family] of (s.ipFamilies ?? []).entries()) {
          const range = a.ips.find(r => r.cidr.family === family);
          if (!range) {
            if (s.ipFamilyPolicy === 'SingleStack' || s.ipFamilyPolicy === 'RequireDualStack' || i === 0)
              out.push(invalid(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster'));
            continue;
          }
          const wanted = ips[i];
          // a secondary address left out of an update is released, never replaced (validation says how to release it)
          if (!wanted && i > 0 && old?.spec?.clusterIPs?.[i] && needsClusterIp(old.spec)) continue;
          if (wanted) {
            // an address the service already had stays its own; a changed one is refused by validation, not taken
            if (old?.spec?.clusterIPs?.[i] && needsClusterIp(old.spec)) continue;
            if (familyOf(wanted) !== family) {
              out.push(invalid(`spec.clusterIPs[${i}]`, wanted, `expected an ${family} value as indicated by \`ipFamilies[${i}]\``));
              continue;
            }
            const offset = ipOffset(range.cidr, wanted);
            if (!inRange(range.cidr, wanted) || offset === undefined) {
              out.push(invalid('spec.clusterIPs', ips, `failed to allocate IP ${wanted}: provided IP is not in the valid range. The range of valid IPs is ${range.cidr.cidr}`));
              continue;
            }
            await take(range.allocator, [offset]).catch(e => {
              refused(e);
              out.push(invalid('spec.clusterIPs', ips, `failed to allocate IP ${wanted}: provided IP is already allocated`));
            });
            continue;
          }
          const got = await take(range.allocator, [undefined]).catch(e => { refused(e); return undefined; });
          if (!got) { out.push(invalid('spec.clusterIPs', ips, 'failed to allocate IP: range is full')); continue; }
          ips[i] = ipAt(range.cidr, got[0]);
        }
        // a clusterIP that differs from the first of clusterIPs stays, for validation to refuse
        if (!out.length) { s.clusterIPs = ips.slice(0, s.ipFamilies?.length ?? 0); s.clusterIP ||= s.clusterIPs[0]; }
      } else if (isHeadless(s) && !malformed) {
        s.clusterIP = 'None';
        s.clusterIPs = ['None'];
      }
    }
    if (hasNodePorts(s) && !out.length) {
      // within one service a node port may repeat only across protocols of the same port; ports the service names
      // itself are asked for before any is drawn, so a drawn port never takes one named further down
      const entries = [...portsOf(s).entries()].filter(([, p]) => p && typeof p === 'object');
      const had = new Set((old?.spec?.ports ?? []).map(o => o?.nodePort).filter(Boolean));
      /** a port number: the node port one of its entries names (the others of other protocols share it) */
      const shared = new Map<number, number>();
      for (const [, p] of entries) if (p.nodePort && !shared.has(p.port)) shared.set(p.port, p.nodePort);
      const asks: Array<number | undefined> = [];
      const askedBy: number[] = [];   // the index in spec.ports of each ask
      const named = new Set<number>();
      for (const [i, p] of entries) {
        if (!p.nodePort || had.has(p.nodePort) || named.has(p.nodePort)) continue;
        if (p.nodePort < ports.base || p.nodePort >= ports.base + ports.size) {
          out.push(invalid(`spec.ports[${i}].nodePort`, p.nodePort, `provided port is not in the valid range. The range of valid ports is ${a.ports.range.text}`));
          continue;
        }
        named.add(p.nodePort);
        asks.push(p.nodePort - ports.base);
        askedBy.push(i);
      }
      const drawFor = new Map<number, number>();   // a port number without node port: its ask
      for (const [i, p] of entries) {
        if (p.nodePort || shared.has(p.port) || drawFor.has(p.port) || !needsNodePorts(s)) continue;
        drawFor.set(p.port, asks.length);
        asks.push(undefined);
        askedBy.push(i);
      }
      if (!out.length && asks.length) {
        try {
          const got = await take(a.ports, asks);
          for (const [port, ask] of drawFor) shared.set(port, ports.base + got[ask]);
        } catch (e) {
          const { index, reason } = refused(e);
          const i = askedBy[index];
          out.push(reason === 'full' ? invalid(`spec.ports[${i}].nodePort`, 0, 'range is full')
            : invalid(`spec.ports[${i}].nodePort`, portsOf(s)[i].nodePort, 'provided port is already allocated'));
        }
      }
      if (!out.length && needsNodePorts(s)) for (const [, p] of entries) p.nodePort ||= shared.get(p.port);
    }
    // the health check port comes from the node port range too, the one asked for or any free one; one the service
    // already held stays its own (validation refuses a change of it)
    const heldCheck = old?.spec && needsHealthCheckPort(old.spec) ? old.spec.healthCheckNodePort : undefined;
    if (needsHealthCheckPort(s) && !out.length && !heldCheck) {
      const asked = s.healthCheckNodePort;
      if (asked && (asked < ports.base || asked >= ports.base + ports.size)) {
        out.push(invalid('spec.healthCheckNodePort', asked, `provided port is not in the valid range. The range of valid ports is ${a.ports.range.text}`));
      } else {
        try {
          const got = await take(a.ports, [asked ? asked - ports.base : undefined]);
          s.healthCheckNodePort = ports.base + got[0];
        } catch (e) {
          const { reason } = refused(e);
          out.push(reason === 'full' ? invalid('spec.healthCheckNodePort', 0, 'range is full') : invalid('spec.healthCheckNodePort', asked, 'provided port is already allocated'));
        }
      }
    }
  } catch (e) {
    await giveBack(taken);
    throw e;
  }
  if (out.length) {
    await giveBack(taken);
    throw invalidError('', 'Service', svc.metadata.name ?? '', out);
  }
  ctx.onFinish?.(stored => (stored ? releaseHeld(a, old, svc) : giveBack(taken)));
}

const clusterIpsWithoutClusterIp = (ips: string[]) => invalid('spec.clusterIPs', ips, 'must be empty when `clusterIP` is not specified');

type Taken = Array<{ allocator: RangeAllocator; offsets: number[] }>;
const giveBack = (taken: Taken) => Promise.all(taken.map(t => t.allocator.release(t.offsets))).then(() => {});

/**
 * clusterIP and clusterIPs of an update made as one: an old client changes clusterIP alone, which then speaks for
 * clusterIPs (so that a change is seen and refused, not silently undone); one that leaves clusterIPs out keeps them
 */
function normalizeClusterIps(s: ServiceSpec, o: ServiceSpec) {
  const same = sameJson(s.clusterIPs ?? [], o.clusterIPs ?? []);
  if ((o.clusterIPs ?? []).length && !(s.clusterIPs ?? []).length && s.clusterIP === o.clusterIP) s.clusterIPs = o.clusterIPs;
  else if (s.clusterIP !== o.clusterIP && same) {
    if (s.clusterIP) s.clusterIPs = [s.clusterIP];
    else delete s.clusterIPs;
  }
}

/** an update that leaves out what was allocated keeps it (clients often send the spec they wrote, not the one they read) */
function keepAllocated(s: ServiceSpec, o: ServiceSpec) {
  if (needsClusterIp(s) && needsClusterIp(o)) {
    if (!s.clusterIP) s.clusterIP = o.clusterIP;
    if (!(s.clusterIPs ?? []).length && o.clusterIPs) s.clusterIPs = o.clusterIPs;
    if (!(s.ipFamilies ?? []).length && o.ipFamilies) s.ipFamilies = o.ipFamilies;
    if (!s.ipFamilyPolicy && o.ipFamilyPolicy) s.ipFamilyPolicy = o.ipFamilyPolicy;
  }
  if (hasNodePorts(s) && hasNodePorts(o)) {
    // as the reference, a port keeps the node port of the old port of its name (its number may have changed), unless
    // another port of the update names that node port
    const named = new Set(portsOf(s).map(p => p?.nodePort).filter(Boolean));
    const byName = new Map(portsOf(o).filter(q => q?.nodePort).map(q => [q.name ?? '', q.nodePort]));
    for (const p of portsOf(s)) {
      if (!p || typeof p !== 'object' || p.nodePort) continue;
      const was = byName.get(p.name ?? '');
      if (was && !named.has(was)) p.nodePort = was;
    }
  }
  if (needsHealthCheckPort(s) && needsHealthCheckPort(o) && !s.healthCheckNodePort && o.healthCheckNodePort) s.healthCheckNodePort = o.healthCheckNodePort;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const needsTrafficPolicy = (s: ServiceSpec) => s.type === 'NodePort' || s.type === 'LoadBalancer';

/**
 * A service that changes type loses the fields the new type has no use for, when the update left them as they were:
 * `kubectl patch -p '{"spec":{"type":"ClusterIP"}}'` on a NodePort service carries its externalTrafficPolicy along,
 * which a ClusterIP service may not have. A field the update changed stays, for validation to judge.
 */
function dropTypeDependentFields(s: ServiceSpec, o: ServiceSpec) {
  if (needsClusterIp(o) && !needsClusterIp(s)) {
    if (s.clusterIP === o.clusterIP && sameJson(s.clusterIPs ?? [], o.clusterIPs ?? [])) { delete s.clusterIP; delete s.clusterIPs; }
    if (sameJson(s.ipFamilies ?? [], o.ipFamilies ?? [])) delete s.ipFamilies;
    if ((s.ipFamilyPolicy ?? '') === (o.ipFamilyPolicy ?? '')) delete s.ipFamilyPolicy;
  }
  // node ports go when the update names none the service did not have (it may drop or move ports, not add node ports)
  const had = new Set(portsOf(o).map(p => p?.nodePort).filter(Boolean));
  if (hasNodePorts(o) && !hasNodePorts(s) && portsOf(s).every(p => !p?.nodePort || had.has(p.nodePort)))
    for (const p of portsOf(s)) if (p && typeof p === 'object') delete p.nodePort;
  if (needsTrafficPolicy(o) && !needsTrafficPolicy(s) && s.externalTrafficPolicy === o.externalTrafficPolicy) delete s.externalTrafficPolicy;
  if (needsHealthCheckPort(o) && !needsHealthCheckPort(s) && s.healthCheckNodePort === o.healthCheckNodePort) delete s.healthCheckNodePort;
  if (o.type !== 'ExternalName' && s.type === 'ExternalName' && s.internalTrafficPolicy === o.internalTrafficPolicy) delete s.internalTrafficPolicy;
  if (o.type === 'LoadBalancer' && s.type !== 'LoadBalancer') {
    if (s.allocateLoadBalancerNodePorts === o.allocateLoadBalancerNodePorts) delete s.allocateLoadBalancerNodePorts;
    if (sameJson(s.loadBalancerClass, o.loadBalancerClass)) delete s.loadBalancerClass;
  }
}

/** the topology annotation and the one it replaces (deprecated in 1.27) say the same when both are there */
function topologyAnnotationCauses(svc: Svc, names: Naming): Causes {
  const modeKey = `service.${names.labelDomain}/topology-mode`, hints = `service.${names.labelDomain}/topology-aware-hints`;
  const a = svc.metadata.annotations ?? {};
  return a[modeKey] !== undefined && a[hints] !== undefined && a[modeKey] !== a[hints]
    ? [invalid(`metadata.annotations[${modeKey}]`, a[modeKey], `must match annotations[${hints}] when both are specified`)] : [];
}

function validateService(svc: Svc, naming: Naming): Causes {
  const s = svc.spec ?? {};
  const out: Causes = topologyAnnotationCauses(svc, naming);
  out.push(...oneOf('spec.type', s.type, types));
  const ports = portsOf(s);
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
    if (isSet(p?.appProtocol)) out.push(...qualifiedName(`${at}.appProtocol`, String(p.appProtocol)));
    const key = `${p?.port}/${p?.protocol}`;
    if (keys.has(key)) out.push(duplicate(at, { port: p.port, protocol: p.protocol }));
    keys.add(key);
    // only a ClusterIP service is refused a node port: an ExternalName one keeps it unallocated, as in the reference
    if (p?.nodePort && s.type === 'ClusterIP') out.push(forbidden(`${at}.nodePort`, "may not be used when `type` is 'ClusterIP'"));
  }
  // a node port serves one port of a protocol: TCP and UDP may share one, two TCP ports may not
  const nodePorts = new Set<string>();
  for (const [i, p] of ports.entries()) {
    if (!p?.nodePort) continue;
    const key = `${p.nodePort}/${p.protocol}`;
    if (nodePorts.has(key)) out.push(duplicate(`spec.ports[${i}].nodePort`, p.nodePort));
    nodePorts.add(key);
  }
  // a workaround the reference keeps for clouds whose firewalls open a load balancer's ports on every node
  if (s.type === 'LoadBalancer')
    for (const [i, p] of ports.entries()) if (p?.port === kubeletPort) out.push(invalid(`spec.ports[${i}]`, p.port, `may not expose port ${kubeletPort} externally since it is used by kubelet`));
  if (isHeadless(s) && (s.type === 'NodePort' || s.type === 'LoadBalancer'))
    out.push(invalid('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${s.type} services`));
  if (s.type === 'ExternalName') {
    // an ExternalName service is a DNS alias: it has no addresses of its own
    if ((s.clusterIPs ?? []).length || s.clusterIP) out.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if ((s.ipFamilies ?? []).length) out.push(forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (s.ipFamilyPolicy) out.push(forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
  }
  out.push(...oneOf('spec.sessionAffinity', s.sessionAffinity, ['ClientIP', 'None']));
  const sourceRanges = s.loadBalancerSourceRanges ?? [];
  if (sourceRanges.length) {
    // the reference names this field with a capital letter
    if (s.type !== 'LoadBalancer') out.push(forbidden('spec.LoadBalancerSourceRanges', "may only be used when `type` is 'LoadBalancer'"));
    if (sourceRanges.some(r => typeof r !== 'string' || !parseCidrText(r.trim())))
      out.push(invalid('spec.LoadBalancerSourceRanges', `[${sourceRanges.join(' ')}]`, 'must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 '));
  }
  if (isSet(s.allocateLoadBalancerNodePorts) && s.type !== 'LoadBalancer')
    out.push(forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  if (isSet(s.loadBalancerClass)) {
    if (s.type !== 'LoadBalancer') out.push(forbidden('spec.loadBalancerClass', "may only be used when `type` is 'LoadBalancer'"));
    else out.push(...qualifiedName('spec.loadBalancerClass', String(s.loadBalancerClass)));
  }
  const timeout = s.sessionAffinityConfig?.clientIP?.timeoutSeconds;
  if (s.sessionAffinity === 'ClientIP' && isSet(timeout) && !(timeout > 0 && timeout <= 86400))
    out.push(invalid('spec.sessionAffinityConfig.clientIP.timeoutSeconds', timeout, 'must be greater than 0 and less than 86400'));
  out.push(...labels('spec.selector', s.selector));
  if (s.type === 'ExternalName') {
    if (!s.externalName) out.push(required('spec.externalName'));
    else out.push(...dnsSubdomain('spec.externalName', String(s.externalName).replace(/\.$/, '')));
  }
  // an empty policy is an unset one
  const trafficPolicy: string | undefined = s.externalTrafficPolicy;
  if (isSet(trafficPolicy) && trafficPolicy !== '') {
    if (s.type !== 'NodePort' && s.type !== 'LoadBalancer')
      out.push(invalid('spec.externalTrafficPolicy', trafficPolicy, "may only be set when `type` is 'NodePort' or 'LoadBalancer'"));
    else out.push(...oneOf('spec.externalTrafficPolicy', trafficPolicy, ['Cluster', 'Local']));
  }
  if (isSet(s.healthCheckNodePort) && s.healthCheckNodePort !== 0 && !needsHealthCheckPort(s))
    out.push(invalid('spec.healthCheckNodePort', s.healthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  if (isSet(s.internalTrafficPolicy) && s.type !== 'ExternalName') out.push(...oneOf('spec.internalTrafficPolicy', s.internalTrafficPolicy, ['Cluster', 'Local']));
  if (isSet(s.ipFamilyPolicy)) out.push(...oneOf('spec.ipFamilyPolicy', s.ipFamilyPolicy, familyPolicies));
  for (const [i, f] of (s.ipFamilies ?? []).entries()) {
    if (!families.includes(f)) out.push(notSupported(`spec.ipFamilies[${i}]`, f, families));
    if (s.ipFamilies!.indexOf(f) < i) out.push(duplicate(`spec.ipFamilies[${i}]`, f));
  }
  out.push(...clusterIpsCauses(s.clusterIPs ?? []));
  if (s.type !== 'ExternalName' && !s.clusterIP && s.clusterIPs?.length) out.push(clusterIpsWithoutClusterIp(s.clusterIPs));
  if (s.clusterIP && s.clusterIPs?.length && s.clusterIP !== s.clusterIPs[0])
    out.push(invalid('spec.clusterIPs', s.clusterIPs, 'first value must match `clusterIP`'));
  for (const [i, ip] of (s.externalIPs ?? []).entries()) {
    if (!familyOf(ip)) out.push(invalid(`spec.externalIPs[${i}]`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    else out.push(...specialIpProblems(ip).map(p => invalid(`spec.externalIPs[${i}]`, ip, p)));
  }
  return out;
}

/** the ranges an external IP may not be in, as the reference words them */
const specialRanges: Array<[string[], string]> = [
  [['0.0.0.0/32', '::/128'], 'may not be unspecified (0.0.0.0)'],
  [['127.0.0.0/8', '::1/128'], 'may not be in the loopback range (127.0.0.0/8)'],
  [['169.254.0.0/16', 'fe80::/10'], 'may not be in the link-local range (169.254.0.0/16)'],
  [['224.0.0.0/24', 'ff02::/16'], 'may not be in the link-local multicast range (224.0.0.0/24)'],
];

function specialIpProblems(ip: string): string[] {
  const v = parseIp(ip)!;
  const within = (text: string) => {
    const c = parseCidrText(text)!;
    return c.family === familyOf(ip) && v >> BigInt(c.width - c.prefix) === c.base >> BigInt(c.width - c.prefix);
  };
  return specialRanges.filter(([cidrs]) => cidrs.some(within)).map(([, problem]) => problem);
}

/** at most one address per family, or 'None' alone */
function clusterIpsCauses(ips: string[]): Causes {
  const out: Causes = [];
  let bad = false;
  for (const [i, ip] of ips.entries()) {
    if (ip === 'None' && i === 0) {
      if (ips.length > 1) { bad = true; out.push(invalid('spec.clusterIPs', ips, "'None' must be the first and only value")); }
    } else if (ip && !familyOf(ip)) {
      bad = true;
      out.push(invalid(`spec.clusterIPs[${i}]`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    }
  }
  if (ips.length > 2) out.push(invalid('spec.clusterIPs', ips, 'may only hold up to 2 values'));
  // further causes would only restate a bad address
  if (!bad && ips.length > 1 && new Set(ips.map(familyOf)).size < ips.length)
    out.push(invalid('spec.clusterIPs', ips, 'may specify no more than one IP for each IP family'));
  return out;
}

function validateServiceUpdate(svc: Svc, old: Svc, names: Naming): Causes {
  const out = validateService(svc, names);
  const s = svc.spec ?? {}, o = old.spec ?? {};
  // the IPs stay unless the service turns into, or from, an ExternalName; a secondary one may only be added or released
  if (needsClusterIp(s) && needsClusterIp(o)) {
    for (const [i, ip] of (o.clusterIPs ?? []).entries())
      if (ip && (i === 0 || s.clusterIPs?.[i]) && s.clusterIPs?.[i] !== ip) out.push(invalid(`spec.clusterIPs[${i}]`, s.clusterIPs ?? [], 'may not change once set'));
    if ((o.clusterIPs ?? []).length > 1 && (s.clusterIPs ?? []).length === 1 && !isHeadless(s) && s.ipFamilyPolicy !== 'SingleStack')
      out.push(invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP"));
  }
  if (needsHealthCheckPort(s) && needsHealthCheckPort(o) && (s.healthCheckNodePort ?? 0) !== (o.healthCheckNodePort ?? 0))
    out.push(forbidden('spec.healthCheckNodePort', 'field is immutable'));
  if (s.type === 'LoadBalancer' && o.type === 'LoadBalancer' && !sameJson(s.loadBalancerClass ?? null, o.loadBalancerClass ?? null))
    out.push(invalid('spec.loadBalancerClass', s.loadBalancerClass ?? null, 'may not change once set'));
  if (needsClusterIp(s) && needsClusterIp(o) && o.ipFamilies?.[0] && s.ipFamilies?.[0] !== o.ipFamilies[0])
    out.push(invalid('spec.ipFamilies[0]', s.ipFamilies ?? [], 'may not change once set'));
  return out;
}

/** an IPv6 address written otherwise than RFC 5952's one form: clients that compare text would apply it for ever */
function ipTextWarning(at: string, ip: string): string[] {
  const v = familyOf(ip) === 'IPv6' ? parseIp(ip) : undefined;
  const canonical = v === undefined ? ip : formatIp(v, 'IPv6');
  return canonical === ip ? [] : [`${at}: IPv6 address ${JSON.stringify(ip)} is not in RFC 5952 canonical format (${JSON.stringify(canonical)}), which may cause controller apply-loops`];
}

function cidrTextWarning(at: string, text: string): string[] {
  const slash = text.indexOf('/');
  const addr = text.slice(0, slash), v = slash > 0 && familyOf(addr) === 'IPv6' ? parseIp(addr) : undefined;
  const canonical = v === undefined ? text : `${formatIp(v, 'IPv6')}${text.slice(slash)}`;
  return canonical === text ? [] : [`${at}: IPv6 prefix ${JSON.stringify(text)} is not in RFC 5952 canonical format (${JSON.stringify(canonical)}), which may cause controller apply-loops`];
}

/** what a valid write is warned of, as the reference warns: the deprecated topology annotation, addresses not in canonical form */
function serviceWarnings(svc: Svc, names: Naming): string[] {
  const out: string[] = [];
  const hints = `service.${names.labelDomain}/topology-aware-hints`;
  if (svc.metadata.annotations?.[hints] !== undefined) out.push(`annotation ${hints} is deprecated, please use service.${names.labelDomain}/topology-mode instead`);
  const s = svc.spec ?? {};
  if (s.clusterIP && s.clusterIP !== 'None') for (const [i, ip] of (s.clusterIPs ?? []).entries()) out.push(...ipTextWarning(`spec.clusterIPs[${i}]`, ip));
  for (const [i, ip] of (s.externalIPs ?? []).entries()) out.push(...ipTextWarning(`spec.externalIPs[${i}]`, ip));
  if (s.loadBalancerIP) out.push(...ipTextWarning('spec.loadBalancerIP', s.loadBalancerIP));
  for (const [i, cidr] of (s.loadBalancerSourceRanges ?? []).entries()) out.push(...cidrTextWarning(`spec.loadBalancerSourceRanges[${i}]`, cidr));
  return out;
}

/** the load balancer's ingress points: addresses, or DNS names that are not addresses */
function validateServiceStatus(svc: Svc): Causes {
  const out: Causes = [];
  for (const [i, ingress] of (svc.status?.loadBalancer?.ingress ?? []).entries()) {
    const at = `status.loadBalancer.ingress[${i}]`;
    if (ingress?.ip && !familyOf(ingress.ip)) out.push(invalid(`${at}.ip`, ingress.ip, 'must be a valid IP address'));
    if (ingress?.hostname) {
      out.push(...dnsSubdomain(`${at}.hostname`, ingress.hostname));
      if (familyOf(ingress.hostname)) out.push(invalid(`${at}.hostname`, ingress.hostname, 'must be a DNS name, not an IP address'));
    }
  }
  return out;
}

export const strategy = defineStrategy<Svc>({
  // service names become DNS names of their own: they start with a letter
  nameRule: 'dns-1035-label',
  generation: false,
  // a PUT may create a service, as the reference allows
  allowCreateOnUpdate: true,
  defaults: defaultService,
  async prepareForCreate(svc, ctx) {
    svc.status = { loadBalancer: {} };
    await allocate(svc, ctx);
  },
  async prepareForUpdate(svc, old, ctx) {
    if (svc.spec) {
      normalizeClusterIps(svc.spec, old.spec ?? {});
      dropTypeDependentFields(svc.spec, old.spec ?? {});
      keepAllocated(svc.spec, old.spec ?? {});
    }
    // as the reference: a service that is no longer a load balancer loses the load balancer's status at once
    if (svc.spec?.type !== 'LoadBalancer' && svc.status?.loadBalancer) svc.status.loadBalancer = {};
    await allocate(svc, ctx, old);
  },
  validate: (svc, ctx) => validateService(svc, ctx.names),
  validateUpdate: (svc, old, ctx) => validateServiceUpdate(svc, old, ctx.names),
  warnings: (svc, _old, ctx) => serviceWarnings(svc, ctx.names),
  validateStatusUpdate: validateServiceStatus,
  async afterDelete(svc, ctx) {
    if (ctx.objects) await releaseHeld(serviceAllocators(ctx.objects, rangesOf(ctx)), svc, undefined);
  },
});
