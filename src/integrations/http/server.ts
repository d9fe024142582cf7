import type { ChatModel } from '../../formalize/index.js';
import type { Schema } from '../../language/index.js';
import { createServiceApp } from './app.js';
import { listenApp } from './listen.js';
import type { ServiceMemoryLimits } from './memory-budget.js';
import { openServiceStore } from './open-store.js';

export interface StartServiceOptions {
  /**
   * Where sessions and the audit log are kept: an SQLite file (created if missing), or a
   * `postgres://` URL of a database several instances share (openServiceStore).
   */
  readonly db: string;
  readonly tokens: readonly string[];
  /** Tokens that approve (ServiceAppOptions.approverTokens). */
  readonly approverTokens?: readonly string[];
  /** Open sessions per token (default 1,000). */
  readonly maxOpenSessions?: number;
  /** Failed authentications per second per client address (default 10; 0 = no limit). */
  readonly authFailureLimit?: number;
  /** Host to bind (default 127.0.0.1). */
  readonly host?: string;
  /** Port (default 8787; 0 picks a free one). */
  readonly port?: number;
  readonly model?: ChatModel;
  readonly maxBodyBytes?: number;
  readonly rateLimit?: number;
  readonly corsOrigin?: string;
  readonly log?: (line: string) => void;
  /** What the sessions in memory may hold (memory-budget.ts). */
  readonly memory?: Partial<ServiceMemoryLimits>;
  /** The operator's policy text and whether sessions may name their own (ServiceAppOptions). */
  readonly policy?: string;
  readonly allowSessionPolicy?: boolean;
  readonly policySchema?: Schema;
}

export interface RunningService {
  /** The bound URL, e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  /** Where sessions are kept, as messages may show it (a database URL without its password). */
  readonly store: string;
  /** Sessions restored from the store at start (none from PostgreSQL: read when asked for). */
  readonly restored: number;
  close(): Promise<void>;
}

/** Opens the store, restores its open sessions and serves the API until `close()`. */
export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const store = await openServiceStore(options.db, options.log);
  try {
    const { app, sessions } = createServiceApp({
      store,
      tokens: options.tokens,
      ...(options.approverTokens !== undefined ? { approverTokens: options.approverTokens } : {}),
      ...(options.maxOpenSessions !== undefined
        ? { maxOpenSessions: options.maxOpenSessions }
        : {}),
      ...(options.authFailureLimit !== undefined
        ? { authFailureLimit: options.authFailureLimit }
        : {}),
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
      ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
      ...(options.corsOrigin !== undefined ? { corsOrigin: options.corsOrigin } : {}),
      ...(options.log !== undefined ? { log: options.log } : {}),
      ...(options.memory !== undefined ? { memory: options.memory } : {}),
      ...(options.policy !== undefined ? { policy: options.policy } : {}),
      ...(options.allowSessionPolicy !== undefined
        ? { allowSessionPolicy: options.allowSessionPolicy }
        : {}),
      ...(options.policySchema !== undefined ? { policySchema: options.policySchema } : {}),
    });
    const { restored } = await sessions.restoreAll();
    const listening = await listenApp(app.fetch, options.host ?? '127.0.0.1', options.port ?? 8787);
    return {
      url: listening.origin,
      store: store.what,
      restored,
      close: async () => {
        await listening.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
