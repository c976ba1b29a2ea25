import type { Argv } from "yargs";
import type { CommandModule } from "../command.js";
import { CliError } from "../errors.js";
import { STORE_CHOICES } from "../stores/index.js";

/**
 * Every command and what it takes, in one list: the parser registers each from it, the usage
 * errors name commands and options from it, and each command's module is loaded only when it runs.
 */

export interface CommandSpec {
  command: string;
  describe: string;
  builder: (y: Argv) => Argv;
  load: () => Promise<CommandModule<unknown>>;
  /** Its output is a list: `--jsonl` writes it one JSON value a line. */
  jsonl?: boolean;
  /** What it says it needs when an argument is missing (default: its positionals, each a path, - or a session id). */
  needs?: string;
  /** It reports findings: `--format github` writes them as GitHub Actions annotations (writers: with --check). */
  annotates?: "always" | "with --check";
  /** Options of one value it takes more than once, each value added (`grep --role`); any other given twice is a usage error. */
  repeatable?: readonly string[];
}

/** A count option: a whole number >= 0, or a usage error naming the option and what it got. */
const count =
  (name: string, least = 0) =>
  (value: unknown) => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < least) throw new CliError(`--${name} takes a whole number >= ${least} (e.g. --${name} 10), got ${JSON.stringify(value)}; see pi-session --help`);
    return n;
  };

const leafOption = { type: "string", describe: "entry id (or unique prefix) of the leaf; default: the current leaf" } as const;

/** Findings as text, or as GitHub Actions workflow commands that annotate the files in a CI run. */
const reportFormat = { choices: ["text", "github"] as const, default: "text", describe: "text, or github: GitHub Actions annotations (::error file=F,line=N,title=CODE::message)" } as const;

/** A dry run's diff on a terminal is cut to its width; `--full` prints it whole (piped output always is). */
const fullOption = { type: "boolean", default: false, describe: "with --dry-run on a terminal: the whole unified diff, every line whole (piped, it always is)" } as const;

/** Tables fit a terminal's width; `--wide` draws every column whole (piped output always does). */
const wideOption = { type: "boolean", default: false, describe: "on a terminal, draw every table column whole instead of fitting the width" } as const;

export const COMPLETION_HELP = `pi-session completion

Print a shell completion script (bash/zsh): commands, options, and the ids of
the sessions in the session directory and in the OpenClaw stores found.

Examples:
  # bash, for every new shell
  pi-session completion >> ~/.bashrc
  # zsh
  pi-session completion >> ~/.zshrc
`;

/** What `ls` lists and `archive` moves is chosen by (one selection: support/listing/sessions.ts). */
const sessionFilters = (y: Argv) =>
  y
    .option("cwd", { type: "string", describe: "only sessions whose working directory is PATH" })
    .option("agent", { type: "string", describe: "only an OpenClaw agent's sessions" })
    .option("kind", { type: "string", describe: "only OpenClaw sessions of this kind (main, cron, direct, group, subagent, …)" })
    .option("older-than", { type: "string", describe: "only sessions whose last activity is older than this (7d, 4w, 3m, or a date)" })
    .option("larger-than", { type: "string", describe: "only files larger than this (64K, 10M)" });

/** Which stores a store-wide command reads by default (docs/stores.md, "OpenClaw's stores"). */
const storeOption = { choices: STORE_CHOICES, describe: "with no directory given: pi's session directory, OpenClaw's roots, or both", default: "all" } as const;

export const JSONL_OPTION = { type: "boolean", describe: "list-shaped commands (ls, check, path, tree, context, redact, tail, archive, restore, usage, grep, search): one JSON value a line, streamed" } as const;

export const COMMANDS: CommandSpec[] = [
  {
    command: "ls [dir]",
    describe: "List sessions with their status",
    builder: (y) =>
      sessionFilters(y)
        .positional("dir", { type: "string", describe: "directory to list: pi's session directory or an OpenClaw root (or a folder in one); default: pi's and every OpenClaw root found. A session (a file, an id or a prefix): its row alone" })
        .option("store", storeOption)
        .option("archived", { type: "boolean", default: false, describe: "what each directory's archive holds too (where `archive` moved sessions, --to included)" })
        .option("sort", { choices: ["modified", "created", "size", "messages", "name"] as const, default: "modified", describe: "sort key (newest / largest first)" })
        .option("limit", { type: "string", coerce: count("limit"), describe: "show at most N sessions" })
        .option("cache", { type: "boolean", default: true, describe: "use the index cache in $XDG_CACHE_HOME/pi-session (--no-cache: neither read nor write it, nor the compile cache and OpenClaw databases' facts beside it)" })
        .option("wide", wideOption)
        .option("tree", { type: "boolean", default: false, describe: "draw sessions by lineage: a fork or clone under its parent, a sub-agent under its spawner, a reset's successor under the session it replaced" })
        .example("$0 ls", "every session in ~/.pi/agent/sessions")
        .example("$0 ls --cwd ~/code/app --limit 5", "the five latest sessions of one project")
        .example("$0 ls fixtures --json | jq '.sessions[].status'", "statuses as JSON")
        .example("$0 ls --jsonl | jq -c 'select(.status != \"ok\")'", "a session a line")
        .example("$0 ls --store openclaw --kind cron --older-than 30d", "OpenClaw's cron runs not touched for a month"),
    load: () => import("../commands/ls.js"),
    jsonl: true,
  },
  {
    command: "show <file> [entry]",
    describe: "Summarise a session, or show one entry where it stands",
    builder: (y) =>
      y
        .positional("file", { type: "string", describe: "session file, - or session id" })
        .positional("entry", { type: "string", describe: "entry id (or unique prefix): rendered, with its line, parent, children, branch, label, and the results that answer its calls; --json: the raw entry" })
        .option("prices", { type: "string", describe: "a JSON file of prices (dollars per million tokens) over pi-ai's, to estimate what requests with no cost recorded would have cost: {\"<provider>\": {\"<model id>\": {\"input\": 3, \"output\": 15}}}" })
        .option("full", { type: "boolean", default: false, describe: "with ENTRY on a terminal: the entry whole, a long tool result not folded (piped, it always is)" })
        .example("$0 show fixtures/branched.jsonl", "counts, models, tokens, leaves, findings")
        .example("$0 show fixtures/tools.jsonl t0000004", "a tool call: its command, and the line of the result that answers it")
        .example("$0 show fixtures/tools.jsonl t0000004 --json", "the entry as the file holds it"),
    load: () => import("../commands/show.js"),
  },
  {
    command: "tree <file>",
    describe: "Draw the entry tree",
    builder: (y) =>
      y
        .positional("file", { type: "string", describe: "session file, - or session id" })
        .option("depth", { type: "string", coerce: count("depth"), describe: "draw at most N levels" })
        .option("compact", { type: "boolean", default: false, describe: "fold linear runs into one line" })
        .option("wide", { type: "boolean", default: false, describe: "on a terminal, draw deep branches whole instead of folding their levels to fit the width" })
        .example("$0 tree fixtures/branched.jsonl", "every entry, branches drawn with box characters")
        .example("$0 tree big.jsonl --compact", "only branch points, leaves and labels")
        .example("$0 tree big.jsonl --jsonl | jq -c 'select(.label)'", "a node a line"),
    load: () => import("../commands/tree.js"),
    jsonl: true,
  },
  {
    command: "path <file> [entry]",
    describe: "The entries from the root to an entry (default: the current leaf)",
    builder: (y) =>
      y
        .positional("file", { type: "string", describe: "session file, - or session id" })
        .positional("entry", { type: "string", describe: "entry id or unique prefix (default: the current leaf)" })
        .option("leaves", { type: "boolean", default: false, describe: "list every branch tip instead" })
        .example("$0 path fixtures/branched.jsonl", "the current branch")
        .example("$0 path fixtures/branched.jsonl --leaves", "every branch tip with its depth and label")
        .example("$0 path big.jsonl --jsonl | while read -r step; do …; done", "an entry a line"),
    load: () => import("../commands/path.js"),
    jsonl: true,
  },
  {
    command: "context <file>",
    describe: "The context pi rebuilds for a leaf",
    builder: (y) =>
      y
        .positional("file", { type: "string", describe: "session file, - or session id" })
        .option("leaf", leafOption)
        .option("llm", { type: "boolean", default: false, describe: "show the provider-facing messages (pi's convertToLlm)" })
        .option("full", { type: "boolean", default: false, describe: "on a terminal: every message whole, long tool results and thinking not folded (piped, they always are)" })
        .example("$0 context fixtures/compacted.jsonl", "the conversation as the model sees it")
        .example("$0 context fixtures/branched.jsonl --leaf 5e6f --json", "pi's SessionContext for another branch")
        .example("$0 context big.jsonl --jsonl | tail -n +2 | jq -c .role", "the settings, then a message a line"),
    load: () => import("../commands/context.js"),
    jsonl: true,
  },
  {
    command: "check <files..>",
    describe: "Validate session files (exit 1 on errors)",
    builder: (y) =>
      y
        .positional("files", { type: "string", array: true, describe: "files, directories (searched for *.jsonl), - or session ids" })
        .option("quiet", { alias: "q", type: "boolean", default: false, describe: "print only errors and the summary" })
        .option("verbose", { alias: "v", type: "boolean", default: false, describe: "under each finding, why it matters (what pi does, the provider's own error)" })
        .option("format", reportFormat)
        .option("wide", wideOption)
        .example("$0 check ~/.pi/agent/sessions", "every session, the CI gate")
        .example("$0 check broken.jsonl --json", "findings as data")
        .example("$0 check sessions/ --format github", "annotations for a GitHub Actions job"),
    load: () => import("../commands/check.js"),
    jsonl: true,
    annotates: "always",
  },
  {
    command: "migrate <files..>",
    describe: "Upgrade v1/v2 session files to v3",
    builder: (y) =>
      writeOptions(y)
        .positional("files", { type: "string", array: true, describe: "files or directories (searched for *.jsonl)" })
        .option("dry-run", { type: "boolean", default: false, describe: "print the unified diff; write nothing (exit 1 if a change is needed)" })
        .option("full", fullOption)
        .option("check", { type: "boolean", default: false, describe: "write nothing; exit 1 if any file needs migrating (for CI)" })
        .example("$0 migrate old.jsonl", "upgrade in place, keeping old.jsonl.bak")
        .example("$0 migrate ~/.pi/agent/sessions --check", "CI: fail if anything is left to migrate")
        .example("$0 migrate old.jsonl --dry-run", "show what would change")
        .example("$0 migrate sessions/ --check --format github", "CI: annotate each file left to migrate"),
    load: () => import("../commands/migrate.js"),
    annotates: "with --check",
  },
  {
    command: "repair <files..>",
    describe: "Rewrite corrupted session files so pi loads all of them",
    builder: (y) =>
      writeOptions(y)
        .positional("files", { type: "string", array: true, describe: "session files (or directories)" })
        .option("dry-run", { type: "boolean", default: false, describe: "print the actions and the unified diff; write nothing (exit 1 if a repair is needed)" })
        .option("full", fullOption)
        .option("check", { type: "boolean", default: false, describe: "write nothing; exit 1 if any file needs repair" })
        .example("$0 repair broken.jsonl", "repair in place, keeping broken.jsonl.bak")
        .example("$0 repair broken.jsonl --dry-run", "every action with its line number, and the diff")
        .example("$0 repair broken.jsonl --out fixed.jsonl --json", "write elsewhere; the report as JSON")
        .example("$0 repair sessions/ --check --format github", "CI: annotate each line a repair would change"),
    load: () => import("../commands/repair.js"),
    annotates: "with --check",
  },
  {
    command: "slim <files..>",
    describe: "Shrink sessions: payloads no branch's context holds become placeholders",
    builder: (y) =>
      writeOptions(y)
        .positional("files", { type: "string", array: true, describe: "session files (or directories)" })
        .option("min-size", { type: "string", describe: "slim payloads of at least this many bytes (4K, 1M; images always)", default: "1024" })
        .option("dry-run", { type: "boolean", default: false, describe: "print what would be saved; write nothing (exit 1 if something would be slimmed)" })
        .option("check", { type: "boolean", default: false, describe: "write nothing; exit 1 if any file could be slimmed" })
        .example("$0 slim big.jsonl", "slim in place, keeping big.jsonl.bak")
        .example("$0 slim big.jsonl --dry-run", "how much it would save, by kind")
        .example("$0 slim ~/.pi/agent/sessions --min-size 64K", "every session, payloads of 64 KB and more")
        .epilogue(
          "An entry is live when the context pi builds for some leaf holds it; live entries are copied byte for byte, so no branch's context changes. In the entries behind (before the kept part of the latest compaction on every branch through them), tool output, images, thinking, text, tool-call arguments and superseded summaries of --min-size or more become short placeholders ('[removed by pi-session slim: tool output, 2.3 MB]'); ids, parents, roles, tool names, models, usage and cost stay, so the tree, labels and totals do not change. Branching later from an entry that was behind shows the placeholders.",
        ),
    load: () => import("../commands/slim.js"),
    annotates: "with --check",
  },
  {
    command: "fork <file>",
    describe: "Copy a session (or one branch of it) into a new session file",
    builder: (y) =>
      y
        .positional("file", { type: "string", describe: "source session file or id" })
        .option("leaf", { type: "string", describe: "copy only the root -> leaf path (labels on it re-created); default: the whole tree" })
        .option("cwd", { type: "string", describe: "the new session's working directory (default: the source's)" })
        .option("out", { alias: "o", type: "string", describe: "write here (default: the session directory of its cwd, named as pi names sessions)" })
        .option("force", { type: "boolean", default: false, describe: "replace an existing --out file" })
        .example("$0 fork session.jsonl --leaf 5e6f", "a new session holding one branch; prints its path")
        .example("$0 fork session.jsonl --cwd ~/code/other", "re-home a session into another project"),
    load: () => import("../commands/fork.js"),
  },
  {
    command: "export <file>",
    describe: "A branch as Markdown, JSON or one self-contained HTML page",
    builder: (y) =>
      y
        .positional("file", { type: "string", describe: "session file, - or session id" })
        .option("leaf", leafOption)
        .option("format", { alias: "f", choices: ["md", "json", "html", "jsonl"] as const, default: "md", describe: "output format (jsonl: the branch as a pi session file, as pi's /export writes it: a header, then the branch's entries each parented on the one before)" })
        .option("view", { choices: ["path", "context"] as const, default: "path", describe: "path: every entry on the branch; context: what the model sees" })
        .option("thinking", { choices: ["collapsed", "full", "omit"] as const, default: "collapsed", describe: "thinking blocks" })
        .option("tool-results", { choices: ["collapsed", "full", "omit"] as const, default: "collapsed", describe: "tool output" })
        .option("images", { choices: ["placeholder", "embed"] as const, default: "placeholder", describe: "images: a placeholder naming type and size, or embedded as data" })
        .option("literal", { type: "boolean", default: false, describe: "every text fenced as it was, nothing rendered as Markdown (md, html)" })
        .option("redact", { type: "boolean", default: false, describe: "export the session as `redact` writes it: every secret replaced by «redacted:KIND:HASH» (the count on stderr)" })
        .option("secret", { type: "string", describe: "with --redact: a value to replace wherever it stands; repeatable" })
        .option("deny", { type: "string", describe: "with --redact: a JavaScript regular expression whose matches are replaced; repeatable" })
        .option("out", { alias: "o", type: "string", describe: "write to this file (atomically; never over an existing one without --force)" })
        .option("force", { type: "boolean", default: false, describe: "replace an existing --out file" })
        .example("$0 export session.jsonl > branch.md", "the current branch as Markdown")
        .example("$0 export session.jsonl --leaf 5e6f -f html -o branch.html --redact", "another branch as a web page, keys masked")
        .example("$0 export session.jsonl --view context --format json", "pi's context for the leaf, as JSON"),
    load: () => import("../commands/export.js"),
    repeatable: ["secret", "deny"],
  },
  {
    command: "redact <files..>",
    describe: "A copy of sessions with every secret replaced, to share; --check: a CI gate that finds them",
    repeatable: ["secret", "deny"],
    builder: (y) =>
      y
        .positional("files", { type: "string", array: true, describe: "session files, directories (every session in them), session ids, OpenClaw database transcripts (<database>#<id>), .zst archives" })
        .option("out", { alias: "o", type: "string", describe: "write the redacted copy here: a file, a folder for several sessions, - for standard output (never over an existing file without --force)" })
        .option("in-place", { type: "boolean", default: false, describe: "replace each file with its redacted copy, atomically, keeping no copy of the original (no .bak)" })
        .option("check", { type: "boolean", default: false, describe: "write nothing; name each line that holds a secret and exit 1 (for CI)" })
        .option("secret", { type: "string", describe: "a value to replace wherever it stands (4 characters or more); repeatable" })
        .option("deny", { type: "string", describe: "a JavaScript regular expression whose matches are replaced (with a group: what the first group matched); repeatable" })
        .option("drop-images", { type: "boolean", default: false, describe: "replace each image with a text block naming its type and size" })
        .option("force", { type: "boolean", default: false, describe: "replace an existing -o file" })
        .option("format", reportFormat)
        .option("wide", wideOption)
        .example("$0 redact session.jsonl -o shared.jsonl", "a copy to attach to a bug report")
        .example("$0 redact ~/.pi/agent/sessions --check --format github", "CI: annotate each line that holds a secret")
        .example("$0 redact session.jsonl --secret \"$DB_PASSWORD\" --deny 'password=(\\S+)' -o -", "more to replace, the copy on stdout")
        .epilogue(
          "Every string of every line is read after JSON decoding, for what secretlint's recommended rules find (GitHub, GitLab, OpenAI, Anthropic, AWS, Slack, Stripe, npm and more tokens, private keys, URLs with passwords), the values of the environment's variables named like a secret (*KEY*, *TOKEN*, *SECRET*, *PASSWORD*, 8 characters or more), the user name of the session's working directory, --secret and --deny. Each is replaced by «redacted:KIND:HASH», the same within a run for the same secret, never any of its characters. Ids, call ids, times, signatures and image data are kept; only lines that change are written again. Exit status: 0 done (or nothing found), 1 secrets found with --check, or a file refused, 2 unreadable input or a refused write.",
        ),
    load: () => import("../commands/redact.js"),
    jsonl: true,
    annotates: "with --check",
  },
  {
    command: "tail [session]",
    describe: "The last entries of a session's branch; with -f, each entry as it is written",
    builder: (y) =>
      y
        .positional("session", { type: "string", describe: "session file, id, prefix or OpenClaw key (default: the most recently active session of this directory's project, else of every store); with --all, a store or folder" })
        .option("lines", { alias: "n", type: "string", coerce: count("lines"), describe: "how many of the branch's last entries to show first (default 10)" })
        .option("follow", { alias: "f", type: "boolean", default: false, describe: "then show each entry as it is written, with each turn's cost, new branches, compactions and broken pairings, until Ctrl-C" })
        .option("full", { type: "boolean", default: false, describe: "draw each message whole under its line, as `context --full` does" })
        .option("all", { type: "boolean", default: false, describe: "every session of a store or folder (new ones as they appear), each line led by its session" })
        .example("$0 tail -f", "follow the session this project's pi is writing")
        .example("$0 tail agent:main:main -f", "follow OpenClaw's main chat, across resets")
        .example("$0 tail --all ~/.openclaw -f", "every session of a gateway as it is written")
        .example("$0 tail 019ebb22 -f --jsonl | jq -c 'select(.usage) | .usage.cost'", "each turn's cost, for a script"),
    load: () => import("../commands/tail.js"),
    jsonl: true,
  },
  {
    command: "archive [inputs..]",
    describe: "Move old sessions into an archive folder, zstd-compressed and checked",
    builder: (y) =>
      sessionFilters(y)
        .positional("inputs", { type: "string", describe: "directories to choose from (with the filters, as ls lists them), or sessions to archive by name; default: every store found" })
        .option("to", { type: "string", describe: "the archive folder (default: archive/ beside pi's session directory, inside an OpenClaw root, else in the session's own folder); recorded where they would have gone, so ls --archived, usage and restore find them" })
        .option("dry-run", { type: "boolean", default: false, describe: "list what would move and the bytes it would free; move nothing" })
        .example("$0 archive --older-than 3m --dry-run", "what archiving three months and older would free")
        .example("$0 archive --older-than 3m", "move them into ~/.pi/agent/archive/ (and each OpenClaw root's archive/)")
        .example("$0 usage --archived --since 2026-01-01", "what the year cost, archived sessions included"),
    load: () => import("../commands/archive.js"),
    jsonl: true,
  },
  {
    command: "restore <sessions..>",
    describe: "Put archived sessions back where they were",
    builder: (y) =>
      y
        .positional("sessions", { type: "string", describe: "archived sessions: their ids (or unique prefixes) or their archives' paths" })
        .option("dry-run", { type: "boolean", default: false, describe: "say what would be put back; write nothing" })
        .example("$0 restore 019ebb22", "the archived session back in the session directory")
        .example("$0 ls --archived --older-than 3m", "what is archived, with the rest"),
    load: () => import("../commands/restore.js"),
    jsonl: true,
    needs: "the archived sessions to put back: their ids (or unique prefixes) or their archives' paths; e.g. pi-session restore 019ebb22 (pi-session ls --archived lists them)",
  },
  {
    command: "cat <file>",
    describe: "A session's file as stored (a .zst archive decompressed, a database transcript's lines)",
    builder: (y) =>
      y
        .positional("file", { type: "string", describe: "session file or session id (an OpenClaw key names one too)" })
        .example("$0 cat agent:main:main > main.jsonl", "a copy of OpenClaw's live main transcript, to repair, grep or open in pi")
        .example("$0 cat 4cd0abc6 | jq -c 'select(.type == \"compaction\")'", "the transcript's lines, for jq")
        .example("$0 cat sessions/ID.jsonl.reset.TIME.zst | wc -l", "an archive in an OpenClaw agent's sessions/ folder (TIME: its reset), decompressed"),
    load: () => import("../commands/cat.js"),
  },
  {
    command: "diff <a> <b> [c]",
    describe: "Two branches of a session (FILE LEAF_A LEAF_B), or two sessions (A B), compared",
    builder: (y) =>
      y
        .positional("a", { type: "string", describe: "FILE (with two leaves), or the first session: a file or session id" })
        .positional("b", { type: "string", describe: "LEAF_A (an entry id or unique prefix), or the second session" })
        .positional("c", { type: "string", describe: "LEAF_B: with it, a and b's branches in FILE are compared" })
        .option("stat", { type: "boolean", default: false, describe: "the counts alone" })
        .option("full", { type: "boolean", default: false, describe: "on a terminal: the contexts' diff whole, every line whole (piped, it always is)" })
        .example("$0 diff session.jsonl 5e6f 9a8b", "where the two branches part, each side's entries, and what the model sees on each")
        .example("$0 diff session.jsonl.bak session.jsonl", "what a repair changed: entries added, removed and changed, then the contexts")
        .example("$0 diff a.jsonl b.jsonl --stat --json", "the counts, for a script")
        .epilogue("Exit status: 0 the same, 1 different, 2 trouble (as diff has it). Entries are matched by id and compared as JSON values: key order and spacing are no change. A damaged file is compared as check reads it, its problems said once on stderr."),
    load: () => import("../commands/diff.js"),
    needs: "two sessions (paths or session ids), or a FILE and two of its entries; e.g. pi-session diff session.jsonl.bak session.jsonl, or pi-session diff session.jsonl LEAF_A LEAF_B",
  },
  {
    command: "usage [inputs..]",
    describe: "Tokens and cost over a store of sessions, as pi counts them, each shared entry once",
    builder: (y) =>
      y
        .positional("inputs", { type: "string", array: true, describe: "session files or directories (default: pi's session directory and every OpenClaw root found)" })
        .option("store", storeOption)
        .option("archived", { type: "boolean", default: false, describe: "what each directory's archive holds too (where `archive` moved sessions, --to included)" })
        .option("prices", { type: "string", describe: "a JSON file of prices (dollars per million tokens) over pi-ai's, to estimate what requests with no cost recorded would have cost: {\"<provider>\": {\"<model id>\": {\"input\": 3, \"output\": 15}}}" })
        .option("by", { choices: ["day", "week", "month", "session", "project", "model", "agent", "key", "job", "channel", "kind"] as const, default: "day", describe: "one row per day, ISO week, month, session, project (cwd) or model; for OpenClaw's transcripts, per agent, session key, cron job, channel or kind" })
        .option("since", { type: "string", describe: "from this day on (YYYY-MM-DD, YYYYMMDD, or 7d / 4w / 3m before today)" })
        .option("until", { type: "string", describe: "up to and including this day (same forms)" })
        .option("timezone", { alias: "z", type: "string", describe: "IANA time zone for days, weeks and months (default: the machine's)" })
        .option("cwd", { type: "string", describe: "only sessions whose working directory is PATH" })
        .option("breakdown", { alias: "b", type: "boolean", default: false, describe: "a row per model under each group" })
        .option("format", { choices: ["text", "csv"] as const, default: "text", describe: "text, or csv: a header line and a row a group, for spreadsheets" })
        .option("cache", { type: "boolean", default: true, describe: "use the usage cache in $XDG_CACHE_HOME/pi-session (--no-cache: neither read nor write it, nor the compile cache and OpenClaw databases' facts beside it)" })
        .option("wide", wideOption)
        .example("$0 usage", "cost by day over every session in ~/.pi/agent/sessions")
        .example("$0 usage --by month --since 3m --breakdown", "the last three months, a row per model under each")
        .example("$0 usage --by session --cwd ~/code/app --json", "one project's sessions; forks' shared history counted once")
        .example("$0 usage --by model --format csv > cost.csv", "for a spreadsheet"),
    load: () => import("../commands/usage.js"),
    jsonl: true,
  },
  {
    command: "grep [pattern] [inputs..]",
    describe: "Find the entries whose text matches, across sessions (exit 0 found, 1 none, 2 error)",
    repeatable: ["role"],
    builder: (y) =>
      entryFilters(
        y
          .positional("pattern", { type: "string", describe: "a JavaScript regular expression (-F: a fixed string), matched against each entry's decoded text; one that starts with - goes after -e, or after --" })
          .option("regexp", { alias: "e", type: "string", describe: "PATTERN, given as an option (for one that starts with -); then every positional is an input" })
          .positional("inputs", { type: "string", array: true, describe: "session files or directories (default: pi's session directory and every OpenClaw root found)" })
          .option("store", storeOption)
          .option("archived", { type: "boolean", default: false, describe: "what each directory's archive holds too (where `archive` moved sessions, --to included)" })
          .option("fixed-strings", { alias: "F", type: "boolean", default: false, describe: "PATTERN is a fixed string" })
          .option("ignore-case", { alias: "i", type: "boolean", default: false, describe: "letters match either case" })
          .option("word-regexp", { alias: "w", type: "boolean", default: false, describe: "whole words only" })
          .option("files-with-matches", { alias: "l", type: "boolean", default: false, describe: "only the session files with a match" })
          .option("count", { alias: "c", type: "boolean", default: false, describe: "how many entries match, a session a line" })
          .option("max-count", { alias: "m", type: "string", coerce: count("max-count"), describe: "at most N matching entries a session" }),
      )
        .example("$0 grep 'rm -rf'", "every entry, in every session, that mentions rm -rf")
        .example("$0 grep -i 'salt' --role assistant --since 7d", "what the model said about the salt this week")
        .example("$0 grep -F 'npm test' --tool bash -c", "how often each session ran npm test")
        .example("$0 grep TODO ~/.pi/agent/sessions --jsonl | jq -r .id", "the matching entries' ids")
        .example("$0 grep -e '--force' session.jsonl", "a pattern that starts with -"),
    load: () => import("../commands/grep.js"),
    jsonl: true,
  },
  {
    command: "search [query] [inputs..]",
    describe: "Find where something was said, best first, from an index kept up to date (exit 0 found, 1 none, 2 error)",
    repeatable: ["role"],
    builder: (y) =>
      entryFilters(
        y
          .positional("query", { type: "string", describe: "words to find, each a whole word anywhere in an entry (as grep -w -i finds it); \"a phrase\" in double quotes keeps its words together; with -F, one string found as it is (grep -F -i). One that starts with - goes after --" })
          .positional("inputs", { type: "string", array: true, describe: "session files or directories (default: pi's session directory and every OpenClaw root found)" })
          .option("fixed-strings", { alias: "F", type: "boolean", default: false, describe: "QUERY is one string, found as it is, in any script and of any length (case aside)" })
          .option("limit", { type: "string", coerce: count("limit", 1), describe: "the best N matches (default: a screenful on a terminal, else 20)" })
          .option("all", { type: "boolean", default: false, describe: "every match, best first" })
          .option("store", storeOption)
          .option("archived", { type: "boolean", default: false, describe: "the archive folder beside each directory too (where `archive` moved sessions)" }),
      )
        .example("$0 search 'postgres migration'", "where were postgres and migration said together, best first")
        .example("$0 search '\"rate limit\"' --role user,assistant --since 30d", "the phrase, in what was said this month")
        .example("$0 search -F 数据库", "a Chinese word, as a substring (any script, any length)")
        .example("$0 search -F 'rm -rf' --all --jsonl | jq -r .file", "every match, a JSON row each")
        .example("$0 search deploy ~/.openclaw --limit 5", "the five best in one store"),
    load: () => import("../commands/search.js"),
    jsonl: true,
  },
];

/** The filters `grep` and `search` share (support/inputs/filters.ts). */
function entryFilters(y: Argv): Argv {
  return y
    .option("role", { type: "string", describe: "only entries of this role: user, assistant, toolResult, bashExecution, custom, system, or an entry type (compaction, branch_summary, custom_message, session_info, label); repeatable" })
    .option("tool", { type: "string", describe: "only the calls and results of this tool (bash, read, edit, …)" })
    .option("since", { type: "string", describe: "entries from this day on (YYYY-MM-DD, YYYYMMDD, or 7d / 4w / 3m before today)" })
    .option("until", { type: "string", describe: "entries up to and including this day (same forms)" })
    .option("timezone", { alias: "z", type: "string", describe: "IANA time zone of --since/--until (default: the machine's)" })
    .option("cwd", { type: "string", describe: "only sessions whose working directory is PATH" })
    .option("branch", { choices: ["current"] as const, describe: "current: only entries on each session's current branch" });
}

/** The options every writing command shares (docs/commands.md, "Writing safely"). */
function writeOptions(y: Argv): Argv {
  return y
    .option("out", { alias: "o", type: "string", describe: "write here instead of in place (a directory when there are several files)" })
    .option("backup-dir", { type: "string", describe: "keep the originals' backups here (default: beside each file, as FILE.bak)" })
    .option("force", { type: "boolean", default: false, describe: "replace an existing --out file" })
    .option("format", reportFormat)
    .option("wide", wideOption);
}

export const COMMAND_NAMES = [...COMMANDS.map((c) => c.command.split(" ")[0]!), "completion"];

export const name = (spec: CommandSpec) => spec.command.split(" ")[0]!;
