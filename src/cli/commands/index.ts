// Every command of clusterctl, in the order `--help` lists them.

import type { Command } from 'commander';
import type { Cli } from '../cli.js';
import { annotateCommand, labelCommand } from './label.js';
import { apiResourcesCommand } from './api-resources.js';
import { apiVersionsCommand } from './api-versions.js';
import { applyCommand } from './apply.js';
import { createCommand } from './create.js';
import { deleteCommand } from './delete.js';
import { describeCommand } from './describe.js';
import { diffCommand } from './diff.js';
import { editCommand } from './edit.js';
import { getCommand } from './get.js';
import { patchCommand } from './patch.js';
import { replaceCommand } from './replace.js';
import { scaleCommand } from './scale.js';
import { versionCommand } from './version.js';
import { waitCommand } from './wait.js';

export const commands: Array<(cli: Cli) => Command> = [
  createCommand, getCommand, editCommand, deleteCommand,
  applyCommand, patchCommand, replaceCommand, labelCommand, annotateCommand, scaleCommand, waitCommand,
  describeCommand, diffCommand,
  apiResourcesCommand, apiVersionsCommand, versionCommand,
];
