/**
 * pi's labels, in one place: label entries are applied in file order; one with a truthy `label`
 * sets its target's label, any other clears it (pi's `labelsById`). `value` makes what a caller
 * keeps for a label (the text, its line, its timestamp).
 */
export function applyLabel<T>(labels: Map<string, T>, entry: object, value: (label: string) => T): void {
  const { targetId, label } = entry as { targetId?: unknown; label?: unknown };
  if (typeof targetId !== "string") return;
  if (label) labels.set(targetId, value(String(label)));
  else labels.delete(targetId);
}
