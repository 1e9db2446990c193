// Every command of clusterctl, in the order `--help` lists them.

import type { Command } from 'commander';
import type { Cli } from '../cli.js';
import { annotateCommand, labelCommand } from './label.js';
import { apiResourcesCommand } from './api-resources.js';
import { apiVersionsCommand } from './api-versions.js';
import { applyCommand } from './apply.js';
import { authCommand } from './auth.js';
import { certificateCommand } from './certificate.js';
import { completionCommand } from './completion.js';
import { configCommand } from './config.js';
import { convertCommand } from './convert.js';
import { cpCommand } from './cp.js';
import { createCommand } from './create.js';
import { deleteCommand } from './delete.js';
import { describeCommand } from './describe.js';
import { diffCommand } from './diff.js';
import { editCommand } from './edit.js';
import { attachCommand, execCommand } from './exec.js';
import { explainCommand } from './explain.js';
import { getCommand } from './get.js';
import { logsCommand } from './logs.js';
import { patchCommand } from './patch.js';
import { portForwardCommand } from './port-forward.js';
import { replaceCommand } from './replace.js';
import { rolloutCommand } from './rollout.js';
import { scaleCommand } from './scale.js';
import { topCommand } from './top.js';
import { versionCommand } from './version.js';
import { waitCommand } from './wait.js';

export const commands: Array<(cli: Cli) => Command> = [
  // basic
  createCommand, getCommand, explainCommand, editCommand, deleteCommand,
  // deploy
  rolloutCommand, scaleCommand,
  // cluster management
  certificateCommand, topCommand,
  // troubleshooting
  describeCommand, logsCommand, attachCommand, execCommand, portForwardCommand, cpCommand, authCommand,
  // advanced
  diffCommand, applyCommand, patchCommand, replaceCommand, waitCommand,
  // settings
  labelCommand, annotateCommand, completionCommand,
  // other
  apiResourcesCommand, apiVersionsCommand, configCommand, convertCommand, versionCommand,
];
