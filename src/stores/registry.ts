import type { Store } from "./common/store.js";
import { agentCoreStore } from "./agent-core/store.js";
import { openclawStore } from "./openclaw/store.js";
import { piStore } from "./pi/store.js";

/**
 * The stores, asked in this order (src/stores/README.md): a store is a folder beside the others
 * and one line here. pi's comes last: a folder no other store lays out is read as pi lays out its
 * session directory.
 */
export const STORES: readonly Store[] = [
  openclawStore,
  agentCoreStore,
  piStore,
];
