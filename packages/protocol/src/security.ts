import { z } from 'zod';

/**
 * Named sets of scopes. A scope is `group:name` (the method table's `scope`), `group:*`, or `*`;
 * `eval` guards running page script. Profiles grow: each one holds the one before it.
 */
export const scopeProfiles = {
  /** Look, never touch: observations, lists, waiting, streams. No cookies or storage. */
  readonly: ['page:list', 'page:waitFor', 'observe:*', 'agent:observe', 'agent:extract', 'context:list', 'frame:list', 'download:list', 'stream:*'],
  /** What an agent needs to browse: pages, actions, agent/*, frames, dialogs, downloads, approvals. */
  standard: [] as string[],
  /** Adds cookies and storage, network interception and traces. */
  full: [] as string[],
  /** Everything, `eval` included. */
  privileged: ['*'],
};
scopeProfiles.standard = [
  ...scopeProfiles.readonly,
  ...['browser:*', 'page:*', 'action:*', 'agent:*', 'context:*', 'frame:*', 'dialog:*', 'download:*', 'emulate:*', 'approval:*'],
];
scopeProfiles.full = [...scopeProfiles.standard, 'storage:*', 'network:*', 'trace:*'];

export type ScopeProfile = keyof typeof scopeProfiles;

const SCOPE = /^(\*|eval|[a-z]+:(\*|[A-Za-z]+))$/;

/** A scope or a profile name, as written in a tokens file. */
export const ScopeSchema = z
  .string()
  .refine((s) => SCOPE.test(s) || Object.hasOwn(scopeProfiles, s), 'a scope ("page:navigate", "action:*", "*", "eval") or a profile (readonly, standard, full, privileged)');

/** Profiles replaced by their scopes; duplicates removed. */
export function expandScopes(scopes: readonly string[]): string[] {
  const out = new Set<string>();
  for (const scope of scopes) {
    const profile = Object.hasOwn(scopeProfiles, scope) ? scopeProfiles[scope as ScopeProfile] : [scope];
    for (const s of profile) out.add(s);
  }
  return [...out];
}

/** Whether `granted` (expanded scopes) covers `required`. */
export function scopeGranted(granted: readonly string[], required: string): boolean {
  if (granted.includes('*') || granted.includes(required)) return true;
  const group = required.split(':')[0];
  return required.includes(':') && granted.includes(`${group}:*`);
}

/**
 * Host patterns of a domain policy: `example.com` (that host only), `*.example.com` (its
 * subdomains, not itself), an IP address, or a CIDR range (`10.0.0.0/8`, `fd00::/8`).
 */
export const DomainPatternSchema = z.string().min(1).max(253);

/** One token's grant, as a tokens file (`{ "<token>": grant }`) or `BAP_TOKENS` gives it. */
export const TokenGrantSchema = z.strictObject({
  /** Shown in logs and the audit log instead of the token. */
  name: z.string().min(1).max(100),
  /** Scopes and profiles (default: standard). */
  scopes: z.array(ScopeSchema).default(['standard']),
  /** Narrows the server's domain policy for this token's sessions. */
  allowedDomains: z.array(DomainPatternSchema).optional(),
  /** ISO 8601 date or Unix ms after which the token is refused. */
  expiresAt: z.union([z.iso.datetime({ offset: true }), z.number().int().positive()]).optional(),
});
export type TokenGrant = z.input<typeof TokenGrantSchema>;

export const ApprovalRuleSchema = z.strictObject({
  /** Shown in approval/required and the audit log. */
  name: z.string().min(1).max(100),
  /** Every criterion given must match (each list matches when any entry does); an empty `match` matches every mutating request. */
  match: z
    .strictObject({
      /** Method names (`action/click`); `action/*` matches a group. */
      actions: z.array(z.string().min(1)).optional(),
      /** The target element's role and a case-insensitive regular expression over its accessible name. */
      selectors: z.array(z.strictObject({ role: z.string().optional(), namePattern: z.string().optional() })).optional(),
      /** Host patterns of the page's URL, as in a domain policy. */
      domains: z.array(DomainPatternSchema).optional(),
      /** Regular expressions over the page's URL. */
      urlPatterns: z.array(z.string()).optional(),
    })
    .default({}),
  action: z.enum(['require', 'allow', 'deny']),
  /** ms to wait for a decision under this rule (default: the config's timeout). */
  timeout: z.number().int().min(100).max(3_600_000).optional(),
});
export type ApprovalRule = z.input<typeof ApprovalRuleSchema>;

export const ApprovalConfigSchema = z.strictObject({
  /** `audit` logs what would need approval without blocking; `required` waits for a decision. */
  mode: z.enum(['disabled', 'audit', 'required']).default('required'),
  /** Checked in order; the first matching rule decides. Only mutating requests are checked. */
  rules: z.array(ApprovalRuleSchema).default([]),
  /** What happens when no rule matches. */
  defaultAction: z.enum(['allow', 'require']).default('allow'),
  /** ms to wait for a decision (default 60,000). */
  timeout: z.number().int().min(100).max(3_600_000).default(60_000),
  /** Attach a viewport screenshot to approval/required. */
  includeScreenshot: z.boolean().default(false),
});
export type ApprovalConfig = z.input<typeof ApprovalConfigSchema>;
export type ResolvedApprovalConfig = z.output<typeof ApprovalConfigSchema>;

/** A secret given to the server: its value, and optionally the hosts where it may be typed. */
export const SecretSchema = z.union([
  z.string().min(1),
  z.strictObject({ value: z.string().min(1), domains: z.array(DomainPatternSchema).optional() }),
]);
/** `{ NAME: value | {value, domains} }`; agents write `{{secret:NAME}}` in fill and type values. */
export const SecretsFileSchema = z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, "_", "." or "-"'), SecretSchema);
export type SecretsFile = z.input<typeof SecretsFileSchema>;

/** One line of the audit log (`bap serve --audit-log`): a request, or one step of an agent/act. */
export const AuditEntrySchema = z.object({
  /** ISO 8601, when the request arrived. */
  time: z.iso.datetime({ offset: true }),
  /** The client's remote address. */
  client: z.string(),
  /** The token's name; `local` on a server without tokens. */
  token: z.string(),
  session: z.string().nullable(),
  method: z.string(),
  /** The agent/act step index, 0-based; absent on a plain request. */
  step: z.number().int().nonnegative().optional(),
  /** Redacted: secrets, sensitive values and tokens never appear; long strings are abbreviated. */
  params: z.unknown(),
  /** `flagged`: an approval rule matched in audit mode; `limited`: refused by a rate limit. */
  decision: z.enum(['allowed', 'refused', 'approved', 'denied', 'timeout', 'flagged', 'limited']),
  /** The approval rule that decided. */
  rule: z.string().optional(),
  approver: z.string().optional(),
  outcome: z.enum(['ok', 'error']),
  error: z.object({ code: z.number().int(), message: z.string() }).optional(),
  durationMs: z.number().nonnegative(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;
