#!/usr/bin/env node
/**
 * Writes the pairing fixtures (fixtures/pairing-*.jsonl, described in fixtures/README.md): the
 * first 19 lines of a real pi session from ../shared/corpus (earth-0: tool calls answered two at
 * a time), each damaged one way the public reports show, so that `check` and `repair` are tried
 * on the shape real files have. Run from the repository's root: `node scripts/pairing-fixtures.mjs`.
 */
import { readFileSync, writeFileSync } from "node:fs";

const SOURCE = "../shared/corpus/earth-0__019ebb22.snapA.v3.jsonl";
const lines = readFileSync(SOURCE, "utf8").split("\n").filter(Boolean).slice(0, 19);
const records = lines.map((l) => JSON.parse(l));
/** Line N (1-based) of the excerpt, as a record. */
const at = (n) => structuredClone(records[n - 1]);
const write = (name, recs) => writeFileSync(`fixtures/${name}`, recs.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n") + "\n");
const all = () => records.map((r) => structuredClone(r));
const time = (r, ms) => new Date(Date.parse(r.timestamp) + ms).toISOString();

// pi #4189, OpenClaw #58608: a crash tore the assistant line that held two calls (line 13): its
// two results stay behind with no call.
{
  const recs = all();
  recs[12] = lines[12].slice(0, 400);
  write("pairing-torn-call.jsonl", recs);
}

// oh-my-pi #472: an assistant turn that ended in an error still holds a call (line 16), and its
// result follows; pi does not send the turn, so the result answers nothing. Lines 18-19: a call
// left unanswered at the end (pi answers it itself: not an error).
{
  const recs = all();
  Object.assign(recs[15].message, { stopReason: "error", errorMessage: "terminated" });
  write("pairing-errored-turn.jsonl", recs);
}

// OpenClaw #81397: a message arrived between a call (line 13) and its results: a user message
// stands between them.
{
  const recs = all();
  const call = recs[12];
  const steer = { type: "message", id: "c0ffee01", parentId: call.id, timestamp: time(call, 1), message: { role: "user", content: [{ type: "text", text: "也看看 README" }], timestamp: Date.parse(call.timestamp) + 1 } };
  recs[13].parentId = steer.id;
  recs.splice(13, 0, steer);
  write("pairing-displaced.jsonl", recs);
}

// OpenClaw #81397: a result written twice (line 7 again, with an id of its own, after the first).
{
  const recs = all();
  const again = { ...structuredClone(recs[6]), id: "c0ffee02", parentId: recs[6].id, timestamp: time(recs[6], 1) };
  recs[7].parentId = again.id;
  recs.splice(7, 0, again);
  write("pairing-duplicate.jsonl", recs);
}

// OpenClaw #21985: a turn that said `toolUse` but held no call, then a phantom result with an
// empty toolCallId, surviving a compaction that keeps from that turn.
{
  const recs = all();
  const before = recs[10];
  const turn = { type: "message", id: "c0ffee03", parentId: before.id, timestamp: time(before, 1), message: { role: "assistant", content: [{ type: "text", text: "" }], api: before.message.api, provider: before.message.provider, model: before.message.model, usage: before.message.usage, stopReason: "toolUse", timestamp: Date.parse(before.timestamp) + 1 } };
  const phantom = { type: "message", id: "c0ffee04", parentId: turn.id, timestamp: time(before, 2), message: { role: "toolResult", toolCallId: "", toolName: "", content: [{ type: "text", text: "Tool call was aborted" }], isError: true, timestamp: Date.parse(before.timestamp) + 2 } };
  const compaction = { type: "compaction", id: "c0ffee05", parentId: phantom.id, timestamp: time(before, 3), summary: "The user asked for the project's layout; it was listed.", firstKeptEntryId: turn.id, tokensBefore: 40000 };
  recs[11].parentId = compaction.id;
  recs.splice(11, 0, turn, phantom, compaction);
  write("pairing-empty-id.jsonl", recs);
}

// A compaction whose kept part starts at a result (line 14), cut off from its call (line 13).
{
  const recs = all();
  const last = recs[14];
  const compaction = { type: "compaction", id: "c0ffee06", parentId: last.id, timestamp: time(last, 1), summary: "Two files were read.", firstKeptEntryId: recs[13].id, tokensBefore: 30000 };
  recs[15].parentId = compaction.id;
  recs.splice(15, 0, compaction);
  write("pairing-compaction-cut.jsonl", recs);
}
