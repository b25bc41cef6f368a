import { StatusError, type ResourceRef } from '../apimachinery/errors/status-error.js';
import { isStoreError } from '../store/errors.js';

/**
 * The one place store failures become API errors (kube-apiserver's
 * storage/errors → apierrors). Anything that is not a StoreError passes through.
 */
export function storeErrorToStatus(error: unknown, resource: ResourceRef, name: string): unknown {
  if (!isStoreError(error)) return error;
  switch (error.code) {
    case 'KeyNotFound':
      return StatusError.notFound(resource, name);
    case 'KeyExists':
      return StatusError.alreadyExists(resource, name);
    case 'Conflict':
      return StatusError.modified(resource, name);
    case 'Compacted':
      return StatusError.expired(
        error.details.compactedRevision === undefined
          ? 'too old resource version'
          : `too old resource version: the history before ${error.details.compactedRevision} has been compacted`,
      );
    case 'InvalidArgument':
      return error.message.startsWith('continue token') ? StatusError.badRequest(`invalid continue token: ${error.message}`) : StatusError.badRequest(error.message);
    case 'LeaseNotFound':
      return StatusError.internal(error.message);
    case 'Unavailable':
      return error.details.outOfSpace === undefined
        ? StatusError.serviceUnavailable('the storage is unavailable; try again')
        : StatusError.insufficientStorage(`the storage is full: nothing was written; try again once space is freed (${error.details.outOfSpace})`);
  }
}
