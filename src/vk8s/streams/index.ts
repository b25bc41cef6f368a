/**
 * Pod stream endpoints of the vK8s API: `exec`, `attach`, `portforward` over SPDY/3.1 and
 * WebSocket channels, and `log` streaming, in front of a pluggable `PodStreamBackend`.
 */
export type { AttachOptions, ExecOptions, ExitResult, LogOptions, PodStreamBackend, PodTarget, StreamIo, StreamKind, TerminalSize } from './types.js';
export { StreamError } from './stream-error.js';
export { handlePodUpgrade, type PodUpgradeOptions, type PodUpgradeRoute } from './handle-pod-upgrade.js';
export { upgradeRequired } from './upgrade-request.js';
export { serveLogs, type LogRoute } from './serve-logs.js';
export { podStreamTarget, type PodScope } from './pod-target.js';
export { parseLogQuery, type LogQuery } from './log-options.js';
export { parseAttachOptions, parseExecOptions } from './remote-command-options.js';
export { NoRunningContainersBackend } from './no-running-containers-backend.js';
export type { SessionTiming } from './session-timing.js';
