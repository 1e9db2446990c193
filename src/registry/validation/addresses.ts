// Endpoint addresses as the reference checks them: by the family or form the object declares.
// The reference also refuses unspecified, loopback and link-local endpoint addresses; this server keeps accepting
// them, since on one machine its own endpoints (the kubernetes Service's, the agents' in fake mode) are loopback ones.
import { parseIp } from '../../api/ip.js';
import { type Causes, invalid, required } from './fields.js';
import { nameProblems } from './object-meta.js';

/** the family of an address as the reference parses one (dotted quads may have leading zeros) */
export function ipFamily(s: string): 'IPv4' | 'IPv6' | undefined {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(s)) return s.split('.').every(p => Number(p) <= 255) ? 'IPv4' : undefined;
  return parseIp(s) === undefined ? undefined : 'IPv6';
}

export const anyIp = (field: string, ip: string): Causes =>
  ipFamily(ip) ? [] : [invalid(field, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'), invalid(field, ip, 'must be a valid IP address')];

export function ipOfFamily(field: string, ip: string, family: 'IPv4' | 'IPv6'): Causes {
  const got = ipFamily(ip);
  return [
    ...(got === family ? [] : [invalid(field, ip, `must be a valid ${family} address`)]),
    ...(got ? [] : [invalid(field, ip, 'must be a valid IP address')]),
  ];
}

/** a domain name with at least two labels; one trailing dot is allowed */
export function fullyQualifiedName(field: string, name: string): Causes {
  if (!name) return [required(field)];
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  const problems = nameProblems(bare, 'dns-subdomain');
  if (problems.length) return [invalid(field, bare, problems.join(','))];
  const labels = bare.split('.');
  if (labels.length < 2) return [invalid(field, bare, 'should be a domain with at least two segments separated by dots')];
  for (const l of labels) {
    const p = nameProblems(l, 'dns-label');
    if (p.length) return [invalid(field, l, p.join(','))];
  }
  return [];
}
