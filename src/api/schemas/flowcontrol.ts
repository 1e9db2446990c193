// flowcontrol.apiserver v1beta2 and v1beta3: not catalogued field by field yet.
import { apiRef } from './build.js';
import { permissive } from './meta.js';

export const flowSchema = (version: string) => permissive(apiRef(`flowcontrol.${version}`, 'FlowSchema'));
export const priorityLevelConfiguration = (version: string) =>
  permissive(apiRef(`flowcontrol.${version}`, 'PriorityLevelConfiguration'));
