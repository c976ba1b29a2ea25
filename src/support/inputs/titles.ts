import { transcriptFacts } from "../../stores/index.js";

/**
 * How a session is named over its matches: an OpenClaw transcript by its label and key where its
 * store gives them (docs/stores.md, "OpenClaw's stores"), any other by its title (its name, else
 * its first user message: what `ls` says). `-` (standard input) by its title.
 */
export function shownTitle(path: string, title: string | null | undefined): string | null | undefined {
  const facts = path === "-" ? undefined : transcriptFacts(path, title);
  return facts?.store === "openclaw" ? [facts.label, facts.key].filter(Boolean).join(" · ") || title : title;
}
