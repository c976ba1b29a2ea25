/**
 * The stores of sessions (README, "Stores"; ARCHITECTURE.md, "src/stores"): where sessions are
 * kept, each store an adapter in a folder of its own (`pi/`, `openclaw-jsonl/`, `openclaw-sqlite/`,
 * with what OpenClaw's two eras share in `openclaw/` and `common/`). This is the one face the layers
 * above import: finding sessions (`find.ts`), naming and opening them (`open.ts`), and what they
 * are to their store (`describe.ts`); a command's run holds what the stores open (`StoreRun`).
 */
export { STORE_CHOICES, type StoreChoice, listSessionFiles, expandInputs, resolveInput, storeInputs, emptyDirectoryNote, sqliteStores, namedNonSessions, storeRoots, noStoreMessage } from "./find.js";
export { refOf, openSource, withBytes, fileStamp, type FileStamp } from "./open.js";
export { transcriptFacts, lockOf, storeFindings, withTwinKeys, sessionGroup, storeSessionIds, keepDatabaseFacts, saveDatabaseFacts, readAheadWithin, type StoreFacts } from "./describe.js";
export { sessionDir, idFromFileName, cwdAround } from "./pi/index.js";
export { beginRun, currentRun, StoreRun } from "./common/run.js";
export { cacheFolder } from "./common/cache-folder.js";
