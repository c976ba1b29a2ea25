/**
 * Masks credential-shaped strings as `[REDACTED:kind]`: provider API keys, AWS keys, GitHub and
 * Slack tokens, JWTs, private key blocks, and the values of `Bearer`, `password=`, `token=` and
 * the like. Agents print these routinely; `export --redact` runs every string through this.
 */
const RULES: Array<{ kind: string; re: RegExp; keep?: number }> = [
  { kind: "private-key", re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g },
  { kind: "anthropic-key", re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: "openrouter-key", re: /\bsk-or-v1-[A-Za-z0-9]{20,}/g },
  { kind: "openai-key", re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: "google-key", re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: "groq-key", re: /\bgsk_[A-Za-z0-9]{20,}/g },
  { kind: "xai-key", re: /\bxai-[A-Za-z0-9]{20,}/g },
  { kind: "aws-access-key", re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: "aws-secret-key", re: /(\baws_secret_access_key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}/gi, keep: 1 },
  { kind: "github-token", re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { kind: "slack-token", re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: "jwt", re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: "bearer", re: /(\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}/g, keep: 1 },
  { kind: "secret-value", re: /(\b(?:password|passwd|pwd|token|secret|api[_-]?key|access[_-]?key|client[_-]?secret)["']?\s*[:=]\s*["']?)(?!\[REDACTED)[^\s"'&,;]{4,}/gi, keep: 1 },
];

export class Redactor {
  count = 0;
  readonly kinds = new Map<string, number>();

  constructor(readonly enabled: boolean) {}

  text(s: string): string {
    if (!this.enabled || s.length < 8) return s;
    let out = s;
    for (const rule of RULES) {
      out = out.replace(rule.re, (...m: string[]) => {
        this.count++;
        this.kinds.set(rule.kind, (this.kinds.get(rule.kind) ?? 0) + 1);
        return `${rule.keep ? m[rule.keep] : ""}[REDACTED:${rule.kind}]`;
      });
    }
    return out;
  }

  /** Every string inside `v` (for JSON output). */
  value<T>(v: T): T {
    if (!this.enabled) return v;
    if (typeof v === "string") return this.text(v) as T;
    if (Array.isArray(v)) return v.map((x) => this.value(x)) as T;
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.value(x)])) as T;
    return v;
  }

  summary(): string {
    return [...this.kinds].map(([k, n]) => `${n} ${k}`).join(", ");
  }
}
