import { canonicalJson } from './canonical-json.js';
import { child, children, DerError, readOid, readTop } from '../common/der/der-reader.js';
import { TAG, utf8String } from '../common/der/der-writer.js';
import { extension } from '../common/der/x509-extensions.js';

/**
 * The "Edgeplane workload identity" extension's OID: `2.25.<UUID as a decimal>` (X.667),
 * from UUID 798d73b9-e421-4401-ac8a-440e7755b573, minted once for this purpose.
 */
export const WORKLOAD_IDENTITY_OID = '2.25.161571048551945514341099025207701910899';

/** What the extension says about the workload: the pod object's facts, never the CSR's. */
export interface WorkloadIdentity {
  readonly v: 1;
  readonly tenant: string;
  readonly namespace: string;
  readonly vk8s: string;
  readonly site: string;
  readonly pod: string;
  readonly podUid: string;
  readonly serviceAccount: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** The extension (non-critical): a DER UTF8String of the identity's canonical JSON (keys sorted). */
export function workloadIdentityExtension(identity: WorkloadIdentity): Buffer {
  return extension(WORKLOAD_IDENTITY_OID, false, utf8String(canonicalJson(identity)));
}

const STRING_FIELDS = ['tenant', 'namespace', 'vk8s', 'site', 'pod', 'podUid', 'serviceAccount'] as const;

/** The workload identity a certificate (DER) carries; undefined when it has none or it does not parse as one. */
export function readWorkloadIdentity(certificate: Buffer): WorkloadIdentity | undefined {
  try {
    const tbs = child(children(readTop(certificate, TAG.sequence, 'Certificate')), 0, 'TBSCertificate', TAG.sequence);
    const extensions = children(tbs).find((node) => node.tag === 0xa3);
    if (extensions === undefined) return undefined;
    for (const ext of children(child(children(extensions), 0, 'Extensions', TAG.sequence))) {
      const parts = children(ext);
      if (readOid(child(parts, 0, 'extnID', TAG.oid)) !== WORKLOAD_IDENTITY_OID) continue;
      const value = child(parts, parts.length - 1, 'extnValue', TAG.octetString);
      return parseIdentity(readTop(value.content, TAG.utf8String, 'the workload identity').content.toString('utf8'));
    }
    return undefined;
  } catch (error) {
    if (error instanceof DerError || error instanceof SyntaxError) return undefined;
    throw error;
  }
}

function parseIdentity(json: string): WorkloadIdentity | undefined {
  const value = JSON.parse(json) as Record<string, unknown>;
  if (value['v'] !== 1) return undefined;
  if (!STRING_FIELDS.every((field) => typeof value[field] === 'string')) return undefined;
  const labels = value['labels'];
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels) || !Object.values(labels).every((l) => typeof l === 'string')) return undefined;
  return value as unknown as WorkloadIdentity;
}
