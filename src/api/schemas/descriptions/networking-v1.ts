import type { DescriptionTable } from './common.js';

export default {
} satisfies DescriptionTable;
