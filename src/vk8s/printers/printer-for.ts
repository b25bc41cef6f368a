import type { ResourceType } from '../../apimachinery/resource-type.js';
import { configMapPrinter, namespacePrinter, secretPrinter, serviceAccountPrinter } from './config-printers.js';
import { cronJobPrinter } from './cron-job-printer.js';
import { defaultPrinter } from './default-printer.js';
import { deploymentPrinter } from './deployment-printer.js';
import { endpointsPrinter } from './endpoints-printer.js';
import { eventPrinter } from './event-printer.js';
import { jobPrinter } from './job-printer.js';
import { nodePrinter } from './node-printer.js';
import { openApiFieldDoc } from './openapi-field-doc.js';
import { podPrinter } from './pod-printer.js';
import { replicaSetPrinter } from './replica-set-printer.js';
import { servicePrinter } from './service-printer.js';
import { statefulSetPrinter } from './stateful-set-printer.js';
import type { FieldDoc, TablePrinter } from './table-printer.js';
import { persistentVolumeClaimPrinter, persistentVolumePrinter } from './volume-printers.js';

/** kube-apiserver 1.17's printer per `group/resource`. */
const PRINTERS: Readonly<Record<string, (doc: FieldDoc) => TablePrinter>> = {
  'apps/deployments': deploymentPrinter,
  'apps/replicasets': replicaSetPrinter,
  'apps/statefulsets': statefulSetPrinter,
  'batch/jobs': jobPrinter,
  'batch/cronjobs': cronJobPrinter,
  '/pods': podPrinter,
  '/services': servicePrinter,
  '/endpoints': endpointsPrinter,
  '/secrets': secretPrinter,
  '/configmaps': configMapPrinter,
  '/persistentvolumeclaims': persistentVolumeClaimPrinter,
  '/serviceaccounts': serviceAccountPrinter,
  '/events': eventPrinter,
  '/nodes': nodePrinter,
  '/namespaces': namespacePrinter,
  '/persistentvolumes': persistentVolumePrinter,
};

/**
 * The Table printer of a served resource; Name and Age for a resource without one. Column
 * descriptions come from `doc`, by default the Kubernetes 1.17 OpenAPI document in dist/k8s
 * (read once, on first use).
 */
export function printerFor(resource: Pick<ResourceType, 'group' | 'resource'>, doc: FieldDoc = openApiFieldDoc): TablePrinter {
  const make = PRINTERS[`${resource.group}/${resource.resource}`] ?? defaultPrinter;
  return make(doc);
}
