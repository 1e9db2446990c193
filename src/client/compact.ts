// Objects from the API as a client that holds thousands of them keeps them: without their managed fields, which the
// agent, the controllers and the scheduler never read and which are often the largest part of an object, and with the
// strings of their specs shared. The transform of their informers, as the reference's controller manager trims
// managed fields from its informers.

export function withoutManagedFields<T extends { metadata?: { managedFields?: unknown } }>(object: T): T {
  // a new metadata object rather than `delete`, which would turn it into a dictionary (450 bytes more a pod)
  if (object?.metadata?.managedFields) {
    const { managedFields: _dropped, ...metadata } = object.metadata;
    object.metadata = metadata;
  }
  return object;
}

/** an object without its managed fields, its spec's strings shared with the other objects of the process */
export function compactObject<T extends { metadata?: { managedFields?: unknown }; spec?: unknown }>(object: T): T {
  withoutManagedFields(object);
  shareStrings(object?.spec);
  return object;
}

/** strings shared by the objects of this process, by their text; bounded, so that unique values cannot grow it without end */
const shared = new Map<string, string>();
const maxShared = 20_000;
const share = (s: string): string => {
  // V8's JSON parser already shares values of up to 10 characters; long ones are rarely repeated
  if (s.length <= 10 || s.length > 256) return s;
  const known = shared.get(s);
  if (known !== undefined) return known;
  if (shared.size < maxShared) shared.set(s, s);
  return s;
};

/**
 * Replaces the strings of a decoded object (a pod's spec) by one copy of each text for the whole process: the specs
 * of thousands of pods repeat the same paths, images, tolerations and names, each decoded into a string of its own.
 */
export function shareStrings(value: unknown): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      if (typeof v === 'string') value[i] = share(v);
      else if (v && typeof v === 'object') shareStrings(v);
    }
  } else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const v = o[k];
      if (typeof v === 'string') o[k] = share(v);
      else if (v && typeof v === 'object') shareStrings(v);
    }
  }
}
