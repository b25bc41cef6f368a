import { asObject, gnosticFields, gnosticObject, named, type Json } from './gnostic-fields.js';
import { gnosticParameter, gnosticPaths, gnosticResponse, gnosticSecurity } from './gnostic-paths.js';
import { gnosticSchema } from './gnostic-schema.js';

const OAUTH2_FLOWS: Readonly<Record<string, string>> = {
  implicit: 'oauth2ImplicitSecurity',
  password: 'oauth2PasswordSecurity',
  application: 'oauth2ApplicationSecurity',
  accessCode: 'oauth2AccessCodeSecurity',
};

/** A security scheme as gnostic's `SecurityDefinitionsItem`, chosen by `type` (and `flow`). */
function securityScheme(value: unknown): Json {
  const json = asObject(value) ?? {};
  if (json['type'] === 'basic') return { basicAuthenticationSecurity: gnosticFields(json) };
  if (json['type'] === 'oauth2') {
    const scheme = { ...gnosticFields(json, ['scopes']), scopes: { additionalProperties: named(json['scopes'], String) } };
    return { [OAUTH2_FLOWS[String(json['flow'])] ?? 'oauth2ImplicitSecurity']: scheme };
  }
  return { apiKeySecurity: gnosticFields(json) };
}

function info(value: unknown): Json {
  const json = asObject(value) ?? {};
  const out = gnosticFields(json, ['contact', 'license']);
  const contact = gnosticObject(json['contact']);
  if (contact !== undefined) out['contact'] = contact;
  const license = gnosticObject(json['license']);
  if (license !== undefined) out['license'] = license;
  return out;
}

const SPECIAL = ['info', 'paths', 'definitions', 'parameters', 'responses', 'security', 'securityDefinitions', 'tags', 'externalDocs'];

/**
 * An OpenAPI v2 document as a plain object in the shape of gnostic's `openapi.v2.Document`
 * (protobufjs field names), what kube-apiserver's `/openapi/v2` protobuf form carries: ready
 * for `Type.fromObject` and `encode`.
 */
export function toGnosticDocument(swagger: object): Json {
  const document = swagger as Readonly<Json>;
  const out = gnosticFields(document, SPECIAL);
  if (document['info'] !== undefined) out['info'] = info(document['info']);
  if (document['paths'] !== undefined) out['paths'] = gnosticPaths(document['paths']);
  if (document['definitions'] !== undefined) out['definitions'] = { additionalProperties: named(document['definitions'], gnosticSchema) };
  if (document['parameters'] !== undefined) out['parameters'] = { additionalProperties: named(document['parameters'], gnosticParameter) };
  if (document['responses'] !== undefined) out['responses'] = { additionalProperties: named(document['responses'], gnosticResponse) };
  if (document['security'] !== undefined) out['security'] = gnosticSecurity(document['security']);
  if (document['securityDefinitions'] !== undefined) out['securityDefinitions'] = { additionalProperties: named(document['securityDefinitions'], securityScheme) };
  if (Array.isArray(document['tags'])) out['tags'] = document['tags'].map((tag) => ({ ...gnosticFields(asObject(tag) ?? {}, ['externalDocs']), externalDocs: gnosticObject(asObject(tag)?.['externalDocs']) }));
  const externalDocs = gnosticObject(document['externalDocs']);
  if (externalDocs !== undefined) out['externalDocs'] = externalDocs;
  return out;
}
