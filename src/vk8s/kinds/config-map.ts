import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { baseStrategy, resourceOf } from './base-strategy.js';
import { configMapKeyProblems, MAX_SECRET_SIZE } from './core-fields.js';
import { stringMap } from './core-types.js';

/**
 * configmaps: kube-apiserver 1.17's strategy: `data` and `binaryData` keys are config keys, a
 * key may not be in both, and together they hold at most 1 MiB (`binaryData` counted
 * decoded). Updates follow the same rules (ObjectMeta aside, nothing is immutable in 1.17).
 */
export const configMapStrategy = baseStrategy(resourceOf('', 'v1', 'configmaps'), {
  validate: (object) => validateConfigMap(object),
  validateUpdate: (object) => validateConfigMap(object),
});

/** ValidateConfigMap without the ObjectMeta part. */
function validateConfigMap(object: KubeObject): StatusCause[] {
  const data = stringMap(object.data);
  const binaryData = stringMap(object.binaryData);
  const causes: StatusCause[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const p of configMapKeyProblems(key)) causes.push(fieldError.invalid(`data[${key}]`, key, p));
    if (Object.hasOwn(binaryData, key)) causes.push(fieldError.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    size += Buffer.byteLength(value);
  }
  for (const [key, value] of Object.entries(binaryData)) {
    for (const p of configMapKeyProblems(key)) causes.push(fieldError.invalid(`binaryData[${key}]`, key, p));
    size += Buffer.from(value, 'base64').length;
  }
  // kube reports the size on the whole object: an empty field path.
  if (size > MAX_SECRET_SIZE) causes.push(fieldError.tooLong('', MAX_SECRET_SIZE));
  return causes;
}
