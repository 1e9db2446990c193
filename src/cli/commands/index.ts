// Every command of clusterctl, in the order `--help` lists them.

import type { Command } from 'commander';
import type { Cli } from '../cli.js';
import { apiResourcesCommand } from './api-resources.js';
import { apiVersionsCommand } from './api-versions.js';
import { getCommand } from './get.js';
import { versionCommand } from './version.js';

export const commands: Array<(cli: Cli) => Command> = [
  getCommand,
  apiResourcesCommand, apiVersionsCommand, versionCommand,
];
