import type { ScanFields } from "../read/scanner.js";
import type { LineRecord } from "../read/line-table.js";
import type { AnyEntry, SessionHeader } from "../schema/types.js";

export interface OpenOptions {
  /**
   * Called in pass one with entries (upgraded to v3 shape) and the header, for commands that need
   * to see entries anyway (`show`, `check`, names for `tree` and `ls`): they gather what they need
   * without a second read. Which entries, and how whole, `only` and `skim` say; without either,
   * every entry is parsed whole.
   */
  onRecord?: (value: AnyEntry | SessionHeader, record: LineRecord) => void;
  /**
   * With `onRecord`: parse and pass on only entries of these types (and the header); every other
   * line goes through the scanner alone. `tree` asks for labels, `ls` for session names.
   */
  only?: ReadonlySet<string>;
  /**
   * With `onRecord`: parse and pass on only the entries of the lines this accepts, given each
   * line's bytes (`buffer[start..end)`, a view valid during the call; lines come in order), and
   * whatever the session parses for itself (the header, a harness leaf, a v1 compaction) or the
   * scanner cannot read alone; every other line goes through the scanner alone. `grep`'s read of a
   * file the fast read stands aside for (v1, damaged): the lines whose bytes may hold a match.
   */
  lines?: (buffer: Buffer, start: number, end: number) => boolean;
  /**
   * With `onRecord`: every entry is passed on, but a message (the bulk of a session) as the
   * skeleton the scanner read without parsing it: `{ type, message: { role, provider, model,
   * usage, toolCallId, content: [{ type: "toolCall", id }…] } }`, the tool calls' ids and nothing
   * else of the content (its id and parent are the record's). Other entries are parsed whole
   * (they are few and small). What `show` and `check` need of every entry, at a fraction of
   * `JSON.parse`'s cost.
   */
  skim?: boolean;
  /**
   * With `skim`: whether a message's `usage` is parsed into its skeleton (the one part of a skim
   * that costs a parse; default true). `check` reads none.
   */
  skimUsage?: boolean;
  /**
   * With `skim`: only entries that may carry usage are passed on (messages with a `usage` object,
   * as skeletons without their tool calls; `usage` entries, compactions and branch summaries,
   * whole), and the header: `usage`'s read. Every line is still scanned and recorded.
   */
  usageOnly?: boolean;
  /**
   * With `onRecord` for whole entries: "length" hands them on as `ReadOptions.imageData` does, a
   * large image's data left out. A line of 64 KB or more is parsed without its long plain string.
   * Default "full".
   */
  imageData?: "full" | "length";
  /**
   * Asked at the start of pass one, with the session's size in bytes, for what to call with each
   * entry's node, the bytes of its line a preview reads (`previewCut`, as `Session.previewBytes`
   * reads them in pass two: a view valid only during the call), its type and role as
   * `Session.nodeType` and `nodeRole` give them, whether those bytes end before the line does
   * (`previewIsTruncated`), and the scanner's fields of those bytes, its content's texts and all
   * (undefined for a line the scanner cannot read: no JSON, or no WebAssembly), and whether the
   * entry's parent is the entry before it, as far as pass one knows on reading it (the first
   * entry follows none: true); undefined for nothing. It returns whether it wants more: once
   * false, pass one calls it no more. `tree`, which shows every entry, makes its previews here
   * rather than reading each line again; `path`, while the entries read as mostly one chain.
   */
  previewLines?: (size: number) => PreviewLine | undefined;
  /**
   * Called with each record the salvage rule finds on a line pi skips (a record fused with torn
   * text, one split by a raw newline): what pi does not read, but `repair` would keep.
   */
  onSkipped?: (value: Record<string, unknown>, line: number) => void;
}

/** What pass one hands each entry's preview bytes to (`OpenOptions.previewLines`). */
export type PreviewLine = (node: number, line: Buffer, type: string | undefined, role: string | undefined, truncated: boolean, fields: ScanFields | undefined, follows: boolean) => boolean;
