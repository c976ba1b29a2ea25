/*
 * How a session in one of agent-core's shared SQLite containers is named: as a path is,
 * `<container>#<session id>` (a container holding one session is named by its file alone). This
 * is the one place such a name is taken apart. OpenClaw's databases, also `.sqlite` files named
 * with a `#`, are its store's: that store is asked first.
 */

const REF = /^(.*\.sqlite)#([^/\\#]+)$/;

export function containerRef(path: string): { database: string; id: string } | undefined {
  if (!path.includes("#")) return undefined;
  const m = REF.exec(path);
  return m ? { database: m[1]!, id: m[2]! } : undefined;
}

export function containerPath(database: string, id: string): string {
  return `${database}#${id}`;
}
