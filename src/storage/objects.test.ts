import { objectStoreContract } from './testing/object-store-contract.js';
import { backendNames, openBackend } from './testing/backends.js';
import { createObjectStore } from './objects.js';

for (const name of backendNames) {
  objectStoreContract(`object store on ${name}`, async () => {
    const { kv, close } = await openBackend(name);
    return { store: createObjectStore(kv), kv, close };
  });
}
