import { homedir } from "node:os";
import { join } from "node:path";

/** Where pi-session keeps its caches (`ls`'s index, `usage`'s, OpenClaw databases' facts): `$XDG_CACHE_HOME/pi-session`, else `~/.cache/pi-session`. */
export function cacheFolder(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME ? env.XDG_CACHE_HOME : join(homedir(), ".cache"), "pi-session");
}
