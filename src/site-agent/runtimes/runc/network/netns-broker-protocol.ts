/** Messages between the agent and its helper inside a network namespace (IPC, JSON; sockets ride along as handles). */

export type BrokerRequest =
  | { readonly id: number; readonly op: 'dial'; readonly host: string; readonly port: number; readonly timeoutMs: number }
  | { readonly id: number; readonly op: 'listen'; readonly host: string; readonly port: number };

export type BrokerReply =
  | { readonly id: number; readonly ok: true }
  | { readonly id: number; readonly ok: false; readonly code: string; readonly message: string }
  | { readonly ready: true };
