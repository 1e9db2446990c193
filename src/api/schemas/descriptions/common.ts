// The shape of the description tables and the entries many definitions share.

/** per definition (by its simple name): '' is what the definition is, every other key what that field means.
 *  Names that follow the API domain are written with placeholders: {labels} for the label domain
 *  (as in {labels}/hostname) and {domain} for the group suffix (as in rbac.authorization.{domain}). */
export type DescriptionTable = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** the fields every object of a kind carries */
export const objectFields = {
  apiVersion: 'The group and version of the schema this object is written in, for example "v1" or "apps/v1"; the server converts between the versions it serves.',
  kind: 'The kind of object this is, in CamelCase, for example "Pod". Read-only once set; the server may infer it from the request path.',
  metadata: 'Standard object metadata: name, namespace, labels, annotations, owners, finalizers and the fields the server maintains.',
} as const;

/** a kind's entry: what it is, the fields every object has, then its own fields */
export const kind = (description: string, fields: Record<string, string> = {}): Record<string, string> =>
  ({ '': description, ...objectFields, ...fields });

/** some entries of another definition's descriptions, for a definition that shares them */
export const pick = (entry: Readonly<Record<string, string>>, ...keys: string[]): Record<string, string> =>
  Object.fromEntries(keys.map(k => [k, entry[k]]));

/** what the usual condition fields mean, for the many `<Kind>Condition` definitions */
export const conditionFields = (of: string, types: string): Record<string, string> => ({
  type: `The aspect of the ${of} this condition reports on${types ? `, for example ${types}` : ''}.`,
  status: 'Whether the condition holds: "True", "False" or "Unknown".',
  lastTransitionTime: 'When the status of this condition last changed.',
  reason: 'A one-word CamelCase code for why the condition last changed, meant for programs.',
  message: 'A human-readable explanation of the last change, meant for people.',
});
