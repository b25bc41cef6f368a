import type { KubeObject } from '../apimachinery/object.js';

/**
 * Who owns which fields (`metadata.managedFields`), kept by the generic store on every write
 * that is not a server-side apply (kube-apiserver's FieldManager.Update). Applies go through
 * the apply machinery, which keeps them itself.
 */
export interface FieldManagement {
  /** Sets `updated.metadata.managedFields` for a write by `manager`. */
  recordUpdate(options: { old: KubeObject | undefined; updated: KubeObject; manager: string; subresource?: string; now: string }): void;
}

/** No field tracking: managedFields are dropped from writes (server-side apply off). */
export const NO_FIELD_MANAGEMENT: FieldManagement = {
  recordUpdate: ({ updated }) => {
    delete updated.metadata.managedFields;
  },
};
