/** A 53-bit hash of an id (two 32-bit FNV-1a hashes): for matching tool calls by id without keeping their strings. */
export function idHash(id: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let k = 0; k < id.length; k++) {
    const c = id.charCodeAt(k);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 11) & 0x1fffff);
}

/** `idHash` of the id spelled by 8 lowercase hex digits of `v` (pi's ids), without making the string. */
export function idHashHex(v: number): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let shift = 28; shift >= 0; shift -= 4) {
    const d = (v >>> shift) & 15;
    const c = d < 10 ? 0x30 + d : 0x57 + d;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 11) & 0x1fffff);
}
