import { kvContract } from '../testing/kv-contract.js';
import { openMemoryKV } from './kv.js';

kvContract('memory KV', async () => openMemoryKV());
