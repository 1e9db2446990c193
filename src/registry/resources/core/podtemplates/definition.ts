// core/v1 pod templates.
import type { Stored } from '../../../../api/meta.js';
import type { PodTemplate } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { defaultTemplate } from '../../../defaults/pod-spec.js';
import { validateTemplate } from '../../../validation/pod-spec.js';
import { define, only } from '../../define.js';
import { column, containersOf, formatLabels } from '../../columns.js';

const validatePodTemplate = (pt: PodTemplate) => validateTemplate('template', pt.template, {});

export const strategy = defineStrategy<Stored<PodTemplate>>({
  generation: false,
  defaults: pt => defaultTemplate(pt.template),
  podSpecs: pt => [['template.spec', pt.template?.spec]],
  validate: validatePodTemplate,
  validateUpdate: validatePodTemplate,
});

const columns: TableColumn<PodTemplate>[] = [
  column('Containers', 'string', o => containersOf(o.template?.spec).map(c => c.name).join(','), 'Names of each container in the template.'),
  column('Images', 'string', o => containersOf(o.template?.spec).map(c => c.image).join(','), 'Images referenced by each container in the template.'),
  column('Pod Labels', 'string', o => formatLabels(o.template?.metadata?.labels), 'The labels for the pod template.'),
];

export const definition = define<PodTemplate>({
  group: '', resource: 'podtemplates', kind: 'PodTemplate', namespaced: true,
  versions: only('v1', s.podTemplate), strategy, columns,
});
