/**
 * Container image references as the docker distribution grammar defines them
 * (`[domain/]path[:tag][@digest]`), for the one decision kube's defaulting takes from an
 * image: pull `Always` when the tag is `latest` (or no tag and no digest), else `IfNotPresent`.
 * A reference that does not parse counts as having no tag (kube ignores the parse error).
 */

const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*';
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);

export interface ImageReference {
  readonly name: string;
  readonly tag?: string;
  readonly digest?: string;
}

/** Parses a reference; undefined when it is not one (upper case, empty, bad characters, too long). */
export function parseImageReference(image: string): ImageReference | undefined {
  const match = REFERENCE.exec(image);
  if (match === null) return undefined;
  const [, name = '', tag, digest] = match;
  if (name.length > 255) return undefined;
  // A bare 64-hex string is an image ID, not a name.
  if (/^[a-f0-9]{64}$/.test(name)) return undefined;
  return { name, ...(tag == null ? {} : { tag }), ...(digest == null ? {} : { digest }) };
}

/** SetDefaults_Container's pull policy for an image. */
export function defaultPullPolicy(image: string | undefined): 'Always' | 'IfNotPresent' {
  const reference = parseImageReference(image ?? '');
  if (reference == null) return 'IfNotPresent';
  const tag = reference.tag ?? (reference.digest == null ? 'latest' : '');
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}
