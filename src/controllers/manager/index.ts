/** The controller manager: leader-elected Deployment, ReplicaSet, scheduler (and garbage collector) controllers. */
export { startControllerManager, defaultControllers, type ControllerManager, type ControllerManagerOptions } from './controller-manager.js';
export type { ControllerContext, ControllerStarter, PodTemplateFor, RunningController, SharedInformers } from './controller-context.js';
export { garbageCollectorController } from './garbage-collector-controller.js';
export { deploymentController } from '../deployment/deployment-controller.js';
export { replicaSetController } from '../replicaset/replica-set-controller.js';
export { schedulerController } from '../scheduler/scheduler.js';
export { startLeaderElection, leaderElectionKey, type LeaderElectionOptions, type LeaderElector } from '../runtime/leader-election.js';
