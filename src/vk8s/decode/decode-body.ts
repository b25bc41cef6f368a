import { StatusError } from '../../apimachinery/errors/status-error.js';
import { bodyDepthProblem } from './body-depth.js';
import { KubernetesProtobufError, decodeKubernetesProtobuf } from './decode-kubernetes-protobuf.js';
import { type KubernetesProto, kubernetesProto } from './kubernetes-proto.js';
import { GoJsonSyntaxError, parseGoJson } from './parse-go-json.js';
import { parseMediaType } from './parse-media-type.js';
import { summarizeData } from './summarize-data.js';
import { YamlToJsonError, yamlToJson } from './yaml-to-json.js';

/** The body media types kube-apiserver 1.17 lists for built-in resources, in its order. */
const BODY_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'] as const;

/**
 * Parses a POST/PUT body as kube-apiserver 1.17 negotiates it: no Content-Type means JSON
 * (`kubectl create configmap` sends none); `application/json` and `application/yaml` with any
 * parameters; `application/vnd.kubernetes.protobuf` (kubectl >= 1.32's typed creates) for the
 * built-in kinds, decoded into the object the JSON form would carry (the schemas are loaded from
 * the build's dist/k8s-proto on first use, or `proto`); everything else is 415
 * UnsupportedMediaType with kube's message. Malformed JSON or YAML is 400 BadRequest worded as
 * kube-apiserver words it, and so is a body nested more than 100 levels deep (checked before
 * anything walks it recursively); pass `kind` (the kind the endpoint serves) for the exact text
 * (`the object provided is unrecognized (must be of type ConfigMap): …`).
 */
export function decodeBody(raw: Uint8Array, contentType: string | undefined, kind?: string, proto?: KubernetesProto): unknown {
  const fail = (message: string): StatusError =>
    StatusError.badRequest(kind === undefined ? message : `the object provided is unrecognized (must be of type ${kind}): ${message} (${summarizeData(raw)})`);
  const value = parseBody(raw, contentType, fail, proto);
  const tooDeep = bodyDepthProblem(value);
  if (tooDeep !== undefined) throw fail(tooDeep);
  return value;
}

function parseBody(raw: Uint8Array, contentType: string | undefined, fail: (message: string) => StatusError, proto: KubernetesProto | undefined): unknown {
  const mediaType = parseMediaType(contentType === undefined || contentType === '' ? BODY_MEDIA_TYPES[0] : contentType);
  switch (mediaType?.type) {
    case 'application/json':
      try {
        return parseGoJson(raw);
      } catch (error) {
        if (error instanceof GoJsonSyntaxError) throw fail(`couldn't get version/kind; json parse error: ${error.message}`);
        throw error;
      }
    case 'application/yaml':
      try {
        return yamlToJson(raw);
      } catch (error) {
        if (error instanceof YamlToJsonError) throw fail(error.message);
        throw error;
      }
    case 'application/vnd.kubernetes.protobuf':
      try {
        return decodeKubernetesProtobuf(raw, proto ?? kubernetesProto());
      } catch (error) {
        if (error instanceof KubernetesProtobufError) throw fail(error.message);
        throw error;
      }
    default:
      throw unsupportedBodyMediaType();
  }
}

/** 415 for a write body in a media type kube-apiserver does not decode. */
function unsupportedBodyMediaType(): StatusError {
  return new StatusError('UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${BODY_MEDIA_TYPES.join(', ')}`);
}
