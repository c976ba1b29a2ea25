import { isUtf8 } from "node:buffer";
import { LineSalvager } from "../../read/salvage.js";
import { emptyFields, scanLine, Verdict } from "../../read/scanner.js";
import { forEachLine, growthFor } from "../../read/source.js";
import { PI_EVENT_TYPES } from "../../schema/types.js";
import { addRecord, C_BAD_MESSAGE, C_NORMALIZED, Candidates, noteScannedTurn, PARSED_TYPES, type RepairWork } from "./work.js";

/** Phase one, line by line: every line becomes records (candidates) or is dropped, by the salvage rule. */
export function readCandidates(work: RepairWork): void {
  const { source } = work;
  const act = work.act.bind(work);
  const drop = work.drop.bind(work);
  let at = 0;
  const c = (work.c = new Candidates((): number => growthFor(c.count, at, source.size)));
  const fields = emptyFields();
  const salvager = new LineSalvager((o) => {
    switch (o.kind) {
      case "joined": {
        act("lines-joined", o.first + 1, `lines ${o.first + 1}-${o.last + 1} were one record split by a raw newline`);
        for (let i = o.first + 1; i <= o.last; i++) drop(i);
        const k = addRecord(c, o.value, o.first, o.text, false);
        c.spans.set(k, o.last - o.first);
        return;
      }
      case "blank":
        drop(o.index);
        act("blank-dropped", o.index + 1, "a blank line");
        return;
      case "pieces": {
        const line = o.index + 1;
        if (o.records.length === 0) {
          drop(o.index);
          if (!o.terminated) act("torn-dropped", line, "the last line was cut off mid-record");
          else act("invalid-dropped", line, "not JSON, and no record could be recovered from it");
          return;
        }
        const kept = o.records.length;
        act("fused-split", line, kept === 1 ? "kept the record that follows a torn write, on a line of its own" : `${kept} records on one line, each put on a line of its own`);
        for (const f of o.fragments) act("fragment-dropped", line, `dropped a torn fragment (${f.length} characters) from the line`);
        for (const r of o.records) addRecord(c, r.value, o.index, r.text, false);
        return;
      }
    }
  });
  forEachLine(source, (buffer, start, end, line, offset, terminated) => {
    const index = line - 1;
    at = offset;
    work.lastIndex = index;
    work.lastTerminated = terminated;
    const length = end - start;
    // Most lines: the validating scanner reads the few fields needed, no JSON.parse, no copy. (A
    // trailing CR is whitespace to it; a BOM or a NUL makes it say no, and the line is normalised.)
    const bomHere = index === 0 && length >= 3 && buffer[start] === 0xef && buffer[start + 1] === 0xbb && buffer[start + 2] === 0xbf;
    if (!bomHere && scanLine(buffer, fields, start, end) === Verdict.Valid && fields.object && fields.type !== undefined && !PARSED_TYPES.has(fields.type)) {
      const cr = length > 0 && buffer[end - 1] === 13;
      const badUtf8 = !fields.ascii && !isUtf8(buffer.subarray(start, cr ? end - 1 : end));
      if (cr) act("crlf-normalized", line, "CRLF line end made LF");
      salvager.flush();
      if (PI_EVENT_TYPES.has(fields.type)) work.events++;
      const bad = fields.type === "message" && fields.role === undefined;
      const k = c.add(index, offset, length, undefined, fields, (cr || badUtf8 ? C_NORMALIZED : 0) | (bad ? C_BAD_MESSAGE : 0));
      noteScannedTurn(c, k, buffer, start, end, fields);
      if (badUtf8) act("invalid-utf8-replaced", line, "bytes that are not UTF-8 written as U+FFFD, as pi reads them");
      return;
    }
    const { normalized: n, cls, held } = salvager.classify(index, buffer.subarray(start, end), index === 0, terminated);
    if (n.bom) act("bom-removed", line, "removed the UTF-8 byte-order mark");
    if (n.cr) act("crlf-normalized", line, "CRLF line end made LF");
    if (n.nul) act("nul-removed", line, "removed NUL bytes");
    if (held) return; // a broken line, or a blank one inside a run: its fate is the run's
    if (cls?.kind === "blank") {
      drop(index);
      act("blank-dropped", line, n.nul ? "a line of NUL bytes" : "a blank line");
      return;
    }
    if (cls?.kind !== "record") {
      drop(index);
      if (cls === undefined) act("invalid-dropped", line, "the line is too long to read as text");
      else if (cls.kind === "not-object") act("not-object-dropped", line, "JSON that is not an object");
      else act("no-type-dropped", line, "an object without `type`");
      return;
    }
    const badUtf8 = !isUtf8(n.bytes);
    if (PI_EVENT_TYPES.has(cls.value.type)) work.events++;
    addRecord(c, cls.value, index, undefined, n.bom || n.cr || n.nul || badUtf8, offset, length);
    if (badUtf8) act("invalid-utf8-replaced", line, "bytes that are not UTF-8 written as U+FFFD, as pi reads them");
  });
  salvager.flush();
}

