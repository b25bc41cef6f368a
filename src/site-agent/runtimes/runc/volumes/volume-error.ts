/**
 * A volume could not be planned, set up or mounted into a container. `message` is what the
 * runtime shows in the pod's Event or container status, worded as kubelet words it (e.g.
 * `configmap "x" not found`); `detail`, when present, is for the agent's log only — kubelet
 * also keeps host paths out of what users see.
 */
export class VolumeError extends Error {
  override readonly name = 'VolumeError';

  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}
