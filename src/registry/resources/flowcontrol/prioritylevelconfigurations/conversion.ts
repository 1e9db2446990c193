// The two forms of a priority level: v1beta3 (stored) calls a limited level's shares nominalConcurrencyShares,
// v1beta2 assuredConcurrencyShares; nothing else differs. Each version's clients read and write their own name.
import type { ApiObject } from '../../../../api/meta.js';

type Limited = Record<string, unknown>;

const sharesField = (apiVersion: string) => (apiVersion.endsWith('/v1beta2') ? 'assuredConcurrencyShares' : 'nominalConcurrencyShares');

/** the level with its shares under the name `field` (first in `limited`, where the reference puts them) */
function withSharesAs(o: ApiObject, apiVersion: string): ApiObject {
  const field = sharesField(apiVersion);
  const spec = (o as { spec?: { limited?: Limited } }).spec;
  const limited = spec?.limited;
  if (!limited || typeof limited !== 'object') return { ...o, apiVersion };
  const { assuredConcurrencyShares, nominalConcurrencyShares, ...rest } = limited;
  const shares = nominalConcurrencyShares ?? assuredConcurrencyShares;
  return { ...o, apiVersion, spec: { ...spec, limited: { ...(shares === undefined ? {} : { [field]: shares }), ...rest } } } as ApiObject;
}

export async function convertPriorityLevels(objects: ApiObject[], toApiVersion: string): Promise<ApiObject[]> {
  return objects.map(o => withSharesAs(o, toApiVersion));
}
