/**
 * What people name in a session, by pi's rules, in one place.
 *
 * Labels: label entries are applied in file order; one with a truthy `label` sets its target's
 * label, any other clears it (pi's `labelsById`). `value` makes what a caller keeps for a label
 * (the text, its line, its timestamp).
 */
export function applyLabel<T>(labels: Map<string, T>, entry: object, value: (label: string) => T): void {
  const { targetId, label } = entry as { targetId?: unknown; label?: unknown };
  if (typeof targetId !== "string") return;
  if (label) labels.set(targetId, value(String(label)));
  else labels.delete(targetId);
}

/** The session's name after a `session_info` entry: its `name`, trimmed; a blank or missing one clears it. */
export function sessionName(entry: object): string | undefined {
  const { name } = entry as { name?: unknown };
  return typeof name === "string" ? name.trim() || undefined : undefined;
}
