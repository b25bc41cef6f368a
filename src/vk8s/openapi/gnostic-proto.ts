import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { toGnosticDocument } from './gnostic-document.js';

/** Where the build put gnostic's OpenAPIv2.proto (see scripts/fetch-gnostic-proto.mjs). */
const GNOSTIC_PROTO = new URL('../../../gnostic/OpenAPIv2.proto', import.meta.url);

/**
 * gnostic's `openapi.v2.Document` message type, from OpenAPIv2.proto; its import
 * `google/protobuf/any.proto` resolves to the copy protobufjs ships.
 */
export function loadGnosticDocumentType(proto: URL = GNOSTIC_PROTO): protobuf.Type {
  const root = new protobuf.Root();
  try {
    root.loadSync(fileURLToPath(proto));
  } catch (error) {
    throw new Error(`gnostic's OpenAPIv2.proto could not be loaded from ${proto.pathname}; run "npm run build" (it fetches it from Debian's archive): ${String(error)}`);
  }
  return root.lookupType('openapi.v2.Document');
}

/** The protobuf bytes of an OpenAPI v2 document, as `/openapi/v2` serves them to kubectl. */
export function encodeGnosticDocument(documentType: protobuf.Type, document: object): Buffer {
  const bytes = documentType.encode(documentType.fromObject(toGnosticDocument(document))).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
