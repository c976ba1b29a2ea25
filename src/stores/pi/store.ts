import { statSync } from "node:fs";
import type { Store } from "../common/store.js";
import { piSessionFiles, piSessionId } from "./index.js";

/** pi's files alone: what names a pi session by its file name (no other store asked). */
const ALONE = { list: () => undefined, passOver: () => false, among: () => [] };

/** pi's own store: the session directory, a folder a project (docs/commands.md, "Commands"). */
export const piStore: Store = {
  name: "pi",
  lookedFor: (piDir) => `pi's session directory (${piDir}; --session-dir, $PI_CODING_AGENT_SESSION_DIR or $PI_CODING_AGENT_DIR set it)`,
  roots: ({ piDir }) => (isDir(piDir) ? [piDir] : []),
  list: (dir, archives, others) => piSessionFiles(dir, others, archives),
  named(query, { piDir }) {
    try {
      // (a file named otherwise, a copy or a backup, by its header's id, as `ls` shows it)
      return piSessionFiles(piDir, ALONE).filter((f) => piSessionId(f)?.startsWith(query));
    } catch {
      // no session directory: nothing is named in it
      return [];
    }
  },
  // (pi's name where the file has one, else its header's: the id `ls` shows)
  idOf: piSessionId,
  sessionIds({ piDir }) {
    try {
      return piSessionFiles(piDir, ALONE).flatMap((f) => piSessionId(f) ?? []);
    } catch {
      return [];
    }
  },
};

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
