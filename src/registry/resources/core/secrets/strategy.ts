// Secrets: stringData folded into data, the type defaulted and immutable, the keys each well-known type needs.
import type { Stored } from '../../../../api/meta.js';
import { apiDomains, naming } from '../../../../api/naming.js';
import type { Secret } from '../../../../api/types/core-v1.js';
import { defineStrategy } from '../../../strategy.js';
import { fill } from '../../../defaults/fill.js';
import { type Causes, immutable, invalid, required } from '../../../validation/fields.js';
import { dataKeyCauses, decoded, decodedLength, immutableData, maxDataBytes, tooLong } from '../configmaps/keys.js';

const secretLabelDomains = apiDomains.map(d => naming(d).labelDomain);
/** `<labelDomain>/<kind>` for either API domain */
const secretKind = (type: unknown) => {
  const t = String(type ?? '');
  const slash = t.indexOf('/');
  return slash > 0 && secretLabelDomains.includes(t.slice(0, slash)) ? { domain: t.slice(0, slash), kind: t.slice(slash + 1) } : undefined;
};

/** stringData is a write-only convenience: its entries replace those of data, encoded (as decoding does) */
function defaultSecret(secret: Secret) {
  fill(secret, { type: 'Opaque' });
  if (secret.stringData && typeof secret.stringData === 'object') {
    secret.data = { ...(secret.data ?? {}) };
    for (const [k, v] of Object.entries(secret.stringData)) secret.data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  }
  delete secret.stringData;
}

/**
 * what is wrong with a docker config as the reference reads it (into a JSON object), in its words where they are
 * simple to tell: nothing, a JSON value of another type, an empty or a clearly malformed document
 */
function dockerConfigProblem(b: Buffer): string | undefined {
  const text = b.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const first = text.trimStart()[0];
    if (first === undefined) return 'unexpected end of JSON input';
    return /[-{["0-9tfn]/.test(first) ? 'invalid character in JSON' : `invalid character ${goQuote(first)} looking for beginning of value`;
  }
  if (value === null || (typeof value === 'object' && !Array.isArray(value))) return undefined;
  const kind = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}

/** a character as Go's %q prints a rune */
const goQuote = (c: string) => (c === "'" ? "'\\''" : `'${c}'`);

function validateSecret(secret: Stored<Secret>): Causes {
  const out: Causes = [];
  const data = secret.data ?? {};
  let size = 0;
  size += dataKeyCauses('data', data, out, decodedLength);
  if (size > maxDataBytes) out.push(tooLong('data', maxDataBytes));
  const known = secretKind(secret.type);
  const needKey = (key: string) => { if (!(key in data)) out.push(required(`data[${key}]`)); };
  const needJson = (key: string) => {
    needKey(key);
    const problem = key in data ? dockerConfigProblem(decoded(data[key])) : undefined;
    if (problem) out.push(invalid(`data[${key}]`, '<secret contents redacted>', problem));
  };
  switch (known?.kind) {
    case 'service-account-token':
      if (!secret.metadata.annotations?.[`${known.domain}/service-account.name`])
        out.push(required(`metadata.annotations[${known.domain}/service-account.name]`));
      break;
    case 'dockercfg':
      needJson('.dockercfg');
      break;
    case 'dockerconfigjson':
      needJson('.dockerconfigjson');
      break;
    case 'basic-auth':
      if (!('username' in data) && !('password' in data)) out.push(required('data[username]'), required('data[password]'));
      break;
    case 'ssh-auth':
      needKey('ssh-privatekey');
      break;
    case 'tls':
      needKey('tls.crt');
      needKey('tls.key');
      break;
  }
  return out;
}

export const strategy = defineStrategy<Stored<Secret>>({
  generation: false,
  selectableFields: { type: o => o.type },
  defaults: defaultSecret,
  validate: validateSecret,
  validateUpdate: (secret, old) => [...validateSecret(secret), ...immutable('type', secret.type, old.type), ...immutableData(secret, old, ['data'])],
});
