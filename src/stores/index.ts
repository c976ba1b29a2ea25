/**
 * The stores of sessions (docs/stores.md, "Stores"; ARCHITECTURE.md, "src/stores"): where sessions are
 * kept, each store an adapter in a folder of its own (`pi/`, `agent-core/`, `openclaw-jsonl/`, `openclaw-sqlite/`,
 * with what OpenClaw's two eras share in `openclaw/` and `common/`). This is the one face the layers
 * above import: finding sessions (`find.ts`), naming and opening them (`open.ts`), and what they
 * are to their store (`describe.ts`), each asking the stores `registry.ts` lists, each a `Store`
 * (`common/store.ts`); a command's run holds what the stores open (`StoreRun`).
 */
export { STORE_CHOICES, type StoreChoice, idOf as sessionIdOf, listSessionFiles, expandInputs, resolveInput, storeInputs, archivedSessions, archivedNamed, archiveHolds, type ArchivedSession, emptyDirectoryNote, namedNonSessions, storeRoots, noStoreMessage, sessionDirEnv } from "./find.js";
export { refOf, openSource, withBytes, sessionStamp, followSession, type SessionStamp, type Follower } from "./open.js";
export { transcriptFacts, lockOf, storeFindings, withTwinKeys, sessionGroup, storeSessionIds, keepStoreFacts, saveStoreFacts, readAheadWithin, storedVersion, storedExtent, v3Copy, storedLines, writeRefusal, keeperOf, storedUsage, type Keeper, type StoreFacts, type StoredRequest } from "./describe.js";
export { sessionDir, idFromFileName, cwdAround } from "./pi/index.js";
export { beginRun, currentRun, StoreRun } from "./common/run.js";
export { cacheFolder } from "./common/cache-folder.js";
export { sqliteModule } from "./common/sqlite.js";
export { isArchiveFolder } from "./common/archive-folder.js";
export { archiveOf, archivedPath, archiveFolderHolding, readManifest, elsewhereOf, MANIFEST, type ManifestLine, type ElsewhereLine } from "./archive.js";
