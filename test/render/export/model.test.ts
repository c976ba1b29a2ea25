import { describe, expect, it } from "vitest";
import { BlockBuilder } from "../../../src/render/export/model.js";
import { rng } from "../../helpers/generate.js";

describe("export times", () => {
  const builder = () => new BlockBuilder(new Map(), new Map());

  it("formats ms and ISO strings as Date does, in any order, and refuses what a Date cannot hold", () => {
    const r = rng(11);
    const b = builder();
    const times: unknown[] = [0, -1, -1.5, 1.5, 86_399_999, 86_400_000, -86_400_001, 8.64e15, -8.64e15, 253402300799999];
    for (let i = 0; i < 3000; i++) times.push(Math.floor((r() - 0.3) * 4e12) + (r() < 0.1 ? r() : 0));
    for (let i = 0; i < 300; i++) times.push(new Date(Math.floor(r() * 4e12)).toISOString());
    times.push("2026-02-30T00:00:00.000Z", "2026-01-01T24:00:00.000Z", "2026-01-01T23:59:60Z", "2026-03-01 10:00", "soon");
    for (const t of times) {
      const ms = typeof t === "number" ? t : Date.parse(t as string);
      const expected = Number.isNaN(new Date(ms).getTime()) ? undefined : new Date(ms).toISOString().replace("T", " ").replace(/\.\d{3}Z$/, "");
      expect(b.time(t), String(t)).toBe(expected);
    }
    for (const t of [8.64e15 + 1, 1e20, Infinity, NaN, "", null, undefined]) expect(b.time(t), String(t)).toBeUndefined();
  });
});
