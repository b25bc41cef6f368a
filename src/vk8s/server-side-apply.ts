import { loadKubernetesOpenApi } from './openapi/kubernetes-document.js';
import { ApplyConflictError, applyConflictStatus } from '../apimachinery/apply/apply-errors.js';
import { ApplyTypes } from '../apimachinery/apply/apply-types.js';
import { applyObject, updateManagedFields } from '../apimachinery/apply/field-manager.js';
import type { FieldManagement } from '../registry/field-management.js';
import type { ApplyFunction } from './http/resource-request.js';
import { definitionOf, groupVersion } from '../apimachinery/resource-type.js';

/**
 * kube-apiserver 1.17's field manager for the virtual clusters: managedFields kept on every
 * write, and server-side apply (`application/apply-patch+yaml`) with ownership conflicts.
 */
export function serverSideApply(types: ApplyTypes = new ApplyTypes(loadKubernetesOpenApi().definitions)): { fieldManagement: FieldManagement; apply: ApplyFunction } {
  return {
    fieldManagement: {
      recordUpdate: ({ old, updated, manager, subresource, now }) => {
        const slash = updated.apiVersion.indexOf('/');
        const group = slash < 0 ? '' : updated.apiVersion.slice(0, slash);
        const definition = definitionOf({ group, version: updated.apiVersion.slice(slash + 1), kind: updated.kind });
        const entries = updateManagedFields({ old, updated, manager, now, apiVersion: updated.apiVersion, types, definition, ...(subresource === undefined ? {} : { subresource }) });
        if (entries === undefined) delete updated.metadata.managedFields;
        else updated.metadata.managedFields = entries;
      },
    },
    apply: ({ live, applied, manager, force, now, resource }) => {
      try {
        return applyObject({ live, applied, manager, force, now, apiVersion: groupVersion(resource.group, resource.version), types, definition: definitionOf(resource) });
      } catch (error) {
        if (error instanceof ApplyConflictError) throw applyConflictStatus(error);
        throw error;
      }
    },
  };
}
